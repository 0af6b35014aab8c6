import { describe, expect, it } from 'vitest';
import type { Expr } from '../odata/ast.js';
import { ODataError } from '../odata/odata-error.js';
import { parseCql2Text } from './parse-cql2.js';

const SQUARE = 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))';
const square = { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]] };

function failure(text: string): ODataError {
  try {
    parseCql2Text(text);
  } catch (err) {
    if (err instanceof ODataError) return err;
    throw err;
  }
  throw new Error(`expected ${text} to fail`);
}

describe('parseCql2Text: spatial functions over the location point', () => {
  it.each<[string, Expr]>([
    [`S_INTERSECTS(geometry, ${SQUARE})`, { kind: 'spatial', relation: 'intersects', geometry: square as never, offset: 0 }],
    [`s_within(geometry, ${SQUARE})`, { kind: 'spatial', relation: 'within', geometry: square as never, offset: 0 }],
    // Argument order matters for the asymmetric pair: the polygon within the point is the point containing it.
    [`S_WITHIN(${SQUARE}, geometry)`, { kind: 'spatial', relation: 'contains', geometry: square as never, offset: 0 }],
    [`S_CONTAINS(${SQUARE}, geometry)`, { kind: 'spatial', relation: 'within', geometry: square as never, offset: 0 }],
    [`S_DISJOINT(geometry, ${SQUARE})`, { kind: 'not', operand: { kind: 'spatial', relation: 'intersects', geometry: square as never, offset: 0 } }],
    ['S_EQUALS(geometry, POINT(1 2))', { kind: 'spatial', relation: 'equals', geometry: { type: 'Point', coordinates: [1, 2] }, offset: 0 }],
    ['S_TOUCHES(geometry, LINESTRING(0 0, 1 1))', { kind: 'spatial', relation: 'touches', geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] }, offset: 0 }],
    ['S_OVERLAPS(geometry, MULTIPOINT(1 2, 3 4))', { kind: 'spatial', relation: 'overlaps', geometry: { type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] }, offset: 0 }],
    ['S_CROSSES(geometry, BBOX(0, 0, 1, 1))', { kind: 'spatial', relation: 'crosses', geometry: { type: 'BBox', bbox: [0, 0, 1, 1] }, offset: 0 }],
    ['DWITHIN(geometry, POINT(-114 51), 10, kilometers)', { kind: 'distance', center: [-114, 51], op: 'le', metres: 10000, offset: 0 }],
    ['S_DWITHIN(POINT(-114 51), geometry, 5280, feet)', { kind: 'distance', center: [-114, 51], op: 'le', metres: 5280 * 0.3048, offset: 0 }],
    ['BEYOND(geometry, POINT(-114 51), 2, statute miles)', { kind: 'distance', center: [-114, 51], op: 'gt', metres: 2 * 1609.344, offset: 0 }],
  ])('%s', (text, expr) => {
    expect(parseCql2Text(text)).toEqual(expr);
  });

  it('continues after a literal: the rest of the filter is read as usual', () => {
    const parsed = parseCql2Text(`S_WITHIN(geometry, ${SQUARE}) AND CharacteristicName = 'pH'`);
    expect(parsed).toMatchObject({ kind: 'and', left: { kind: 'spatial' }, right: { kind: 'compare', property: { name: 'CharacteristicName' } } });
  });

  it.each([
    ['S_WITHIN(geometry, geometry)', 'unsupported_expression', 0, 'geometry with itself'],
    [`S_WITHIN(${SQUARE}, POINT(1 1))`, 'unsupported_expression', 0, 'two geometry literals'],
    ['S_WITHIN(geometry, POLYGON((0 0, 10 0, 10 10, 0 10)))', 'invalid_geometry', 19, 'is not closed'],
    ['S_WITHIN(geometry, POLYGON((0 0, 10 10, 10 0, 0 10, 0 0)))', 'invalid_geometry', 19, 'crosses or touches itself near (5 5)'],
    [`S_WITHIN(geometry, S_INTERSECTS(geometry, ${SQUARE}))`, 'unsupported_expression', 19, 'is a test, not a geometry'],
    [`DWITHIN(geometry, ${SQUARE}, 10, meters)`, 'unsupported_expression', 18, 'measures from a POINT, not a POLYGON'],
    ['DWITHIN(geometry, POINT(0 0), 10, furlongs)', 'invalid_filter', 34, "Unknown distance unit 'furlongs'"],
    ['DWITHIN(geometry, POINT(0 0), -1, meters)', 'invalid_filter', 30, 'zero or more'],
  ])('%s → %s at %i', (text, code, offset, words) => {
    const err = failure(text);
    expect({ code: err.code, offset: err.offset }).toEqual({ code, offset });
    expect(err.message).toContain(words);
  });
});
