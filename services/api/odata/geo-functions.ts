/**
 * OData's geo functions over the location's point (URL Conventions §5.1.1.8): `geo.intersects(Location,
 * geography'SRID=4326;POLYGON((…))')` and `geo.distance(Location, geography'SRID=4326;POINT(…)') le <metres>`,
 * read into the same `spatial` and `distance` nodes as CQL2's S_INTERSECTS and DWITHIN, and written back for links.
 * The literal's WKT is read by odata/wkt.ts, the reader CQL2 uses, so both languages accept and refuse alike.
 */
import type { DistanceExpr, Expr, Geometry, SpatialExpr } from './ast.js';
import { formatWkt, readWkt } from './wkt.js';
import { describeToken, type TokenCursor } from './token-cursor.js';
import type { Token } from './lexer.js';

/** The name `$filter` gives the row's location point in geo functions. */
export const LOCATION_PROPERTY = 'Location';
/** The one spatial reference system served: WGS 84 longitude/latitude. */
export const SRID = 4326;

const INTERSECTS_USAGE = `write geo.intersects(${LOCATION_PROPERTY},geography'SRID=${SRID};POLYGON((-120 49,-110 49,-110 60,-120 49))').`;
const DISTANCE_USAGE = `write geo.distance(${LOCATION_PROPERTY},geography'SRID=${SRID};POINT(-114.07 51.05)') le 10000 (metres).`;
const DISTANCE_OPS = new Map([['lt', 'lt'], ['le', 'le'], ['lte', 'le'], ['gt', 'gt'], ['ge', 'ge'], ['gte', 'ge']] as const);

/** True for a geo function name the lexer read as one identifier (`geo.intersects`). */
export function isGeoFunction(name: string): boolean {
  return name.toLowerCase().startsWith('geo.');
}

/**
 * Parses a geo function call and, for `geo.distance`, the comparison after it; the cursor is on the name.
 * `text` is the option's whole value, from which the literal's WKT is read with its true positions.
 *
 * @example
 * parseGeoFunction(cursor, "geo.distance(Location,geography'SRID=4326;POINT(-114 51)') le 5000")
 * // → { kind: 'distance', center: [-114, 51], op: 'le', metres: 5000, offset: 0 }
 */
export function parseGeoFunction(cursor: TokenCursor, text: string): Expr {
  const name = cursor.next() as Extract<Token, { kind: 'identifier' }>;
  const lower = name.text.toLowerCase();
  if (lower !== 'geo.intersects' && lower !== 'geo.distance') {
    throw cursor.error('unsupported_function', `Unsupported function '${name.text}' at position ${name.offset} of ${cursor.parameter}: the geo functions are geo.intersects and geo.distance over ${LOCATION_PROPERTY}; ${INTERSECTS_USAGE}`, name.offset);
  }
  const usage = lower === 'geo.intersects' ? INTERSECTS_USAGE : DISTANCE_USAGE;
  cursor.expectPunct('(', 'invalid_filter', usage);
  const first = readArgument(cursor, text, usage);
  cursor.expectPunct(',', 'invalid_filter', usage);
  const second = readArgument(cursor, text, usage);
  cursor.expectPunct(')', 'invalid_filter', usage);
  const literal = first ?? second;
  if ((first === undefined) === (second === undefined) || literal === undefined) {
    throw cursor.error('unsupported_expression', `${name.text} at position ${name.offset} of ${cursor.parameter} takes ${LOCATION_PROPERTY} and one geography literal: ${usage}`, name.offset);
  }
  if (lower === 'geo.intersects') return intersectsComparison(cursor, { kind: 'spatial', relation: 'intersects', geometry: literal, offset: name.offset });
  if (literal.type !== 'Point') {
    throw cursor.error('unsupported_expression', `geo.distance at position ${name.offset} of ${cursor.parameter} measures from a POINT, not a ${literal.type}: ${usage}`, name.offset);
  }
  return distanceComparison(cursor, literal.coordinates, name.offset);
}

// `geo.intersects(…) eq true` is common in generated URLs; `eq false`/`ne true` negate.
function intersectsComparison(cursor: TokenCursor, call: SpatialExpr): Expr {
  const op = cursor.peek();
  const word = op.kind === 'identifier' ? op.text.toLowerCase() : '';
  if (word !== 'eq' && word !== 'ne') return call;
  cursor.next();
  const value = cursor.next();
  const bool = value.kind === 'identifier' ? value.text.toLowerCase() : '';
  if (bool !== 'true' && bool !== 'false') {
    throw cursor.error('unsupported_expression', `geo.intersects can only be compared with true or false (position ${value.offset} of ${cursor.parameter}): ${INTERSECTS_USAGE}`, value.offset);
  }
  return (word === 'eq') === (bool === 'true') ? call : { kind: 'not', operand: call };
}

function distanceComparison(cursor: TokenCursor, center: DistanceExpr['center'], offset: number): DistanceExpr {
  const opToken = cursor.next();
  const op = opToken.kind === 'identifier' ? DISTANCE_OPS.get(opToken.text.toLowerCase() as 'lt') : undefined;
  if (op === undefined) {
    throw cursor.error('invalid_filter', `Expected lt, le, gt or ge after geo.distance(…) at position ${opToken.offset} of ${cursor.parameter}, found ${describeToken(opToken, cursor.parameter)}: ${DISTANCE_USAGE}`, opToken.offset);
  }
  const value = cursor.next();
  const metres = value.kind === 'number' ? Number(value.text) : NaN;
  if (!(metres >= 0) || !Number.isFinite(metres)) {
    throw cursor.error('invalid_filter', `Expected a distance in metres (zero or more) at position ${value.offset} of ${cursor.parameter}, found ${describeToken(value, cursor.parameter)}: ${DISTANCE_USAGE}`, value.offset);
  }
  return { kind: 'distance', center, op, metres, offset };
}

/** `Location` (undefined) or a `geography'…'` literal (its geometry). */
function readArgument(cursor: TokenCursor, text: string, usage: string): Geometry | undefined {
  const token = cursor.next();
  if (token.kind === 'identifier' && token.text === LOCATION_PROPERTY) return undefined;
  const literal = cursor.peek();
  const prefix = token.kind === 'identifier' ? token.text.toLowerCase() : '';
  if (token.kind === 'identifier' && (prefix === 'geography' || prefix === 'geometry') && literal.kind === 'string' && literal.offset === token.offset + token.text.length) {
    cursor.next();
    return readLiteral(cursor, text, literal.offset + 1, literal.value);
  }
  const hint = token.kind === 'identifier' && literal.kind !== 'string' ? ` ('${token.text}' is not a geography: the location's point is ${LOCATION_PROPERTY})` : '';
  throw cursor.error('invalid_filter', `Expected ${LOCATION_PROPERTY} or geography'SRID=${SRID};…' at position ${token.offset} of ${cursor.parameter}, found ${describeToken(token, cursor.parameter)}${hint}: ${usage}`, token.offset);
}

const SRID_PREFIX = /^SRID=([0-9]{1,5});/i;

function readLiteral(cursor: TokenCursor, text: string, start: number, value: string): Geometry {
  const srid = SRID_PREFIX.exec(value);
  if (srid && Number(srid[1]) !== SRID) {
    throw cursor.error('invalid_geometry', `SRID=${srid[1]} at position ${start} of ${cursor.parameter} is not served: coordinates are WGS 84 longitude/latitude, SRID=${SRID}.`, start);
  }
  const skip = srid ? srid[0].length : 0;
  // Read from the option's own text, so positions in messages are the client's; a literal holds no quote to unescape.
  const source = text.slice(start, start + value.length) === value ? text : ' '.repeat(start) + value;
  const { geometry, end } = readWkt(source, start + skip, { parameter: cursor.parameter, bbox: false, budget: cursor.geometryBudget });
  const rest = source.slice(end, start + value.length);
  if (rest.trim() !== '') {
    const at = end + rest.length - rest.trimStart().length;
    throw cursor.error('invalid_geometry', `Unexpected text after the geometry at position ${at} of ${cursor.parameter}: a geography literal holds one geometry.`, at);
  }
  return geometry;
}

/**
 * `$filter` text of a spatial or distance node, or undefined when OData has no function for it (S_WITHIN and the
 * other CQL2 relations): the link builders then leave the OData alternate out.
 *
 * @example
 * formatGeo({ kind: 'distance', center: [-114, 51], op: 'le', metres: 5000, offset: 0 })
 * // → "geo.distance(Location,geography'SRID=4326;POINT(-114 51)') le 5000"
 */
export function formatGeo(expr: SpatialExpr | DistanceExpr): string | undefined {
  if (expr.kind === 'distance') return `geo.distance(${LOCATION_PROPERTY},${geography({ type: 'Point', coordinates: expr.center })}) ${expr.op} ${expr.metres}`;
  if (expr.relation !== 'intersects' || expr.geometry.type === 'BBox') return undefined;
  return `geo.intersects(${LOCATION_PROPERTY},${geography(expr.geometry)})`;
}

function geography(g: Geometry): string {
  return `geography'SRID=${SRID};${formatWkt(g)}'`;
}
