import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { uploadColumns, type UpstreamRule } from '../schemas/index.js';
import { applicableRules } from './rule-sql.js';

/**
 * Test support: upstream's own validator (ajv, JSON Schema 2020-12) judging a row by one upstream rule, as the
 * DataStream uploader sees it: empty cells absent, numeric columns as numbers, everything else as text.
 */
const numeric = new Set(uploadColumns.filter((f) => f.type === 'number' || f.type === 'integer').map((f) => f.name));
const ajv = new Ajv2020({ strict: false, allErrors: false });
// Upstream validates `format: date` with ajv-formats (its schemas name the vocabulary).
addFormats.default(ajv, ['date']);
// By rule, not name: upstream uses some names for both an error and a warning.
const compiled = new WeakMap<UpstreamRule, ValidateFunction>();

export function asUploaded(row: Readonly<Record<string, string | null | undefined>>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [column, value] of Object.entries(row)) {
    if (value === null || value === undefined || value === '') continue;
    out[column] = numeric.has(column) && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  return out;
}

/** The rules ingest applies that have no reference into upstream's WQX package (which ajv could not resolve either). */
export function checkableRules(severity?: 'error' | 'warning'): UpstreamRule[] {
  return applicableRules().filter((r) => (severity === undefined || r.severity === severity) && !JSON.stringify(r.schema).includes('https://epa.gov/wqx/'));
}

/** Whether ajv accepts the row under the rule. */
export function ajvAccepts(rule: UpstreamRule, row: Readonly<Record<string, string | null | undefined>>): boolean {
  let validate = compiled.get(rule);
  if (!validate) {
    validate = ajv.compile(rule.schema as object);
    compiled.set(rule, validate);
  }
  return validate(asUploaded(row));
}
