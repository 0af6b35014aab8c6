import { z } from 'zod';
import type { FieldDef } from './field.js';
import { metadataFields } from './metadata-fields.js';

/**
 * One dataset's `metadata.json`: the Metadata fields of the catalogue except TemporalExtent, which ingest derives
 * from the observations. Built from the catalogue so no field list is written twice; only the rules that are
 * not implied by a field's type are named here.
 */

/** DataStream's DOI shape (public API OpenAPI, `DOI.pattern`), e.g. 10.25976/ab12-cd34. */
export const DOI_PATTERN = /^10\.(25976|81029)\/[a-z0-9]{4}-[a-z0-9]{2}[0-9]{2}$/;

/** Fields ingest derives; present in metadata.json they are an error, not silently ignored. */
const derivedFields = new Set(['TemporalExtent']);

const text = (name: string) => z.string({ error: `${name} must be a string` });

const timestamp = (name: string) =>
  z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: `${name} must be an ISO 8601 date or date-time with a UTC offset, e.g. 2021-04-01T12:00:00Z`,
  });

/** Schema of one field by name (special rules) or by catalogue type. */
function fieldSchema(field: FieldDef): z.ZodType {
  switch (field.name) {
    case 'Id':
      return z.uuid({ error: 'Id must be a UUID' }).optional();
    case 'DOI':
      return z
        .string({ error: 'DOI is required' })
        .regex(DOI_PATTERN, { error: (iss) => `DOI '${String(iss.input)}' does not match ${DOI_PATTERN.source} (e.g. 10.25976/ab12-cd34)` });
    case 'DatasetName':
      return text('DatasetName').trim().min(1, { error: 'DatasetName is required' });
    case 'Version':
      return text('Version')
        .regex(/^[0-9]+\.[0-9]+\.[0-9]+$/, { error: 'Version must look like 1.0.0' })
        .nullish();
  }
  switch (field.type) {
    case 'string[]':
      return z.array(text(`${field.name}[]`), { error: `${field.name} must be an array of strings` }).nullish();
    case 'timestamp':
      return timestamp(field.name).nullish();
    default:
      return text(field.name).nullish();
  }
}

const metadataInputFields = metadataFields.filter((f) => !derivedFields.has(f.name));
const allowed = metadataInputFields.map((f) => f.name);

/** A parsed metadata.json. Optional fields may be absent or null. */
export interface DatasetMetadata {
  readonly Id?: string;
  readonly DOI: string;
  readonly DatasetName: string;
  readonly [field: string]: string | readonly string[] | null | undefined;
}

// The shape is built from the catalogue at runtime, so the static type is declared (DatasetMetadata) rather than
// inferred field by field; z.infer<typeof datasetMetadataSchema> is DatasetMetadata.
export const datasetMetadataSchema: z.ZodType<DatasetMetadata> = z.strictObject(
  Object.fromEntries(metadataInputFields.map((f) => [f.name, fieldSchema(f)])),
  {
    error: (iss) => {
      if (iss.code !== 'unrecognized_keys') return undefined;
      const derived = iss.keys.filter((k) => derivedFields.has(k));
      const hint = derived.length > 0 ? ` (${derived.join(', ')} is derived by ingest; remove it)` : '';
      return `unknown key(s) ${iss.keys.map((k) => `'${k}'`).join(', ')} in metadata.json${hint}; allowed: ${allowed.join(', ')}`;
    },
  },
) as unknown as z.ZodType<DatasetMetadata>;
