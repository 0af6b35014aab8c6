/**
 * A WGS 84 longitude/latitude envelope as a filter expression over the `Longitude` and `Latitude` dimensions, so an
 * OGC `bbox` parameter and CQL2's `S_INTERSECTS(geometry, ENVELOPE(…))` plan and compile exactly as the equivalent
 * `$filter` does: one planner, one compiler. Locations are points, so a point intersects the box iff it lies in it
 * (edges included).
 */
import type { CompareOp, Expr, NumberLiteral, Property } from '../odata/ast.js';

export interface Envelope {
  /** Degrees; `west > east` is a box that crosses the antimeridian (OGC API – Features Part 1, §7.15.3). */
  readonly west: number;
  readonly south: number;
  readonly east: number;
  readonly north: number;
}

/**
 * @example
 * envelopeExpr({ west: 170, south: -50, east: -170, north: -30 }, 0)
 * // (Latitude ge -50 and Latitude le -30) and (Longitude ge 170 or Longitude le -170)
 */
export function envelopeExpr(box: Envelope, offset: number): Expr {
  const compare = (name: string, op: CompareOp, value: number): Expr => ({
    kind: 'compare',
    op,
    property: property(name, offset),
    value: number(value, offset),
    offset,
  });
  const latitude: Expr = { kind: 'and', left: compare('Latitude', 'ge', box.south), right: compare('Latitude', 'le', box.north) };
  const longitude: Expr =
    box.west <= box.east
      ? { kind: 'and', left: compare('Longitude', 'ge', box.west), right: compare('Longitude', 'le', box.east) }
      : { kind: 'or', left: compare('Longitude', 'ge', box.west), right: compare('Longitude', 'le', box.east) };
  return { kind: 'and', left: latitude, right: longitude };
}

function property(name: string, offset: number): Property {
  return { kind: 'property', name, offset };
}

function number(value: number, offset: number): NumberLiteral {
  return { kind: 'number', text: String(value), value, integer: Number.isInteger(value), offset };
}
