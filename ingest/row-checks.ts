import { uploadColumns, vocabularyOfColumn, type FieldDef } from '../schemas/index.js';
import { errorRules, warningRules, type CompiledRule } from './rule-sql.js';
import { ident, literal } from './sql.js';
import { nulFreeSql, patterns, ranges, vocabularyType } from './validate-sql.js';

/**
 * Every check a row can fail, one by one, with the SQL of its failure message: what the rejects file writes (every
 * failed column and rule of a row, with its value, not only the first) and what a validation level sorts into
 * errors and warnings. The verdicts are the row rules of validate-sql.ts and the rules of rule-sql.ts, check for
 * check; row-checks.test.ts holds "some error fails" equal to NOT rowOkSql() on every fixture and generated row.
 */

/** What a check is about, which is what a validation level decides on (validation-level.ts). */
export type CheckKind =
  /** A column the API stores a row or its location with is empty. */
  | 'required-stored'
  /** A column upstream requires that the API can store empty (ResultValueType). */
  | 'required-upstream'
  /** A number, date or time that is not one, or a coordinate out of range: the API cannot store it typed. */
  | 'type'
  /** A value outside upstream's list, or a time zone not in upstream's form. */
  | 'vocabulary'
  /** One of upstream's rules the upload schema marks as an error (primary.json). */
  | 'rule'
  /** One of upstream's quality-control rules (warnings). */
  | 'quality';

export interface RowCheck {
  /** `required-<column>`, `value-<column>`, or the upstream rule's name. */
  readonly name: string;
  readonly kind: CheckKind;
  readonly column: string | null;
  /** SQL true when the row passes, over upload columns as text (NULL for empty). */
  readonly ok: string;
  /** SQL of the failure's message, naming the column and its value (meaningful only where `ok` is false). */
  readonly message: string;
  /** For a counted warning: what the rule asks. */
  readonly description: string;
}

/** The reference's quoting of a value in a message (schemas/observation-row.ts): long values cut at 80 characters. */
const quoted = (v: string) => `'''' || (CASE WHEN length(${v}) > 80 THEN left(${v}, 77) || '...' ELSE ${v} END) || ''''`;
const text = (s: string) => literal(s);

/** The stored columns the API cannot serve a row or its location without. */
export const storedRequired: ReadonlySet<string> = new Set(uploadColumns.filter((f) => !f.nullable && f.name !== 'ResultValueType').map((f) => f.name));

function valueCheck(field: FieldDef): RowCheck | null {
  const v = ident(field.name);
  const name = field.name;
  const fail = (kind: CheckKind, present: string, reason: string): RowCheck => ({
    name: `value-${name}`, kind, column: name, ok: `(${v} IS NULL OR ${present})`, message: `${text(`${name} `)} || ${quoted(v)} || ${text(` ${reason}`)}`, description: `${name} ${reason}`,
  });
  const vocabulary = vocabularyOfColumn[name];
  if (vocabulary) return fail('vocabulary', `TRY_CAST(${v} AS ${vocabularyType(vocabulary)}) IS NOT NULL`, `is not in the ${vocabulary} vocabulary`);
  if (name.endsWith('TimeZone')) return fail('vocabulary', `regexp_full_match(${v}, ${literal(patterns.timeZone)})`, 'is not a UTC offset (Z or ±HH:MM)');
  switch (field.type) {
    case 'number':
    case 'integer': {
      const n = `TRY_CAST(${v} AS DOUBLE)`;
      const number = `(regexp_full_match(${v}, ${literal(patterns.number)}) AND isfinite(${n}))`;
      const range = ranges[name];
      if (!range) return fail('type', number, 'is not a finite number');
      // One check, two messages, as the reference words them.
      return {
        name: `value-${name}`, kind: 'type', column: name,
        ok: `(${v} IS NULL OR (${number} AND ${n} BETWEEN ${range[0]} AND ${range[1]}))`,
        message: `${text(`${name} `)} || ${quoted(v)} || (CASE WHEN ${number} THEN ${text(` is out of range (${range[0]} to ${range[1]})`)} ELSE ' is not a finite number' END)`,
        description: `${name} is not a finite number from ${range[0]} to ${range[1]}`,
      };
    }
    case 'date':
      return fail('type', `(regexp_full_match(${v}, ${literal(patterns.date)}) AND TRY_CAST(${v} AS DATE) IS NOT NULL)`, 'is not a calendar date (YYYY-MM-DD)');
    case 'time':
      return fail('type', `regexp_full_match(${v}, ${literal(patterns.time)})`, 'is not a time (HH:MM, HH:MM:SS or HH:MM:SS.sss, 00:00 to 23:59:59.999)');
    case 'string': {
      // The value is not quoted back: the rejects file would carry the NUL it refuses.
      const reason = 'holds a NUL byte (U+0000), which no text may: remove it from the file';
      return { name: `value-${name}`, kind: 'type', column: name, ok: `(${v} IS NULL OR ${nulFreeSql(v)})`, message: text(`${name} ${reason}`), description: `${name} ${reason}` };
    }
    default:
      return null;
  }
}

function ruleCheck(rule: CompiledRule, kind: 'rule' | 'quality'): RowCheck {
  const c = rule.column;
  const value = c ? ` || ' (${c} ' || coalesce(${quoted(ident(c))}, 'empty') || ')'` : '';
  const what = rule.description || 'see docs/upstream-rules.md';
  return {
    name: rule.name, kind, column: c,
    ok: `coalesce(${rule.sql}, FALSE)`,
    message: `${text(`upstream rule ${rule.name}`)}${value} || ${text(`: ${what}`)}`,
    description: what,
  };
}

/** Every check of a row, columns first (in template order, presence before value), then upstream's rules. */
export const rowChecks: readonly RowCheck[] = [
  ...uploadColumns.flatMap((f) => {
    const presence: RowCheck[] = f.nullable
      ? []
      : [{
          name: `required-${f.name}`, kind: storedRequired.has(f.name) ? 'required-stored' : 'required-upstream', column: f.name,
          ok: `${ident(f.name)} IS NOT NULL`, message: text(`${f.name} is required`), description: `${f.name} is required`,
        }];
    const value = valueCheck(f);
    return value ? [...presence, value] : presence;
  }),
  ...errorRules.map((r) => ruleCheck(r, 'rule')),
  ...warningRules.map((r) => ruleCheck(r, 'quality')),
];

/**
 * SQL: the messages of the checks a row fails among `checks`, joined by ' | ', NULL when it fails none. An upstream
 * column rule (`column-X`) says again what X's own check said: it is left out when that check failed too.
 */
export function failuresSql(checks: readonly RowCheck[]): string {
  if (checks.length === 0) return 'NULL::VARCHAR';
  const ownCheck = new Map(checks.filter((c) => c.kind === 'type' || c.kind === 'vocabulary').map((c) => [c.column, c]));
  const parts = checks.map((c) => {
    const own = c.name.startsWith('column-') && c.column ? ownCheck.get(c.column) : undefined;
    const fails = own ? `NOT ${c.ok} AND ${own.ok}` : `NOT ${c.ok}`;
    return `CASE WHEN ${fails} THEN ${c.message} END`;
  });
  return `nullif(concat_ws(' | ', ${parts.join(', ')}), '')`;
}
