import { uploadColumns, upstreamColumns, upstreamRules, type JsonSchema, type UpstreamRule } from '../schemas/index.js';
import { ident, literal } from './sql.js';

/**
 * Upstream's conditional rules (JSON Schema, schemas/upstream/rules.json) compiled to one SQL boolean each, over a
 * row of upload columns as text with NULL for empty, so they run inside DuckDB's scan like the column checks.
 * The compiler knows the part of JSON Schema the rules use (if/then/else, properties, required, dependencies,
 * anyOf/allOf/oneOf/not, enum, const, type, pattern, ranges, lengths) and refuses anything else by name: such a
 * rule is reported as not implemented (docs/upstream-rules.md) rather than guessed. rule-sql.test.ts checks every
 * compiled rule against ajv, the validator upstream uses, row by row.
 *
 * Values are seen as upstream's ETL presents them: empty cells absent, numeric columns as numbers, the rest as
 * strings; so numeric keywords ignore text columns and string keywords ignore numeric ones, as JSON Schema does.
 */

type Schema = Readonly<Record<string, unknown>>;

export class UnsupportedRule extends Error {}

export interface CompiledRule {
  readonly name: string;
  readonly severity: 'error' | 'warning';
  readonly source: string;
  readonly description: string;
  /** The column a failure is reported on: the one the rule asks for, or the first it names. */
  readonly column: string | null;
  readonly sql: string;
}

export interface SkippedRule {
  readonly name: string;
  readonly severity: 'error' | 'warning';
  readonly source: string;
  readonly reason: string;
}

const numeric = new Set(uploadColumns.filter((f) => f.type === 'number' || f.type === 'integer').map((f) => f.name));
const known = new Set(uploadColumns.map((f) => f.name));

// JavaScript's \s (ECMAScript WhiteSpace and LineTerminator), which RE2's \s (ASCII only) is not.
const JS_SPACE = '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
/**
 * RE2 has no lookaround. Upstream's patterns that use it, as RE2 patterns matching the same strings (JavaScript's
 * `.` stops at line terminators): the whitespace check `trim` is "starts and ends with a non-space, one line".
 */
const re2Equivalents: Readonly<Record<string, string>> = {
  '^(?!\\s).+(?<!\\s)$': `^[^${JS_SPACE}](?:[^\\n\\r\\x{2028}\\x{2029}]*[^${JS_SPACE}])?$`,
};

const isSchema = (s: unknown): s is Schema => typeof s === 'object' && s !== null && !Array.isArray(s);
const and = (parts: readonly string[]) => (parts.length === 0 ? 'TRUE' : parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`);
const or = (parts: readonly string[]) => (parts.length === 0 ? 'FALSE' : `(${parts.join(' OR ')})`);
const num = (v: string) => `TRY_CAST(${v} AS DOUBLE)`;
const number = (n: unknown) => {
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new UnsupportedRule(`a bound that is not a number: ${JSON.stringify(n)}`);
  return String(n);
};

/** Annotations: keywords that carry no constraint. */
const inert = new Set(['title', 'description', '$comment', '$defs', 'errorMessage', 'examples']);

class Compiler {
  constructor(private readonly defs: Schema) {}

  private resolve(ref: unknown): JsonSchema {
    const name = typeof ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(ref)?.[1] : undefined;
    if (name === undefined || !(name in this.defs)) {
      const why = String(ref).startsWith('https://epa.gov/wqx/') ? "upstream's WQX definitions are not in the repository" : 'not a definition of the rule itself';
      throw new UnsupportedRule(`reference ${String(ref)} (${why})`);
    }
    return this.defs[name] as JsonSchema;
  }

  private combinators(s: Schema, apply: (sub: JsonSchema) => string): string[] {
    const parts: string[] = [];
    const list = (k: string) => {
      const v = s[k];
      if (!Array.isArray(v)) throw new UnsupportedRule(`${k} without a list`);
      return v.map((sub) => apply(sub as JsonSchema));
    };
    if ('allOf' in s) parts.push(and(list('allOf')));
    if ('anyOf' in s) parts.push(or(list('anyOf')));
    if ('oneOf' in s) parts.push(`(${list('oneOf').map((p) => `(${p})::INTEGER`).join(' + ')} = 1)`);
    if ('not' in s) parts.push(`NOT ${apply(s.not as JsonSchema)}`);
    if ('$ref' in s) parts.push(apply(this.resolve(s.$ref)));
    if ('if' in s) {
      const test = apply(s.if as JsonSchema);
      if ('then' in s) parts.push(`(NOT ${test} OR ${apply(s.then as JsonSchema)})`);
      if ('else' in s) parts.push(`(${test} OR ${apply(s.else as JsonSchema)})`);
    }
    return parts;
  }

  private static readonly combinatorKeys = new Set(['allOf', 'anyOf', 'oneOf', 'not', '$ref', 'if', 'then', 'else']);

  /** The schema applied to the whole row. */
  row(schema: JsonSchema): string {
    if (typeof schema === 'boolean') return schema ? 'TRUE' : 'FALSE';
    const parts = this.combinators(schema, (sub) => this.row(sub));
    for (const [key, v] of Object.entries(schema)) {
      if (inert.has(key) || Compiler.combinatorKeys.has(key)) continue;
      if (key === 'type' && v === 'object') continue;
      if (key === 'unevaluatedProperties' && v === true) continue;
      if (key === 'required') parts.push(and((v as string[]).map((c) => `${this.column(c)} IS NOT NULL`)));
      else if (key === 'properties') {
        for (const [c, sub] of Object.entries(v as Schema)) {
          const check = this.value(sub as JsonSchema, c);
          if (check !== 'TRUE') parts.push(`(${this.column(c)} IS NULL OR ${check})`);
        }
      } else if (key === 'dependencies') {
        for (const [c, needs] of Object.entries(v as Schema)) {
          if (!Array.isArray(needs)) throw new UnsupportedRule('a schema dependency');
          parts.push(`(${this.column(c)} IS NULL OR ${and(needs.map((n) => `${this.column(n as string)} IS NOT NULL`))})`);
        }
      } else throw new UnsupportedRule(`row keyword ${key}: ${JSON.stringify(v)}`);
    }
    return and(parts);
  }

  /** The schema applied to the present value of `column`. */
  value(schema: JsonSchema, column: string): string {
    if (typeof schema === 'boolean') return schema ? 'TRUE' : 'FALSE';
    const v = this.column(column);
    const isNumber = numeric.has(column);
    const parts = this.combinators(schema, (sub) => this.value(sub, column));
    for (const [key, x] of Object.entries(schema)) {
      if (inert.has(key) || Compiler.combinatorKeys.has(key)) continue;
      switch (key) {
        case 'type':
          if (x === 'number') parts.push(isNumber ? `${num(v)} IS NOT NULL` : 'FALSE');
          else if (x === 'integer') parts.push(isNumber ? `coalesce(${num(v)} = floor(${num(v)}), FALSE)` : 'FALSE');
          else if (x === 'string') parts.push(isNumber ? 'FALSE' : 'TRUE');
          else throw new UnsupportedRule(`type ${JSON.stringify(x)} of a value`);
          break;
        case 'enum':
        case 'const': {
          const values = key === 'enum' ? (x as unknown[]) : [x];
          const same = values.filter((e) => (isNumber ? typeof e === 'number' : typeof e === 'string'));
          if (same.length === 0) parts.push('FALSE');
          else if (isNumber) parts.push(`coalesce(${num(v)} IN (${same.map(number).join(', ')}), FALSE)`);
          // A constant list costs DuckDB's planner far less than an IN list of hundreds of names does (docs/performance.md).
          else parts.push(same.length === 1 ? `${v} = ${literal(same[0] as string)}` : `list_contains([${same.map((e) => literal(e as string)).join(', ')}], ${v})`);
          break;
        }
        case 'pattern':
          if (!isNumber) parts.push(`regexp_matches(${v}, ${literal(re2Pattern(String(x)))})`);
          break;
        case 'format':
          if (x !== 'date') throw new UnsupportedRule(`format ${String(x)}`);
          if (!isNumber) parts.push(`(regexp_full_match(${v}, '[0-9]{4}-[0-9]{2}-[0-9]{2}') AND TRY_CAST(${v} AS DATE) IS NOT NULL)`);
          break;
        case 'minimum':
        case 'maximum':
        case 'exclusiveMinimum':
        case 'exclusiveMaximum': {
          const op = { minimum: '>=', maximum: '<=', exclusiveMinimum: '>', exclusiveMaximum: '<' }[key];
          if (isNumber) parts.push(`coalesce(${num(v)} ${op} ${number(x)}, FALSE)`);
          break;
        }
        case 'minLength':
        case 'maxLength':
          if (!isNumber) parts.push(`length(${v}) ${key === 'minLength' ? '>=' : '<='} ${number(x)}`);
          break;
        default:
          throw new UnsupportedRule(`value keyword ${key}: ${JSON.stringify(x)}`);
      }
    }
    return and(parts);
  }

  private column(name: string): string {
    if (!known.has(name)) throw new UnsupportedRule(`column ${name} is not in the upload template`);
    return ident(name);
  }
}

/** An upstream (JavaScript, `u` flag) pattern as RE2 runs it; lookaround only through `re2Equivalents`. */
export function re2Pattern(pattern: string): string {
  const equivalent = re2Equivalents[pattern];
  if (equivalent) return equivalent;
  if (/\(\?<?[=!]/.test(pattern)) throw new UnsupportedRule(`pattern ${pattern} uses lookaround, which RE2 lacks`);
  return pattern;
}

/** The column a failure of the rule is reported on: the first one it requires, else the first it names. */
function columnOf(schema: JsonSchema): string | null {
  if (typeof schema === 'boolean') return null;
  for (const part of [schema.then, schema]) {
    if (!isSchema(part)) continue;
    const found =
      (Array.isArray(part.required) ? (part.required[0] as string | undefined) : undefined) ??
      (isSchema(part.dependencies) ? (Object.values(part.dependencies)[0] as string[] | undefined)?.[0] : undefined) ??
      (isSchema(part.properties) ? Object.keys(part.properties)[0] : undefined) ??
      [part.anyOf, part.oneOf, part.allOf].flatMap((list) => (Array.isArray(list) ? list.map((sub) => columnOf(sub as JsonSchema)) : [])).find((c) => c !== null);
    if (found) return found;
  }
  return null;
}

/**
 * The rules ingest applies: each upload column's own definition where upstream gives one without a value list (type,
 * pattern, length, range; the vocabularies are checked by schemas/observation-row.ts), then upstream's conditional
 * rules. Definitions that point into upstream's WQX package cannot compile (it is not in the repository); for those
 * columns the checks of schemas/observation-row.ts stand alone (docs/upstream-rules.md).
 */
export function applicableRules(): UpstreamRule[] {
  const columnRules = upstreamColumns.flatMap((c) =>
    c.definition === undefined
      ? []
      : [{ name: `column-${c.name}`, severity: 'error' as const, source: 'primary.json#/allOf/0/properties', description: `${c.name} as upstream defines it`, schema: { properties: { [c.name]: c.definition } } }],
  );
  return [...columnRules, ...upstreamRules];
}

/** Compiles each rule, or says why it cannot. */
export function compileRules(rules: readonly UpstreamRule[] = applicableRules()): { compiled: CompiledRule[]; skipped: SkippedRule[] } {
  const compiled: CompiledRule[] = [];
  const skipped: SkippedRule[] = [];
  for (const rule of rules) {
    const { name, severity, source, description } = rule;
    try {
      const defs = isSchema(rule.schema) && isSchema(rule.schema.$defs) ? rule.schema.$defs : {};
      const sql = new Compiler(defs).row(rule.schema);
      compiled.push({ name, severity, source, description, column: columnOf(rule.schema), sql });
    } catch (err) {
      if (!(err instanceof UnsupportedRule)) throw err;
      skipped.push({ name, severity, source, reason: err.message });
    }
  }
  return { compiled, skipped };
}

const { compiled } = compileRules();
/** The compiled rules upstream marks as errors (a failing row is rejected) and as warnings (counted). */
export const errorRules: readonly CompiledRule[] = compiled.filter((r) => r.severity === 'error');
export const warningRules: readonly CompiledRule[] = compiled.filter((r) => r.severity === 'warning');

/**
 * SQL: the rules a row fails as bits of a UHUGEINT (bit i: `rules[i]`), NULL when it fails none. Written for every
 * row of an ingest, so no list is built per row (a list of the failed indexes was slower: docs/performance.md).
 */
export function failedRulesMaskSql(rules: readonly CompiledRule[]): string {
  return failedMaskSql(rules.map((r) => r.sql));
}

/** SQL: the conditions a row fails as bits of a UHUGEINT (bit i: `passes[i]` is not true), NULL when none. */
export function failedMaskSql(passes: readonly string[]): string {
  if (passes.length > MASK_BITS) throw new Error(`${passes.length} checks do not fit one ${MASK_BITS}-bit mask: give the mask a second column`);
  if (passes.length === 0) return 'NULL::UHUGEINT';
  return `nullif(${passes.map((p, i) => `(CASE WHEN ${p} THEN 0 ELSE ${bit(i)} END)`).join(' + ')}, 0::UHUGEINT)`;
}

const MASK_BITS = 128;
/** The i-th bit of the mask, as a UHUGEINT constant. */
export const bit = (i: number) => `${(1n << BigInt(i)).toString()}::UHUGEINT`;

/** SQL: the list of the indexes (in `rules`) of the rules a row fails, NULL when it fails none. */
export function failedRulesSql(rules: readonly CompiledRule[]): string {
  if (rules.length === 0) return 'NULL::INTEGER[]';
  const each = rules.map((r, i) => `CASE WHEN NOT ${r.sql} THEN ${i} END`);
  return `nullif(list_filter([${each.join(', ')}], x -> x IS NOT NULL), [])`;
}
