/**
 * `S_INTERSECTS(geometry, BBOX(…))`: CQL2's spatial predicate over the one geometry a feature has, its location's
 * point, turned into the Latitude/Longitude comparisons of `envelopeExpr` (shared with the OGC `bbox` parameter),
 * so the planner and compiler see exactly what the equivalent `$filter` gives them.
 */
import type { Expr, NumberLiteral } from '../odata/ast.js';
import { envelopeExpr, type Envelope } from './envelope-expr.js';
import { isCall, type Cursor } from './cursor.js';
import type { Token } from './lexer.js';

type Name = Extract<Token, { kind: 'identifier' }>;
import { unsupportedCall } from './unsupported-call.js';

/** The name of every feature's geometry (the location's point) in CQL2 filters and /queryables. */
export const GEOMETRY_PROPERTY = 'geometry';

const USAGE = `write S_INTERSECTS(${GEOMETRY_PROPERTY}, BBOX(west, south, east, north)) in degrees of longitude and latitude, or POINT(longitude latitude) for one place.`;

type Argument = { readonly kind: 'geometry'; readonly offset: number } | { readonly kind: 'box'; readonly box: Envelope; readonly offset: number };

/**
 * Parses the call after its name (the cursor is on `(`); the two arguments may come in either order, as
 * intersection is symmetric.
 *
 * @example
 * // S_INTERSECTS(geometry, BBOX(-120, 49, -110, 60))
 * parseIntersects(cursor, nameToken)
 * // → (Latitude ge 49 and Latitude le 60) and (Longitude ge -120 and Longitude le -110)
 */
export function parseIntersects(cursor: Cursor, name: Token): Expr {
  cursor.expectPunct('(', 'invalid_filter', USAGE);
  const first = parseArgument(cursor);
  cursor.expectPunct(',', 'invalid_filter', USAGE);
  const second = parseArgument(cursor);
  cursor.expectPunct(')', 'invalid_filter', USAGE);
  if (first.kind === second.kind) {
    const what = first.kind === 'geometry' ? `${GEOMETRY_PROPERTY} with itself` : 'two geometry literals';
    throw cursor.error('unsupported_expression', `S_INTERSECTS at position ${name.offset} of ${cursor.parameter} compares ${what}: ${USAGE}`, name.offset);
  }
  return envelopeExpr(first.kind === 'box' ? first.box : (second as Extract<Argument, { kind: 'box' }>).box, name.offset);
}

function parseArgument(cursor: Cursor): Argument {
  const token = cursor.peek();
  if (token.kind !== 'identifier') {
    throw cursor.error('invalid_filter', `Expected ${GEOMETRY_PROPERTY} or a BBOX at position ${token.offset} of ${cursor.parameter}, found ${cursor.describe(token)}: ${USAGE}`, token.offset);
  }
  if (!isCall(cursor)) {
    cursor.next();
    if (token.text !== GEOMETRY_PROPERTY) {
      throw cursor.error('unsupported_expression', `'${token.text}' at position ${token.offset} of ${cursor.parameter} is not a geometry: the one spatial property is '${GEOMETRY_PROPERTY}' (the location's point); ${USAGE}`, token.offset);
    }
    return { kind: 'geometry', offset: token.offset };
  }
  const upper = token.text.toUpperCase();
  if (upper === 'BBOX' || upper === 'ENVELOPE') return { kind: 'box', box: parseBox(cursor, token), offset: token.offset };
  if (upper === 'POINT') return { kind: 'box', box: parsePoint(cursor, token), offset: token.offset };
  if (['LINESTRING', 'POLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON', 'GEOMETRYCOLLECTION'].includes(upper)) {
    throw cursor.error('unsupported_expression', `${upper} at position ${token.offset} of ${cursor.parameter} is not supported: S_INTERSECTS takes a BBOX or a POINT; ${USAGE}`, token.offset);
  }
  throw unsupportedCall(cursor, token);
}

// BBOX(west, south, east, north); CQL2 drafts called it ENVELOPE, with the same order. The 6-number form adds
// elevations, which point locations do not have.
function parseBox(cursor: Cursor, name: Name): Envelope {
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
  const [west, south, east, north] = numbers as [NumberLiteral, NumberLiteral, NumberLiteral, NumberLiteral];
  return checkedBox(cursor, name, { west: west.value, south: south.value, east: east.value, north: north.value });
}

// WKT: POINT(x y), x the longitude. A point location intersects a point when it is that point.
function parsePoint(cursor: Cursor, name: Name): Envelope {
  const usage = 'write POINT(longitude latitude), e.g. POINT(-114.07 51.05).';
  cursor.next();
  cursor.expectPunct('(', 'invalid_filter', usage);
  const x = expectNumber(cursor, usage);
  const y = expectNumber(cursor, usage);
  cursor.expectPunct(')', 'invalid_filter', `two numbers only, as locations have no elevation; ${usage}`);
  return checkedBox(cursor, name, { west: x.value, south: y.value, east: x.value, north: y.value });
}

function expectNumber(cursor: Cursor, usage: string): NumberLiteral {
  const token = cursor.peek();
  const number = cursor.acceptSignedNumber();
  if (number === undefined) throw cursor.error('invalid_filter', `Expected a number at position ${token.offset} of ${cursor.parameter}, found ${cursor.describe(token)}: ${usage}`, token.offset);
  return number;
}

function checkedBox(cursor: Cursor, name: Name, box: Envelope): Envelope {
  const bad = (why: string) => cursor.error('invalid_filter', `The ${name.text} at position ${name.offset} of ${cursor.parameter} ${why}.`, name.offset);
  const lon = (v: number) => v >= -180 && v <= 180;
  const lat = (v: number) => v >= -90 && v <= 90;
  if (![box.west, box.east].every(lon)) throw bad('has a longitude outside -180…180: longitude comes before latitude');
  if (![box.south, box.north].every(lat)) throw bad('has a latitude outside -90…90: longitude comes before latitude');
  if (box.south > box.north) throw bad('has its south above its north: the order is west, south, east, north');
  return box;
}
