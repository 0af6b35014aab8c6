/**
 * The filter compiler: a planned condition → a SQL boolean over a list of sources, every value a bound parameter.
 * Page, cursor, count, `$apply` and region-range queries all compile their filters here.
 */
import { locationIdColumns, storageKeys, type DimensionDef } from '../../../schemas/index.js';
import type { BoundValue, Cond } from './plan.js';
import { ident, type Params } from './sql.js';
import { columnOf, locationIdIn, REGION_ROLLUP, sourceColumn, type Source } from './source.js';
import { assertNever } from '../assert-never.js';

const OPERATORS = { eq: '=', ne: '<>', lt: '<', gt: '>', le: '<=', ge: '>=' } as const;
const TEXT_FUNCTIONS = { startswith: 'starts_with', endswith: 'suffix', contains: 'contains' } as const;
const REGION_ID = ident(storageKeys.regionId);
/** From this many whole numbers on, an `IN` list is bound as one parameter (see `list`). */
export const ID_SET_MIN = 16;

/**
 * Compiles conditions against sources; records which aliases they touched, so that the caller joins only those.
 *
 * @example
 * const params = new Params();
 * const fc = new FilterCompiler(STATS_SOURCES, params);
 * fc.compile(where); // `(s."CharacteristicName" = CAST($1 AS VARCHAR))`; fc.used: {'s'}; params.values: ['pH']
 */
export class FilterCompiler {
  readonly used = new Set<string>();

  /** The region rollup, when it is a source: its RegionId is a column (countSources chose it for one `eq`). */
  private readonly regional: Source | undefined;

  /** How many `not` enclose the condition being compiled (see `nullSafe`). */
  private negations = 0;

  constructor(
    private readonly sources: readonly Source[],
    private readonly params: Params,
  ) {
    this.regional = sources.find((s) => s.table === REGION_ROLLUP.table);
  }

  compile(cond: Cond): string {
    switch (cond.kind) {
      case 'and':
      case 'or':
        return `(${this.compile(cond.left)} ${cond.kind.toUpperCase()} ${this.compile(cond.right)})`;
      case 'not': {
        // Under NOT a leaf is never NULL (see `nullSafe`), so NOT keeps OData's two-valued logic.
        this.negations++;
        const operand = this.compile(cond.operand);
        this.negations--;
        return `(NOT ${operand})`;
      }
      case 'compare':
        if (cond.dim.membership && cond.op === 'eq' && this.regional) return `(${sourceColumn(this.regional, storageKeys.regionId)} = ${this.params.bind(cond.value)})`;
        if (cond.dim.membership) return this.membership(cond.dim, cond.op === 'ne', `= ${this.params.bind(cond.value)}`);
        if (cond.op === 'ne') return `(${this.col(cond.dim)} IS DISTINCT FROM ${this.params.bind(cond.value)})`;
        return this.nullSafe(cond.dim, `${this.col(cond.dim)} ${OPERATORS[cond.op]} ${this.params.bind(cond.value)}`);
      case 'null':
        return `(${this.col(cond.dim)} IS ${cond.negated ? 'NOT ' : ''}NULL)`;
      case 'location':
        throw new Error('a location test is resolved to LocationId in (…) before compiling (exec/resolve-locations.ts)');
      case 'in': {
        // No location passed a shape: nothing matches (and NOT of it, everything).
        if (cond.values.length === 0) return '(false)';
        const list = this.list(cond.values);
        if (cond.dim.membership) return this.membership(cond.dim, false, `IN (${list})`);
        return this.nullSafe(cond.dim, `${this.col(cond.dim)} IN (${list})`);
      }
      case 'text': {
        const arg = this.params.bind({ sqlType: 'VARCHAR', value: cond.value });
        if (cond.dim.membership) return this.membership(cond.dim, false, `IS NOT NULL AND ${TEXT_FUNCTIONS[cond.fn]}(${REGION_ID}, ${arg})`);
        return this.nullSafe(cond.dim, `${TEXT_FUNCTIONS[cond.fn]}(${this.col(cond.dim)}, ${arg})`);
      }
      default:
        return assertNever(cond);
    }
  }

  /**
   * An `IN` list's placeholders. A long list of whole numbers (a shape's location Ids, issue 47 item 2) is one
   * parameter, the numbers joined by commas and split back in SQL: a parameter per Id made a whole-map shape cost
   * tens of thousands of bindings and gigabytes of planning.
   */
  private list(values: readonly BoundValue[]): string {
    if (values.length < ID_SET_MIN || !values.every((v) => v.sqlType === 'BIGINT')) return values.map((v) => this.params.bind(v)).join(', ');
    const joined = this.params.bind({ sqlType: 'VARCHAR', value: values.map((v) => String(v.value)).join(',') });
    return `SELECT UNNEST(CAST(string_split(${joined}, ',') AS BIGINT[]))`;
  }

  /** `RegionId op x` is true when the location is (or, negated, is not) in a matching region. */
  private membership(dim: DimensionDef, negated: boolean, predicate: string): string {
    const src = this.sources.find((s) => locationIdIn(s));
    if (!src || !dim.membership) throw new Error(`no location to test ${dim.name} on`);
    this.used.add(src.alias);
    const members = `SELECT ${ident(locationIdColumns[dim.membership])} FROM ${ident(dim.membership)} WHERE ${REGION_ID} ${predicate}`;
    return `(${locationIdIn(src)} ${negated ? 'NOT IN' : 'IN'} (${members}))`;
  }

  private col(dim: DimensionDef): string {
    for (const s of this.sources) {
      const name = columnOf(dim, s);
      if (name) {
        this.used.add(s.alias);
        return sourceColumn(s, name);
      }
    }
    throw new Error(`dimension ${dim.name} is not reachable from ${this.sources.map((s) => s.table).join(', ')}`);
  }

  /**
   * On nullable columns a comparison with NULL is false, not unknown, so that `not` stays OData's `not`. Outside any
   * `not` the plain comparison selects the same rows (AND/OR treat unknown as false would be, and WHERE drops it),
   * and DuckDB pushes it into the scan, as it does not the COALESCE: a ResultValue count runs markedly faster.
   */
  private nullSafe(dim: DimensionDef, predicate: string): string {
    return dim.nullable && this.negations > 0 ? `COALESCE(${predicate}, false)` : `(${predicate})`;
  }
}
