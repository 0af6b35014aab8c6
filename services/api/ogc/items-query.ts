/**
 * An items request's query parameters → the OData stage's `Query` → the plan: the one place OGC API – Features'
 * parameters become the shared filter AST, so every filter plans and compiles exactly as the same `$filter` does.
 *
 * Filters are parts, one per parameter (bbox, datetime, each field parameter), AND-ed together; each part is
 * planned alone first, so a value that does not fit its field is answered naming that parameter.
 */
import { filterNames, type ResourceDef } from '../../../schemas/index.js';
import { envelopeExpr, type Envelope } from '../cql2/envelope-expr.js';
import { parseCql2Text } from '../cql2/parse-cql2.js';
import { parseCql2Json } from '../cql2/parse-cql2-json.js';
import { ApiError } from '../errors.js';
import { NEXT_LINK_PARAM, PIN_PARAM } from '../http/paths.js';
import { decodeQueryString, ODataError, TOP_RANGE, type QueryParam } from '../odata/index.js';
import type { Expr, Literal, Property, Query } from '../odata/ast.js';
import { PlanError } from '../query/plan-error.js';
import { planQuery, toUtcTimestamp, type PagePlan } from '../query/plan.js';
import type { FeatureCollectionDef } from './feature-collections.js';

/** `limit`: left out, a page has `default` features; above `max` it is read as `max` (17-069r4 §7.15.3). */
export const ITEMS_LIMIT = { default: 1000, max: TOP_RANGE.max } as const;

/** WGS 84 longitude/latitude, the only CRS served (`bbox-crs` may name it). */
export const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

/** The query parameters of items other than the field parameters (one per queryable). */
export const ITEMS_PARAMETERS = ['limit', 'bbox', 'bbox-crs', 'datetime', 'filter-lang', 'filter-crs', 'properties', NEXT_LINK_PARAM.items, PIN_PARAM, 'f'] as const;

/** Part 3's `filter-lang`: the default language `filter` is read in. */
export const FILTER_LANG = 'cql2-text';
/** The other language: CQL2-JSON, in `filter` or as the body of a POSTed items query. */
export const FILTER_LANG_JSON = 'cql2-json';

/** The temporal property `datetime` filters on. */
export const DATETIME_FIELD = 'ActivityStartDate';

export interface ItemsPlan {
  readonly plan: PagePlan;
  /** The OData query the plan was made from (its filter also serves the `alternate` link). */
  readonly query: Query;
}

/**
 * A parameter whose value stands for a filter expression (undefined: no condition), given the request's other
 * single-valued parameters (a `filter` reads its `filter-lang`).
 */
type FilterParameter = (value: string, others: ReadonlyMap<string, string>) => Expr | undefined;

/**
 * Parameters that are filters, AND-ed into one filter by `itemsPlan` below. Part 3's `filter` is CQL2-Text parsed by
 * cql2/ into the same `Expr` as `$filter`. A Map, as every table a request's names are looked up in: an object
 * would answer `constructor` or `toString` with what it inherits.
 */
const FILTER_PARAMETERS: ReadonlyMap<string, FilterParameter> = new Map<string, FilterParameter>([
  ['bbox', (value) => envelopeExpr(parseBbox(value), 0)],
  ['datetime', datetimeExpr],
  ['filter', cql2Expr],
]);

function cql2Expr(value: string, others: ReadonlyMap<string, string>): Expr {
  const lang = others.get('filter-lang') ?? FILTER_LANG;
  if (lang !== FILTER_LANG && lang !== FILTER_LANG_JSON) throw invalid('filter-lang', `filter-lang is ${FILTER_LANG} (CQL2-Text, the default) or ${FILTER_LANG_JSON}; got '${lang}'.`);
  checkCrs('filter-crs', others.get('filter-crs'));
  try {
    return lang === FILTER_LANG_JSON ? parseCql2Json(value) : parseCql2Text(value);
  } catch (err) {
    if (err instanceof ODataError) throw ApiError.from(err);
    throw err;
  }
}

/**
 * @example
 * itemsPlan('limit=10&bbox=-80,43,-79,44&CharacteristicName=pH', featureCollection('observations')!)
 * // → plan: { kind: 'page', top: 10, format: 'geojson', where: (Latitude … and Longitude …) and CharacteristicName eq 'pH', … }
 */
export function itemsPlan(raw: string, collection: FeatureCollectionDef): ItemsPlan {
  const resource = collection.resource;
  const { single, fields } = readParameters(raw, collection);
  const parts: { readonly parameter: string; readonly expr: Expr }[] = [];
  for (const [name, value] of single) {
    const expr = FILTER_PARAMETERS.get(name)?.(value, single);
    if (expr) parts.push({ parameter: name, expr: name === 'datetime' ? onDate(expr, collection) : onPoint(expr, collection) });
  }
  for (const [name, values] of fields) parts.push({ parameter: name, expr: fieldExpr(name, values) });
  checkCrs('bbox-crs', single.get('bbox-crs'));
  checkF(single.get('f'));
  for (const part of parts) planPart(part.parameter, { filter: part.expr, count: false, otherParams: [] }, resource);

  const filter = parts.map((p) => p.expr).reduce<Expr | undefined>((all, e) => (all ? { kind: 'and', left: all, right: e } : e), undefined);
  const select = single.has('properties') ? parseProperties(single.get('properties')!) : undefined;
  const cursor = single.get(NEXT_LINK_PARAM.items);
  const query: Query = {
    count: false,
    otherParams: [],
    format: 'geojson',
    top: parseLimit(single.get('limit')),
    ...(filter ? { filter } : {}),
    ...(select ? { select } : {}),
    ...(cursor !== undefined ? { skiptoken: { kind: 'integer', value: parseCursor(cursor) } } : {}),
  };
  const plan = planPart('properties', query, resource);
  if (plan.kind !== 'page') throw new Error(`an items query planned as ${plan.kind}`);
  return { plan, query };
}

/** `datetime`'s comparisons, made on ActivityStartDate, on the collection's own date when it has another. */
function onDate(expr: Expr, collection: FeatureCollectionDef): Expr {
  const date = collection.datetime;
  if (!date) return expr;
  const visit = (e: Expr): Expr => {
    if (e.kind === 'and' || e.kind === 'or') return { ...e, left: visit(e.left), right: visit(e.right) };
    return e.kind === 'compare' && e.property.name === DATETIME_FIELD ? { ...e, property: { ...e.property, name: date } } : e;
  };
  return visit(expr);
}

/**
 * An envelope's Latitude and Longitude (bbox, and CQL2's spatial operators) as the collection's point: on
 * observations the location's coordinates each observation carries, planned like any field of theirs.
 */
function onPoint(expr: Expr, collection: FeatureCollectionDef): Expr {
  const names = new Map([
    ['Latitude', collection.point.latitude],
    ['Longitude', collection.point.longitude],
  ]);
  const visit = (e: Expr): Expr => {
    switch (e.kind) {
      case 'and':
      case 'or':
        return { ...e, left: visit(e.left), right: visit(e.right) };
      case 'not':
        return { ...e, operand: visit(e.operand) };
      case 'spatial':
      case 'distance':
        return e;
      default: {
        const name = names.get(e.property.name);
        return name && name !== e.property.name ? { ...e, property: { ...e.property, name } } : e;
      }
    }
  };
  return visit(expr);
}

/** The parameters by name: field parameters with every value given, the others once each. */
function readParameters(raw: string, collection: FeatureCollectionDef) {
  const fields = new Map<string, string[]>();
  const single = new Map<string, string>();
  const queryables = new Set(filterNames(collection.resource));
  for (const { name, value } of decode(raw)) {
    if (queryables.has(name)) {
      fields.get(name)?.push(value) ?? fields.set(name, [value]);
      continue;
    }
    if (!(ITEMS_PARAMETERS as readonly string[]).includes(name) && !FILTER_PARAMETERS.has(name)) throw unknownParameter(name, collection);
    if (single.has(name)) throw invalid(name, `${name} appears more than once; give it once.`);
    single.set(name, value);
  }
  return { single, fields };
}

function decode(raw: string): QueryParam[] {
  try {
    return decodeQueryString(raw);
  } catch (err) {
    if (err instanceof ODataError) throw ApiError.from(err);
    throw err;
  }
}

/** The planner's error, naming the OGC parameter it came from instead of `$filter` or `$select`. */
function planPart(parameter: string, query: Query, resource: ResourceDef) {
  try {
    return planQuery(query, resource);
  } catch (err) {
    if (!(err instanceof PlanError)) throw err;
    const name = err.parameter === '$select' ? 'properties' : err.parameter === NEXT_LINK_PARAM.odata ? NEXT_LINK_PARAM.items : parameter;
    const message = err.message.replaceAll('$filter', name).replaceAll('$select', 'properties').replace(/\$skiptoken[^.]*/, 'cursor must be the one a next link carries');
    throw new ApiError(err.code, message, { parameter: name, ...(name === 'filter' && err.offset !== undefined ? { offset: err.offset } : {}) });
  }
}

function invalid(parameter: string, message: string): ApiError {
  return new ApiError('invalid_parameter', message, { parameter });
}

function unknownParameter(name: string, collection: FeatureCollectionDef): ApiError {
  const fields = filterNames(collection.resource).join(', ');
  return invalid(
    name,
    `Unknown query parameter '${name}' on /collections/${collection.id}/items. Parameters: ${[...new Set([...ITEMS_PARAMETERS, ...FILTER_PARAMETERS.keys()])].join(', ')}, and one per queryable field: ${fields}.`,
  );
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return ITEMS_LIMIT.default;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw invalid('limit', `limit must be a whole number from 1 (default ${ITEMS_LIMIT.default}, at most ${ITEMS_LIMIT.max}); got '${value}'.`);
  return Math.min(Number(value), ITEMS_LIMIT.max);
}

function parseCursor(value: string): bigint {
  if (!/^\d{1,18}$/.test(value)) throw invalid('cursor', `cursor must be the value a next link carries; follow the link rather than building it.`);
  return BigInt(value);
}

function parseProperties(value: string): Property[] {
  const names = value.split(',').map((s) => s.trim());
  if (names.some((n) => n === '')) throw invalid('properties', `properties is a comma-separated list of field names, e.g. properties=CharacteristicName,ResultValue; got '${value}'.`);
  let offset = 0;
  return names.map((name) => {
    const p: Property = { kind: 'property', name, offset };
    offset += name.length + 1;
    return p;
  });
}

/** `minLon,minLat,maxLon,maxLat` (or the 6-number 3D form, heights ignored); west > east crosses the antimeridian. */
export function parseBbox(value: string): Envelope {
  const n = value.split(',').map((s) => (/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(s) ? Number(s) : NaN));
  const example = 'bbox=-80.5,43.2,-79.1,44.0 (west,south,east,north in WGS 84 degrees)';
  if ((n.length !== 4 && n.length !== 6) || n.some((x) => !Number.isFinite(x))) throw invalid('bbox', `bbox wants 4 numbers, e.g. ${example}; got '${value}'.`);
  const [west, south, east, north] = n.length === 4 ? n : [n[0]!, n[1]!, n[3]!, n[4]!];
  if ([west, east].some((x) => x! < -180 || x! > 180) || [south, north].some((y) => y! < -90 || y! > 90)) {
    throw invalid('bbox', `bbox longitudes lie in [-180, 180] and latitudes in [-90, 90], e.g. ${example}; got '${value}'.`);
  }
  if (south! > north!) throw invalid('bbox', `bbox's south (${south}) is above its north (${north}): the order is west,south,east,north.`);
  return { west: west!, south: south!, east: east!, north: north! };
}

function checkCrs(parameter: 'bbox-crs' | 'filter-crs', value: string | undefined): void {
  if (value !== undefined && value !== CRS84) throw invalid(parameter, `${parameter} can only be ${CRS84} (WGS 84 longitude, latitude); got '${value}'.`);
}

function checkF(value: string | undefined): void {
  if (value !== undefined && value !== 'json' && value !== 'geojson' && value !== 'html') throw invalid('f', `f can be json (GeoJSON, the default) or html (a page with a map, for a browser); got '${value}'.`);
}

/**
 * RFC 3339 instant or interval on ActivityStartDate, a date: a date-time stands for its UTC day, so an observation's
 * day matches when it overlaps the interval. `..` or nothing leaves an end open.
 */
export function datetimeExpr(value: string): Expr | undefined {
  const parts = value.split('/');
  if (parts.length > 2) throw invalid('datetime', `datetime is an instant or start/end, e.g. 2020-06-01 or 2020-06-01/2020-09-01 or 2020-06-01/..; got '${value}'.`);
  if (parts.length === 1) return compare('eq', dayOf(value));
  const days = parts.map((p) => (p === '..' || p === '' ? undefined : dayOf(p)));
  const [start, end] = days;
  if (start && end && start > end) throw invalid('datetime', `datetime's start (${parts[0]}) is after its end (${parts[1]}).`);
  const ge = start ? compare('ge', start) : undefined;
  const le = end ? compare('le', end) : undefined;
  return ge && le ? { kind: 'and', left: ge, right: le } : (ge ?? le);
}

function dayOf(text: string): string {
  const ts = toUtcTimestamp(text);
  if (!ts) throw invalid('datetime', `datetime wants RFC 3339 dates or date-times, e.g. 2020-06-01 or 2020-06-01T10:00:00Z, with .. for an open end; got '${text}'.`);
  return ts.slice(0, 10);
}

function compare(op: 'eq' | 'ge' | 'le', day: string): Expr {
  const value: Literal = { kind: 'date', value: day, offset: 0 };
  return { kind: 'compare', op, property: { kind: 'property', name: DATETIME_FIELD, offset: 0 }, value, offset: 0 };
}

/** `Name=value` is `Name eq 'value'`; the parameter repeated is `Name in (…)`. The planner coerces the text to the field's type. */
function fieldExpr(name: string, values: readonly string[]): Expr {
  const property: Property = { kind: 'property', name, offset: 0 };
  const literals: Literal[] = values.map((value) => ({ kind: 'string', value, offset: 0 }));
  if (literals.length === 1) return { kind: 'compare', op: 'eq', property, value: literals[0]!, offset: 0 };
  return { kind: 'in', property, values: literals, offset: 0 };
}
