import { uploadColumns, vocabularyOfColumn, type FieldDef, type VocabularyName } from '../schemas/index.js';
import { errorRules } from './rule-sql.js';
import { ident, literal } from './sql.js';

/**
 * The row rules of `schemas/observation-row.ts` (the reference, zod) as one SQL boolean per row, so validation
 * runs inside DuckDB's scan instead of row by row in JS. The patterns repeat the reference's private regexes;
 * validate-sql.test.ts checks that both verdicts agree on every fixture row, good and bad.
 */
export const patterns = {
  number: '[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?',
  date: '[0-9]{4}-[0-9]{2}-[0-9]{2}',
  time: '([01][0-9]|2[0-3]):([0-5][0-9])(:([0-5][0-9])(\\.[0-9]{1,3})?)?',
  timeZone: 'Z|[+-](0[0-9]|1[0-9]|2[0-4]):[0-5][0-9]',
} as const;

export const ranges: Readonly<Record<string, readonly [number, number]>> = {
  MonitoringLocationLatitude: [-90, 90],
  MonitoringLocationLongitude: [-180, 180],
};

/** The temporary ENUM type holding one vocabulary; casting to it is DuckDB's fastest exact membership test. */
export function vocabularyType(name: VocabularyName): string {
  return ident(`vocabulary_${name}`);
}

/** SQL true when a present value `v` of `field` is well-formed (absence is judged separately). */
function presentCheck(field: FieldDef, v: string): string | null {
  const vocabulary = vocabularyOfColumn[field.name];
  if (vocabulary) return `TRY_CAST(${v} AS ${vocabularyType(vocabulary)}) IS NOT NULL`;
  if (field.name.endsWith('TimeZone')) return `regexp_full_match(${v}, ${literal(patterns.timeZone)})`;
  switch (field.type) {
    case 'number':
    case 'integer': {
      const range = ranges[field.name];
      const n = `TRY_CAST(${v} AS DOUBLE)`;
      const inRange = range ? ` AND ${n} BETWEEN ${range[0]} AND ${range[1]}` : '';
      return `(regexp_full_match(${v}, ${literal(patterns.number)}) AND isfinite(${n})${inRange})`;
    }
    case 'date':
      return `(regexp_full_match(${v}, ${literal(patterns.date)}) AND TRY_CAST(${v} AS DATE) IS NOT NULL)`;
    case 'time':
      return `regexp_full_match(${v}, ${literal(patterns.time)})`;
    case 'string':
      return nulFreeSql(v);
    default:
      return null;
  }
}

/**
 * Free text holds no NUL byte (U+0000): DuckDB's reader keeps it, and it would reach every CSV and JSON page raw,
 * where C-string readers cut the value short. Typed and vocabulary columns refuse it by their own checks.
 */
export function nulFreeSql(v: string): string {
  return `NOT contains(${v}, chr(0))`;
}

/** SQL true when the column's value is valid, absence included. The reader turns empty fields into NULL. */
export function columnCheckSql(field: FieldDef, v = ident(field.name)): string | null {
  const present = presentCheck(field, v);
  if (!field.nullable) return present ? `(${v} IS NOT NULL AND ${present})` : `${v} IS NOT NULL`;
  return present ? `(${v} IS NULL OR ${present})` : null;
}

/** SQL true when every column of the row is well-formed, over columns named as the upload columns. */
export function columnsOkSql(): string {
  return uploadColumns.map((f) => columnCheckSql(f)).filter((c): c is string => c !== null).join('\n  AND ');
}

/** SQL true when the whole row is valid: its columns, then upstream's error rules (rule-sql.ts). */
export function rowOkSql(): string {
  return [columnsOkSql(), ...errorRules.map((r) => r.sql)].join('\n  AND ');
}

/** The DuckDB type and cast of a validated upload value. */
export function castSql(field: FieldDef, v = ident(field.name)): string {
  switch (field.type) {
    case 'number':
    case 'integer':
      return `CAST(${v} AS DOUBLE)`;
    case 'date':
      return `CAST(${v} AS DATE)`;
    case 'time':
      return `CAST(${v} AS TIME)`;
    default:
      return v;
  }
}

/** The vocabularies a staging database needs as ENUM types. */
export const usedVocabularies: readonly VocabularyName[] = [...new Set(Object.values(vocabularyOfColumn))];
