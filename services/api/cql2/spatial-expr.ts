/**
 * CQL2's spatial functions over the one geometry a feature has, its location's point: the eight of the "spatial
 * functions" class (S_INTERSECTS … S_CROSSES) with every literal of "spatial functions plus" (odata/wkt.ts), and
 * the distance test the ecosystem writes, DWITHIN(geometry, POINT(…), distance, units) as in GeoServer's ECQL and
 * pygeoapi's pygeofilter (also spelled S_DWITHIN), with BEYOND its negation.
 *
 * `S_INTERSECTS` with a BBOX or a POINT stays the Latitude/Longitude comparisons of `envelopeExpr` (shared with the
 * OGC `bbox` parameter), so the planner and compiler see exactly what the equivalent `$filter` gives them; every
 * other test becomes a `spatial` or `distance` node, which execution turns into the matching location Ids.
 */
import type { Expr, Geometry, NumberLiteral, SpatialRelation } from '../odata/ast.js';
import { readWkt, WKT_TYPES } from '../odata/wkt.js';
import { envelopeExpr } from './envelope-expr.js';
import { isCall, type Cursor } from './cursor.js';
import type { Token } from './lexer.js';
import { unsupportedCall } from './unsupported-call.js';

type Name = Extract<Token, { kind: 'identifier' }>;

/** The name of every feature's geometry (the location's point) in CQL2 filters and /queryables. */
export const GEOMETRY_PROPERTY = 'geometry';

/**
 * Each function as "the location <relation> the literal" when `geometry` comes first; `swapped` is the relation
 * when the literal comes first (S_WITHIN(POLYGON(…), geometry) asks whether the polygon lies within the point).
 */
const RELATIONS: ReadonlyMap<string, { readonly relation: SpatialRelation; readonly swapped: SpatialRelation; readonly negated?: true }> = new Map([
  ['s_intersects', { relation: 'intersects', swapped: 'intersects' }],
  ['s_disjoint', { relation: 'intersects', swapped: 'intersects', negated: true }],
  ['s_within', { relation: 'within', swapped: 'contains' }],
  ['s_contains', { relation: 'contains', swapped: 'within' }],
  ['s_equals', { relation: 'equals', swapped: 'equals' }],
  ['s_touches', { relation: 'touches', swapped: 'touches' }],
  ['s_overlaps', { relation: 'overlaps', swapped: 'overlaps' }],
  ['s_crosses', { relation: 'crosses', swapped: 'crosses' }],
]);

const DISTANCE_FUNCTIONS: ReadonlyMap<string, 'le' | 'gt'> = new Map([
  ['dwithin', 'le'],
  ['s_dwithin', 'le'],
  ['beyond', 'gt'],
]);

/** Metres per unit, under the names ECQL and pygeofilter accept (two-word names are written with a space). */
export const DISTANCE_UNITS: ReadonlyMap<string, number> = new Map([
  ['meters', 1], ['metres', 1], ['m', 1],
  ['kilometers', 1000], ['kilometres', 1000], ['km', 1000],
  ['feet', 0.3048], ['statute miles', 1609.344], ['miles', 1609.344], ['nautical miles', 1852],
]);

const USAGE = `write e.g. S_INTERSECTS(${GEOMETRY_PROPERTY}, POLYGON((-120 49, -110 49, -110 60, -120 49))) or S_INTERSECTS(${GEOMETRY_PROPERTY}, BBOX(west, south, east, north)), in degrees of longitude then latitude.`;
const DISTANCE_USAGE = `write DWITHIN(${GEOMETRY_PROPERTY}, POINT(longitude latitude), distance, units), units one of ${[...DISTANCE_UNITS.keys()].join(', ')}; e.g. DWITHIN(${GEOMETRY_PROPERTY}, POINT(-114.07 51.05), 10, kilometers).`;

type Argument = { readonly kind: 'geometry'; readonly offset: number } | { readonly kind: 'literal'; readonly geometry: Geometry; readonly offset: number };

/** True for the name of a spatial or distance function this dialect evaluates (any letter case). */
export function isSpatialFunction(name: string): boolean {
  const lower = name.toLowerCase();
  return RELATIONS.has(lower) || DISTANCE_FUNCTIONS.has(lower);
}

/**
 * Parses the call after its name (the cursor is on `(`).
 *
 * @example
 * // S_WITHIN(POLYGON((0 0, 1 0, 1 1, 0 0)), geometry)
 * parseSpatial(cursor, nameToken)
 * // → { kind: 'spatial', relation: 'contains', geometry: { type: 'Polygon', … }, offset: 0 }
 */
export function parseSpatial(cursor: Cursor, name: Name): Expr {
  const lower = name.text.toLowerCase();
  const distance = DISTANCE_FUNCTIONS.get(lower);
  if (distance) return parseDistance(cursor, name, distance);
  const fn = RELATIONS.get(lower)!;
  const upper = name.text.toUpperCase();
  cursor.expectPunct('(', 'invalid_filter', USAGE);
  const first = parseArgument(cursor, upper);
  cursor.expectPunct(',', 'invalid_filter', USAGE);
  const second = parseArgument(cursor, upper);
  cursor.expectPunct(')', 'invalid_filter', USAGE);
  if (first.kind === second.kind) {
    const what = first.kind === 'geometry' ? `${GEOMETRY_PROPERTY} with itself` : 'two geometry literals';
    throw cursor.error('unsupported_expression', `${upper} at position ${name.offset} of ${cursor.parameter} compares ${what}: one argument is ${GEOMETRY_PROPERTY}, the other a literal; ${USAGE}`, name.offset);
  }
  const literal = first.kind === 'literal' ? first : (second as Extract<Argument, { kind: 'literal' }>);
  const relation = first.kind === 'geometry' ? fn.relation : fn.swapped;
  const expr = spatialExpr(relation, literal.geometry, name.offset);
  return fn.negated ? { kind: 'not', operand: expr } : expr;
}

/** The node for a relation; S_INTERSECTS with a BBOX or a POINT is the bbox form's comparisons. */
export function spatialExpr(relation: SpatialRelation, geometry: Geometry, offset: number): Expr {
  // The box and point forms of S_INTERSECTS keep their comparisons: the bbox form pages and counts as it always did.
  if (relation === 'intersects' && geometry.type === 'BBox') {
    const [west, south, east, north] = geometry.bbox;
    return envelopeExpr({ west, south, east, north }, offset);
  }
  if (relation === 'intersects' && geometry.type === 'Point' && Math.abs(geometry.coordinates[0]) <= 180) {
    const [x, y] = geometry.coordinates;
    return envelopeExpr({ west: x, south: y, east: x, north: y }, offset);
  }
  return { kind: 'spatial', relation, geometry, offset };
}

function parseDistance(cursor: Cursor, name: Name, op: 'le' | 'gt'): Expr {
  const upper = name.text.toUpperCase();
  cursor.expectPunct('(', 'invalid_filter', DISTANCE_USAGE);
  const first = parseArgument(cursor, upper);
  cursor.expectPunct(',', 'invalid_filter', DISTANCE_USAGE);
  const second = parseArgument(cursor, upper);
  const literal = first.kind === 'literal' ? first : second.kind === 'literal' ? second : undefined;
  if (first.kind === second.kind || literal === undefined) {
    throw cursor.error('unsupported_expression', `${upper} at position ${name.offset} of ${cursor.parameter} needs ${GEOMETRY_PROPERTY} and one POINT: ${DISTANCE_USAGE}`, name.offset);
  }
  if (literal.geometry.type !== 'Point') {
    throw cursor.error('unsupported_expression', `${upper} at position ${literal.offset} of ${cursor.parameter} measures from a POINT, not a ${literal.geometry.type === 'BBox' ? 'BBOX' : literal.geometry.type.toUpperCase()}: ${DISTANCE_USAGE}`, literal.offset);
  }
  cursor.expectPunct(',', 'invalid_filter', DISTANCE_USAGE);
  const amount = expectNumber(cursor, DISTANCE_USAGE);
  cursor.expectPunct(',', 'invalid_filter', DISTANCE_USAGE);
  const unitToken = cursor.peek();
  const words: string[] = [];
  while (cursor.peek().kind === 'identifier' && words.length < 2) words.push((cursor.next() as Name).text.toLowerCase());
  const perUnit = DISTANCE_UNITS.get(words.join(' '));
  if (perUnit === undefined) {
    throw cursor.error('invalid_filter', `Unknown distance unit ${words.length ? `'${words.join(' ')}'` : cursor.describe(unitToken)} at position ${unitToken.offset} of ${cursor.parameter}: ${DISTANCE_USAGE}`, unitToken.offset);
  }
  cursor.expectPunct(')', 'invalid_filter', DISTANCE_USAGE);
  if (!(amount.value >= 0) || !Number.isFinite(amount.value)) {
    throw cursor.error('invalid_filter', `The distance at position ${amount.offset} of ${cursor.parameter} must be zero or more, found ${amount.text}: ${DISTANCE_USAGE}`, amount.offset);
  }
  return { kind: 'distance', center: literal.geometry.coordinates, op, metres: amount.value * perUnit, offset: name.offset };
}

function parseArgument(cursor: Cursor, fn: string): Argument {
  const token = cursor.peek();
  if (token.kind !== 'identifier') {
    throw cursor.error('invalid_filter', `Expected ${GEOMETRY_PROPERTY} or a geometry literal at position ${token.offset} of ${cursor.parameter}, found ${cursor.describe(token)}: ${USAGE}`, token.offset);
  }
  if (!isCall(cursor)) {
    cursor.next();
    if (token.text !== GEOMETRY_PROPERTY) {
      throw cursor.error('unsupported_expression', `'${token.text}' at position ${token.offset} of ${cursor.parameter} is not a geometry: the one spatial property is '${GEOMETRY_PROPERTY}' (the location's point); ${USAGE}`, token.offset);
    }
    return { kind: 'geometry', offset: token.offset };
  }
  const upper = token.text.toUpperCase();
  if (upper === 'BBOX' || upper === 'ENVELOPE') return { kind: 'literal', geometry: parseBox(cursor, token), offset: token.offset };
  if ((WKT_TYPES as readonly string[]).includes(upper)) {
    const { geometry, end } = readWkt(cursor.text, token.offset, { parameter: cursor.parameter, bbox: true, budget: cursor.geometryBudget });
    cursor.skipTo(end);
    return { kind: 'literal', geometry, offset: token.offset };
  }
  if (isSpatialFunction(token.text)) {
    throw cursor.error('unsupported_expression', `${upper} at position ${token.offset} of ${cursor.parameter} is a test, not a geometry: the arguments of ${fn} are ${GEOMETRY_PROPERTY} and a literal; ${USAGE}`, token.offset);
  }
  throw unsupportedCall(cursor, token);
}

// BBOX(west, south, east, north); CQL2 drafts called it ENVELOPE, with the same order. The 6-number form adds
// elevations, which point locations do not have.
function parseBox(cursor: Cursor, name: Name): Geometry {
  const usage = `write ${name.text}(west, south, east, north), e.g. BBOX(-120, 49, -110, 60).`;
  cursor.next();
  cursor.expectPunct('(', 'invalid_filter', usage);
  const numbers: NumberLiteral[] = [];
  do {
    numbers.push(expectNumber(cursor, usage));
  } while (numbers.length < 6 && cursor.acceptPunct(','));
  cursor.expectPunct(')', 'invalid_filter', usage);
  if (numbers.length === 6) {
    throw cursor.error('unsupported_expression', `${name.text} with elevations (six numbers) at position ${name.offset} of ${cursor.parameter} is not supported, as locations have no elevation: ${usage}`, name.offset);
  }
  if (numbers.length !== 4) {
    throw cursor.error('invalid_filter', `${name.text} at position ${name.offset} of ${cursor.parameter} needs four numbers, found ${numbers.length}: ${usage}`, name.offset);
  }
  const [west, south, east, north] = numbers.map((n) => n.value) as [number, number, number, number];
  const bad = (why: string) => cursor.error('invalid_filter', `The ${name.text} at position ${name.offset} of ${cursor.parameter} ${why}.`, name.offset);
  const lon = (v: number) => v >= -180 && v <= 180;
  const lat = (v: number) => v >= -90 && v <= 90;
  if (![west, east].every(lon)) throw bad('has a longitude outside -180…180: longitude comes before latitude');
  if (![south, north].every(lat)) throw bad('has a latitude outside -90…90: longitude comes before latitude');
  if (south > north) throw bad('has its south above its north: the order is west, south, east, north');
  return { type: 'BBox', bbox: [west, south, east, north] };
}

function expectNumber(cursor: Cursor, usage: string): NumberLiteral {
  const token = cursor.peek();
  const number = cursor.acceptSignedNumber();
  if (number === undefined) throw cursor.error('invalid_filter', `Expected a number at position ${token.offset} of ${cursor.parameter}, found ${cursor.describe(token)}: ${usage}`, token.offset);
  return number;
}
