/**
 * Planning: the parsed query plus the catalogue → a typed plan. This is the only stage that knows field names,
 * types and what each resource may select or filter; every literal leaves it coerced to its field's type.
 */
import {
  filterNames,
  getDimension,
  resources,
  type DimensionDef,
  type FieldDef,
  type FieldType,
  type ResourceDef,
} from '../../../schemas/index.js';
import type { AggregateMethod, CompareOp, DistanceExpr, Expr, Format, FunctionName, Literal, Property, Query, SpatialExpr } from '../odata/ast.js';
import type { Measure } from './measures.js';
import { planApply } from './plan-apply.js';
import { PlanError } from './plan-error.js';
import { assertNever } from '../assert-never.js';

export const DEFAULT_TOP = 1000;

/** The dimension a location test becomes: the Ids of the locations that pass. */
const LOCATION_KEY = 'LocationId';

/** A value ready to bind: `sqlType` is the cast the compiler applies to its parameter. */
export interface BoundValue {
  readonly sqlType: 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN' | 'DATE' | 'TIMESTAMP' | 'UUID';
  readonly value: string | number | bigint;
}

/** A filter with every field resolved to a dimension and every literal typed. */
export type Cond =
  | { readonly kind: 'compare'; readonly dim: DimensionDef; readonly op: CompareOp; readonly value: BoundValue }
  | { readonly kind: 'null'; readonly dim: DimensionDef; readonly negated: boolean }
  | { readonly kind: 'in'; readonly dim: DimensionDef; readonly values: readonly BoundValue[] }
  | { readonly kind: 'text'; readonly dim: DimensionDef; readonly fn: FunctionName; readonly value: string }
  /**
   * A test of the location's point (a shape or a distance): execution turns it into `LocationId in (…)` of the
   * locations that pass (exec/resolve-locations.ts), so the compilers never see it.
   */
  | { readonly kind: 'location'; readonly dim: DimensionDef; readonly test: LocationTest }
  | { readonly kind: 'and' | 'or'; readonly left: Cond; readonly right: Cond }
  | { readonly kind: 'not'; readonly operand: Cond };

/** What a location's point must satisfy: the parsed spatial and distance nodes without their offsets. */
export type LocationTest = Omit<SpatialExpr, 'offset'> | Omit<DistanceExpr, 'offset'>;

/** A row's key: bigint on integer keys (Observations, Records, Locations), UUID text on Metadata. */
export type Key = bigint | string;

export interface PagePlan {
  readonly kind: 'page';
  readonly resource: ResourceDef;
  readonly fields: readonly FieldDef[];
  /** True when `$select` was given (the context URL and links then name the fields). */
  readonly selected: boolean;
  readonly where: Cond | undefined;
  readonly top: number;
  /** Rows strictly after this key. */
  readonly after: Key | undefined;
  readonly format: Format;
  /**
   * `$top=0&$count=true`: the page is empty and carries the exact count (`@odata.count`), as generic OData clients
   * ask for a count alone. `$count=true` with any other `$top` is DataStream's count response, a CountPlan.
   */
  readonly withCount: boolean;
}

export interface CountPlan {
  readonly kind: 'count';
  readonly resource: ResourceDef;
  readonly where: Cond | undefined;
}

/** One column of an `$apply` group: the row count, a method over a measure, or the distinct values of a dimension. */
export type PlannedAggregate =
  | { readonly kind: 'count'; readonly alias: string }
  | { readonly kind: 'method'; readonly alias: string; readonly method: AggregateMethod; readonly measure: Measure }
  /** `LocationId with countdistinct as Sites`: an identifier or dimension, counted as the groups count (no unit). */
  | { readonly kind: 'distinct'; readonly alias: string; readonly dim: DimensionDef };

/** One key of `orderby(…)`: the groups' `index`th grouped field or aggregate. */
export interface ApplyOrder {
  readonly column: 'group' | 'aggregate';
  readonly index: number;
  readonly descending: boolean;
}

/**
 * `$apply=[filter(…)/]groupby((F1,…)[,aggregate(…)])[/orderby(…)][/top(n)]` or `[filter(…)/]aggregate(…)`: from the
 * statistics tables when they hold every dimension and aggregate, else a scan of the rows (query/compile-apply.ts).
 */
export interface ApplyPlan {
  readonly kind: 'apply';
  readonly resource: ResourceDef;
  readonly where: Cond | undefined;
  readonly groupBy: readonly DimensionDef[];
  /** In the order asked; none for the distinct groups. */
  readonly aggregates: readonly PlannedAggregate[];
  /** The groups' order before the grouped fields (which always follow, so the order is total and pages are stable). */
  readonly orderBy: readonly ApplyOrder[];
  /** `top(n)`: groups in all, across pages; undefined for every group. */
  readonly limit: number | undefined;
  /** Groups per page (`$top`). */
  readonly top: number;
  /** Groups are numbered in their sort order; the cursor is the number of groups already sent. */
  readonly after: bigint | undefined;
}

export type Plan = PagePlan | CountPlan | ApplyPlan;

/**
 * Resolves a parsed query against a resource.
 *
 * @example
 * planQuery(parseQuery("$filter=CharacteristicName eq 'pH'&$top=10"), getResource('Observations')!)
 * // → { kind: 'page', top: 10, where: { kind: 'compare', dim: CharacteristicName, op: 'eq', … }, … }
 */
export function planQuery(query: Query, resource: ResourceDef): Plan {
  const where = query.filter ? planFilter(query.filter, resource) : undefined;
  if (query.count && (query.top !== 0 || query.apply)) return { kind: 'count', resource, where };
  if (query.apply) {
    const applyWhere = query.apply.filter ? planFilter(query.apply.filter, resource) : undefined;
    const both: Cond | undefined = where && applyWhere ? { kind: 'and', left: where, right: applyWhere } : (where ?? applyWhere);
    return planApply(query, resource, both, query.top ?? DEFAULT_TOP);
  }
  return {
    kind: 'page',
    resource,
    fields: planSelect(query.select, resource),
    selected: query.select !== undefined,
    where,
    top: query.top ?? DEFAULT_TOP,
    after: planSkipToken(query, resource),
    format: query.format ?? 'json',
    withCount: query.count,
  };
}

function planSelect(select: readonly Property[] | undefined, resource: ResourceDef): FieldDef[] {
  const selectable = resource.fields.filter((f) => f.selectable);
  if (!select) return selectable.filter((f) => !f.onRequest);
  const wanted = new Set<string>();
  for (const p of select) {
    const field = resource.fields.find((f) => f.name === p.name);
    if (!field || !field.selectable) {
      const hint = suggest(p.name, selectable.map((f) => f.name));
      throw new PlanError(
        field ? 'not_selectable' : 'unknown_field',
        `'${p.name}' is not a field of ${resource.name} you can select${hint}. Valid fields: ${selectable.map((f) => f.name).join(', ')}.`,
        { parameter: '$select', offset: p.offset },
      );
    }
    wanted.add(field.name);
  }
  // Catalogue order, whatever order the client asked in: the clients build CSV headers from the first row.
  return selectable.filter((f) => wanted.has(f.name));
}

function planSkipToken(query: Query, resource: ResourceDef): Key | undefined {
  const token = query.skiptoken;
  if (!token) return undefined;
  const keyType = resource.fields.find((f) => f.name === resource.key)?.type;
  if (keyType === 'uuid' && token.kind === 'uuid') return token.value.toLowerCase();
  if (keyType === 'integer' && token.kind === 'integer') return token.value;
  const example = keyType === 'uuid' ? 'Id:6f1c…(a UUID)' : 'Id:1234';
  throw new PlanError('invalid_skiptoken', `$skiptoken on ${resource.name} must look like ${example}; follow @odata.nextLink rather than building it.`, { parameter: '$skiptoken' });
}

function planFilter(expr: Expr, resource: ResourceDef): Cond {
  switch (expr.kind) {
    case 'and':
    case 'or':
      return { kind: expr.kind, left: planFilter(expr.left, resource), right: planFilter(expr.right, resource) };
    case 'not':
      return { kind: 'not', operand: planFilter(expr.operand, resource) };
    case 'compare': {
      const dim = resolveDimension(expr.property, resource);
      if (expr.value.kind === 'null') {
        if (expr.op !== 'eq' && expr.op !== 'ne') throw badValue(expr.property, dim, `null only compares with eq or ne`);
        if (dim.membership) throw badValue(expr.property, dim, `every location's regions are known; compare RegionId with a region, e.g. RegionId eq 'admin.4.ca.ab'`);
        return { kind: 'null', dim, negated: expr.op === 'ne' };
      }
      if (dim.membership && expr.op !== 'eq' && expr.op !== 'ne') {
        throw badValue(expr.property, dim, `RegionId is a membership test: use eq, ne or in`);
      }
      if (dim.type === 'boolean' && expr.op !== 'eq' && expr.op !== 'ne') throw badValue(expr.property, dim, `${dim.name} is true or false: use eq or ne, e.g. ${dim.name} eq true`);
      return { kind: 'compare', dim, op: expr.op, value: coerce(expr.value, dim, expr.property) };
    }
    case 'in': {
      const dim = resolveDimension(expr.property, resource);
      return { kind: 'in', dim, values: expr.values.map((v) => coerce(v, dim, expr.property)) };
    }
    case 'function': {
      const dim = resolveDimension(expr.property, resource);
      if (dim.type !== 'string') throw badValue(expr.property, dim, `${expr.name}() works on text fields only`);
      return { kind: 'text', dim, fn: expr.name, value: expr.value.value };
    }
    case 'spatial':
    case 'distance': {
      // Every resource reaches its rows' locations through LocationId; the test is answered over the locations.
      const dim = resolveDimension({ kind: 'property', name: LOCATION_KEY, offset: expr.offset }, resource);
      const { offset: _offset, ...test } = expr;
      return { kind: 'location', dim, test };
    }
    default:
      return assertNever(expr);
  }
}

function resolveDimension(p: Property, resource: ResourceDef): DimensionDef {
  const dim = getDimension(p.name, resource);
  if (!dim || !resource.filterable.includes(dim.name)) {
    const valid = filterNames(resource);
    const list = `Filterable fields of ${resource.name}: ${valid.join(', ')}.`;
    if (!resource.fields.some((f) => f.name === p.name) && !dim) {
      throw new PlanError('unknown_field', `'${p.name}' is not a field of ${resource.name}${suggest(p.name, valid)}. ${list}`, { parameter: '$filter', offset: p.offset });
    }
    throw new PlanError('not_filterable', `'${p.name}' cannot be used in $filter on ${resource.name}: ${elsewhere(dim?.name ?? p.name, resource)} ${list}`, {
      parameter: '$filter',
      offset: p.offset,
    });
  }
  return dim;
}

/** How to get at a field this resource cannot filter by: the resources that can, or selecting it. */
function elsewhere(name: string, resource: ResourceDef): string {
  // The tables of their own (summaries, comparisons) are rows of another kind: not a way to narrow these.
  const others = resources.filter((r) => r.kind !== 'own-table' && r.filterable.includes(name)).map((r) => r.name);
  const key = others.includes('Locations') ? 'LocationId eq <Id>' : `DOI eq '<DOI>'`;
  if (others.length > 0) return `filter ${others.join(' or ')} by it, then narrow ${resource.name} by what that returns (${key}).`;
  return `no resource of such rows filters by it; $select it and keep the rows you want.`;
}

const INTEGER = /^[+-]?\d{1,18}$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:\d{2})?$/;

/** Coerces a literal to the dimension's type; quoted numbers and dates count as the user means them. */
function coerce(lit: Literal, dim: DimensionDef, p: Property): BoundValue {
  const text = literalText(lit);
  const type: FieldType = dim.type;
  switch (type) {
    case 'string':
    case 'uuid':
      if (lit.kind !== 'string') throw badValue(p, dim, `quote text values, e.g. ${dim.name} eq '${text}'`);
      return { sqlType: 'VARCHAR', value: lit.value };
    case 'integer':
      if ((lit.kind === 'number' || lit.kind === 'string') && INTEGER.test(text)) return { sqlType: 'BIGINT', value: BigInt(text) };
      throw badValue(p, dim, `${dim.name} wants a whole number, e.g. ${dim.name} eq 2020; got ${JSON.stringify(text)}`);
    case 'number':
      if ((lit.kind === 'number' || lit.kind === 'string') && NUMBER.test(text.trim()) && Number.isFinite(Number(text))) {
        return { sqlType: 'DOUBLE', value: Number(text) };
      }
      throw badValue(p, dim, `${dim.name} wants a number, e.g. ${dim.name} gt 49.5; got ${JSON.stringify(text)}`);
    case 'timestamp': {
      const ts = lit.kind === 'string' || lit.kind === 'date' || lit.kind === 'datetime' ? toUtcTimestamp(text) : undefined;
      if (ts) return { sqlType: 'TIMESTAMP', value: ts };
      throw badValue(p, dim, `${dim.name} wants a date or date-time, e.g. ${dim.name} gt 2020-03-23 or '2020-03-23T10:00:00Z'; got ${JSON.stringify(text)}`);
    }
    case 'boolean':
      // Bound as its text: a parameter is a string or a number, and the cast makes it a BOOLEAN.
      if (lit.kind === 'boolean') return { sqlType: 'BOOLEAN', value: String(lit.value) };
      throw badValue(p, dim, `${dim.name} is true or false, unquoted, e.g. ${dim.name} eq true; got ${JSON.stringify(text)}`);
    case 'date': {
      // A date-time would have to be cut to its day in some time zone: ask for the day instead.
      const day = lit.kind === 'date' || lit.kind === 'string' ? calendarDate(text) : undefined;
      if (day) return { sqlType: 'DATE', value: day };
      throw badValue(p, dim, `${dim.name} wants a date, e.g. ${dim.name} ge 2020-06-01 or '2020-06-01'; got ${JSON.stringify(text)}`);
    }
    case 'time':
    case 'string[]':
    case 'date[]':
    case 'integer[]':
      throw badValue(p, dim, `${dim.name} cannot be compared`);
    default:
      return assertNever(type);
  }
}

function literalText(lit: Literal): string {
  switch (lit.kind) {
    case 'string':
    case 'date':
    case 'datetime':
      return lit.value;
    case 'number':
      return lit.text;
    case 'boolean':
      return String(lit.value);
    case 'null':
      return 'null';
    default:
      return assertNever(lit);
  }
}

/** `YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±hh:mm]` → `YYYY-MM-DD HH:MM:SS.mmm` in UTC, or undefined if not a real instant. */
export function toUtcTimestamp(text: string): string | undefined {
  const date = DATE.exec(text);
  const dt = date ? undefined : DATETIME.exec(text);
  if (!date && !dt) return undefined;
  const iso = date ? `${text}T00:00:00Z` : `${dt![1]}T${dt![2]!.length === 5 ? `${dt![2]}:00` : dt![2]}${dt![3] ?? 'Z'}`;
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return undefined;
  const out = new Date(ms).toISOString(); // 2020-03-23T10:00:00.000Z
  // Date.parse rolls 2021-02-30 over to March: refuse dates that are not on the calendar.
  const day = (date ? text : dt![1])!;
  if (!dt?.[3] && out.slice(0, 10) !== day) return undefined;
  return `${out.slice(0, 10)} ${out.slice(11, 23)}`;
}

/** `YYYY-MM-DD` when it is a day on the calendar (not 2021-02-30). */
function calendarDate(text: string): string | undefined {
  if (!DATE.test(text)) return undefined;
  const ts = toUtcTimestamp(text);
  return ts?.slice(0, 10) === text ? text : undefined;
}

function badValue(p: Property, dim: DimensionDef, why: string): PlanError {
  return new PlanError('invalid_value', `Invalid value for ${dim.name} in $filter: ${why}.`, { parameter: '$filter', offset: p.offset });
}

/** " (did you mean 'X'?)" for a near miss, case-insensitive first, then one edit away. */
function suggest(name: string, candidates: readonly string[]): string {
  const lower = name.toLowerCase();
  const hit = candidates.find((c) => c.toLowerCase() === lower) ?? candidates.find((c) => editDistance(c.toLowerCase(), lower) <= 2);
  return hit ? ` (did you mean '${hit}'?)` : '';
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
