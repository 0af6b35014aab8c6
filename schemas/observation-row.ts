import { z } from 'zod';
import type { FieldDef } from './field.js';
import { uploadColumns } from './upload-columns.js';
import { inVocabulary, vocabularyOfColumn, type VocabularyName } from './vocabularies.js';

/**
 * One row of an upload CSV, as the reference definition of validity. The ingest validates in bulk in SQL and
 * tests that its verdicts agree with this schema, so every rule is a plain, reproducible check:
 *
 * - A value is absent when the key is missing, null or the empty string; nothing is trimmed (a value with
 *   surrounding spaces fails its vocabulary or type check).
 * - Required columns: those upstream requires (schemas/upstream/columns.json).
 * - number: decimal notation `^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$` and finite (no NaN, Infinity, hex, spaces).
 *   MonitoringLocationLatitude within -90..90, MonitoringLocationLongitude within -180..180.
 * - date: `YYYY-MM-DD` naming a real calendar day (leap years included).
 * - time: `HH:MM`, `HH:MM:SS` or `HH:MM:SS.sss` (upstream's time-strict), 00:00..23:59:59.999; output as HH:MM:SS[.sss].
 * - *TimeZone columns: `Z` or `±HH:MM` (HH 00..24), DataStream's pattern.
 * - Vocabulary columns (vocabularyOfColumn): exact, case-sensitive member of the vocabulary.
 * - Keys that are not upload columns are ignored (the header is checked per file, not per row).
 *
 * Every issue's path is [column] and its message names the column, the value and the reason.
 */

export type UploadColumnName = string;

/** Names of the upload columns that must be non-empty on every row (upstream's `required`, not repeated here). */
export const requiredUploadColumns: readonly string[] = Object.freeze(
  uploadColumns.filter((f) => !f.nullable).map((f) => f.name),
);

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(\.\d{1,3})?)?$/;
const TIME_ZONE = /^(Z|[+-](0\d|1\d|2[0-4]):[0-5]\d)$/;

const ranges: Readonly<Record<string, readonly [number, number]>> = {
  MonitoringLocationLatitude: [-90, 90],
  MonitoringLocationLongitude: [-180, 180],
};

/** Whether y-m-d names a day of the proleptic Gregorian calendar. */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}

type Parsed = string | number | null;
type Check = (column: string, value: string) => { value: Parsed } | { error: string };

const quote = (value: string) => `'${value.length > 80 ? `${value.slice(0, 77)}...` : value}'`;

function numberCheck(column: string, value: string): { value: Parsed } | { error: string } {
  const n = NUMBER.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) return { error: `${column} ${quote(value)} is not a finite number` };
  const range = ranges[column];
  if (range && (n < range[0] || n > range[1])) {
    return { error: `${column} ${quote(value)} is out of range (${range[0]} to ${range[1]})` };
  }
  return { value: n };
}

function dateCheck(column: string, value: string): { value: Parsed } | { error: string } {
  const m = DATE.exec(value);
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) {
    return { error: `${column} ${quote(value)} is not a calendar date (YYYY-MM-DD)` };
  }
  return { value };
}

function timeCheck(column: string, value: string): { value: Parsed } | { error: string } {
  const m = TIME.exec(value);
  if (!m) return { error: `${column} ${quote(value)} is not a time (HH:MM, HH:MM:SS or HH:MM:SS.sss, 00:00 to 23:59:59.999)` };
  return { value: `${m[1]}:${m[2]}:${m[3] ?? '00'}${m[4] ?? ''}` };
}

function timeZoneCheck(column: string, value: string): { value: Parsed } | { error: string } {
  return TIME_ZONE.test(value) ? { value } : { error: `${column} ${quote(value)} is not a UTC offset (Z or ±HH:MM)` };
}

function vocabularyCheck(vocabulary: VocabularyName): Check {
  return (column, value) =>
    inVocabulary(vocabulary, value) ? { value } : { error: `${column} ${quote(value)} is not in the ${vocabulary} vocabulary` };
}

/** The check of one column, chosen from its catalogue type, name and vocabulary. */
function checkOf(field: FieldDef): Check {
  const vocabulary = vocabularyOfColumn[field.name];
  if (vocabulary) return vocabularyCheck(vocabulary);
  if (field.name.endsWith('TimeZone')) return timeZoneCheck;
  switch (field.type) {
    case 'number':
    case 'integer':
      return numberCheck;
    case 'date':
      return dateCheck;
    case 'time':
      return timeCheck;
    case 'string':
      return textCheck;
    default:
      return (_column, value) => ({ value });
  }
}

/** Free text holds no NUL: it would reach CSV and JSON pages raw. The value is not quoted back, NUL and all. */
function textCheck(column: string, value: string): { value: Parsed } | { error: string } {
  return value.includes('\0') ? { error: `${column} holds a NUL byte (U+0000), which no text may: remove it from the file` } : { value };
}

function columnSchema(field: FieldDef) {
  const check = checkOf(field);
  const rawValue = z.union([z.string(), z.null()], { error: `${field.name} must be text or empty` });
  return rawValue.transform((raw, ctx): Parsed => {
    if (raw === null || raw === '') {
      if (!field.nullable) ctx.addIssue({ code: 'custom', message: `${field.name} is required` });
      return null;
    }
    const result = check(field.name, raw);
    if ('error' in result) {
      ctx.addIssue({ code: 'custom', message: result.error });
      return z.NEVER;
    }
    return result.value;
  });
}

const shape = Object.fromEntries(uploadColumns.map((f) => [f.name, columnSchema(f)]));

/** A valid row: every upload column present as a key, null when empty; numbers parsed, times as HH:MM:SS. */
export type ObservationRow = Readonly<Record<UploadColumnName, string | number | null>>;

/** Input: one CSV row keyed by header name, values as read (strings; missing or '' for empty). */
export type ObservationRowInput = Readonly<Record<string, string | null | undefined>>;

/** Every upload column as a key (missing → null); other keys dropped. Non-objects pass through to fail. */
function normalise(input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return input;
  const source = input as Record<string, unknown>;
  return Object.fromEntries(uploadColumns.map((f) => [f.name, source[f.name] ?? null]));
}

/**
 * The columns of one row. Rules across columns (a value or a detection condition, a unit with each measure, …)
 * are upstream's, compiled to SQL by ingest/rule-sql.ts and checked against ajv there, not restated here.
 */
export const observationRowSchema: z.ZodType<ObservationRow, ObservationRowInput> = z.preprocess(normalise, z.object(shape)) as unknown as z.ZodType<
  ObservationRow,
  ObservationRowInput
>;

export interface RowIssue {
  readonly column: string;
  readonly message: string;
}

/** Validates one row; issues are flattened to {column, message}, in column order. */
export function checkObservationRow(
  row: ObservationRowInput,
): { readonly ok: true; readonly row: ObservationRow } | { readonly ok: false; readonly issues: readonly RowIssue[] } {
  const result = observationRowSchema.safeParse(row);
  if (result.success) return { ok: true, row: result.data };
  return { ok: false, issues: result.error.issues.map((i) => ({ column: String(i.path[0] ?? ''), message: i.message })) };
}
