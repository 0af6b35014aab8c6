import { z } from 'zod';
import type { FieldDef } from './field.js';
import { metadataFields } from './metadata-fields.js';

/**
 * One dataset's `metadata.json`: the Metadata fields of the catalogue except TemporalExtent, which ingest derives
 * from the observations. Built from the catalogue so no field list is written twice; only the rules that are
 * not implied by a field's type are named here.
 */

/**
 * Any DOI, by its standard syntax (ISO 26324; DOI Handbook §2.2): `10.`, the registrant code (digits, possibly
 * dot-separated), `/`, a suffix of printable characters (any Unicode but control and format characters, with no
 * space at either end). DOIs compare case-insensitively (ASCII), so ingest keeps the DOI as given for display and
 * compares its lower-cased form (dataset Id, duplicates, replacing and removing a dataset).
 */
export const DOI_SYNTAX = /^10\.[0-9]+(?:\.[0-9]+)*\/[^\p{C}\s](?:[^\p{C}]*[^\p{C}\s])?$/u;

/** DataStream's own DOI shape (public API OpenAPI, `DOI.pattern`), e.g. 10.25976/ab12-cd34: a DOI_PATTERN an operator may set. */
export const DATASTREAM_DOI_PATTERN = /^10\.(25976|81029)\/[a-z0-9]{4}-[a-z0-9]{2}[0-9]{2}$/;

/** The form DOIs are compared in: lower-cased (DOIs are case-insensitive). */
export const doiKey = (doi: string): string => doi.toLowerCase();

/** How strictly a dataset's rows are judged (ingest/validation-level.ts); `upstream` when not given. */
export const VALIDATION_LEVELS = ['upstream', 'storable'] as const;
export type ValidationLevel = (typeof VALIDATION_LEVELS)[number];

/** Fields ingest derives; present in metadata.json they are an error, not silently ignored. */
const derivedFields = new Set(['TemporalExtent']);

const text = (name: string) => z.string({ error: `${name} must be a string` });

/** A field the API cannot serve a dataset without: absent, null or '' is named as missing, with what to write. */
const requiredText = (name: string, example: string) =>
  z.string({ error: (iss) => (iss.input === undefined ? `${name} is required: give it in metadata.json, e.g. "${name}": "${example}"` : `${name} must be a string`) });

/**
 * A blank optional value is "not given", exactly as an empty CSV cell is: '' and null read as absent, for every
 * field, so a required one that is blank is reported as missing rather than as malformed.
 */
const blankIsAbsent = (schema: z.ZodType) => z.preprocess((v) => (v === '' || v === null ? undefined : v), schema);

const timestamp = (name: string) =>
  z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: `${name} must be an ISO 8601 date or date-time with a UTC offset, e.g. 2021-04-01T12:00:00Z`,
  });

export interface MetadataOptions {
  /** An operator's restriction of DOIs on top of the standard syntax (ingest's DOI_PATTERN setting). */
  readonly doiPattern?: RegExp;
}

function doiSchema(pattern: RegExp | undefined): z.ZodType {
  const doi = requiredText('DOI', '10.5066/P9ABCDEF').regex(DOI_SYNTAX, { error: (iss) => `DOI '${String(iss.input)}' is not a DOI: expected 10.<registrant>/<suffix> without a resolver prefix, e.g. 10.5066/P9ABCDEF` });
  if (!pattern) return doi;
  return doi.regex(pattern, { error: (iss) => `DOI '${String(iss.input)}' does not match DOI_PATTERN ${pattern.source}, the DOIs this hub's operator accepts` });
}

/** Schema of one field by name (special rules) or by catalogue type. */
function fieldSchema(field: FieldDef, options: MetadataOptions): z.ZodType {
  switch (field.name) {
    case 'Id':
      return z.uuid({ error: 'Id must be a UUID' }).optional();
    case 'DOI':
      return doiSchema(options.doiPattern);
    case 'ValidationLevel':
      return z.enum(VALIDATION_LEVELS, { error: (iss) => `ValidationLevel '${String(iss.input)}' is not one of ${VALIDATION_LEVELS.join(', ')}: upstream judges rows by DataStream's upload rules, storable only by what the API needs to store them` }).optional();
    case 'DatasetName':
      return requiredText('DatasetName', 'Bow River Monitoring').trim().min(1, { error: 'DatasetName is required: give it in metadata.json, e.g. "DatasetName": "Bow River Monitoring"' });
  }
  switch (field.type) {
    case 'string[]':
      return z.array(text(`${field.name}[]`), { error: `${field.name} must be an array of strings` }).optional();
    case 'timestamp':
      return timestamp(field.name).optional();
    default:
      return text(field.name).optional();
  }
}

const metadataInputFields = metadataFields.filter((f) => !derivedFields.has(f.name));
const allowed = metadataInputFields.map((f) => f.name);

/** A parsed metadata.json. Optional fields may be absent (given as absent, null or ''). */
export interface DatasetMetadata {
  readonly Id?: string;
  readonly DOI: string;
  readonly DatasetName: string;
  readonly [field: string]: string | readonly string[] | null | undefined;
}

// The shape is built from the catalogue at runtime, so the static type is declared (DatasetMetadata) rather than
// inferred field by field; z.infer<typeof datasetMetadataSchema> is DatasetMetadata.
/** The metadata.json schema, with the operator's DOI restriction if any. */
export function metadataSchema(options: MetadataOptions = {}): z.ZodType<DatasetMetadata> {
  return z.strictObject(
    Object.fromEntries(metadataInputFields.map((f) => [f.name, blankIsAbsent(fieldSchema(f, options))])),
    {
      error: (iss) => {
        if (iss.code !== 'unrecognized_keys') return undefined;
        const derived = iss.keys.filter((k) => derivedFields.has(k));
        const hint = derived.length > 0 ? ` (${derived.join(', ')} is derived by ingest; remove it)` : '';
        return `unknown key(s) ${iss.keys.map((k) => `'${k}'`).join(', ')} in metadata.json${hint}; allowed: ${allowed.join(', ')}`;
      },
    },
  ) as unknown as z.ZodType<DatasetMetadata>;
}

/** The metadata.json schema accepting any DOI. */
export const datasetMetadataSchema: z.ZodType<DatasetMetadata> = metadataSchema();
