import { describe, expect, it } from 'vitest';
import type { Geometry, SpatialRelation } from '../odata/ast.js';
import { locationMatcher } from './location-matcher.js';

const SQUARE_WITH_HOLE: Geometry = {
  type: 'Polygon',
  coordinates: [
    [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]],
    [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]],
  ],
};
const LINE: Geometry = { type: 'LineString', coordinates: [[0, 0], [10, 0], [10, 10]] };
const ACROSS: Geometry = { type: 'Polygon', coordinates: [[[170, -20], [190, -20], [190, -10], [170, -10], [170, -20]]] };

const relations: readonly SpatialRelation[] = ['intersects', 'within', 'touches', 'contains', 'equals', 'overlaps', 'crosses'];

/** The relations that hold, for a location at (x, y). */
function holding(geometry: Geometry, x: number, y: number): SpatialRelation[] {
  return relations.filter((relation) => locationMatcher({ kind: 'spatial', relation, geometry }).matches(x, y));
}

describe('locationMatcher: what each relation means for a point location', () => {
  it.each<[string, Geometry, number, number, SpatialRelation[]]>([
    ['inside the shell', SQUARE_WITH_HOLE, 2, 2, ['intersects', 'within']],
    ['on an edge', SQUARE_WITH_HOLE, 5, 0, ['intersects', 'touches']],
    ['on a vertex', SQUARE_WITH_HOLE, 10, 10, ['intersects', 'touches']],
    ['in the hole', SQUARE_WITH_HOLE, 5, 5, []],
    ["on the hole's edge", SQUARE_WITH_HOLE, 4, 5, ['intersects', 'touches']],
    ['outside', SQUARE_WITH_HOLE, 11, 5, []],
    ['beside a vertex on the ray (counted once)', SQUARE_WITH_HOLE, -1, 10, []],
    ['inside a line', LINE, 5, 0, ['intersects', 'within']],
    ['at its bend', LINE, 10, 0, ['intersects', 'within']],
    ["at a line's end", LINE, 0, 0, ['intersects', 'touches']],
    ['off a line', LINE, 5, 1, []],
    ['the point itself', { type: 'Point', coordinates: [3, 4] }, 3, 4, ['intersects', 'within', 'contains', 'equals']],
    ['one of several points', { type: 'MultiPoint', coordinates: [[3, 4], [5, 6]] }, 3, 4, ['intersects', 'within']],
    ['inside a box', { type: 'BBox', bbox: [0, 0, 10, 10] }, 3, 4, ['intersects', 'within']],
    ['across the antimeridian, east of it', ACROSS, -175, -15, ['intersects', 'within']],
    ['across the antimeridian, west of it', ACROSS, 175, -15, ['intersects', 'within']],
    ['on the antimeridian', ACROSS, 180, -15, ['intersects', 'within']],
    ['a box across the antimeridian', { type: 'BBox', bbox: [170, -20, -170, -10] }, -175, -15, ['intersects', 'within']],
    ['in one polygon of a collection, on the edge of another', { type: 'GeometryCollection', geometries: [SQUARE_WITH_HOLE, { type: 'Polygon', coordinates: [[[2, 2], [3, 2], [3, 3], [2, 2]]] }] }, 2.5, 2, ['intersects', 'within']],
  ])('%s', (_name, geometry, x, y, expected) => {
    expect(holding(geometry, x, y)).toEqual(expected);
  });

  it('no location overlaps or crosses anything, and none is read for them', () => {
    for (const relation of ['overlaps', 'crosses'] as const) expect(locationMatcher({ kind: 'spatial', relation, geometry: SQUARE_WITH_HOLE }).window).toBeUndefined();
  });

  it('reads only the window of the shape', () => {
    expect(locationMatcher({ kind: 'spatial', relation: 'intersects', geometry: SQUARE_WITH_HOLE }).window).toEqual({ south: 0, north: 10, west: 0, east: 10 });
    // Past 180 the longitude is left open: the locations beyond the antimeridian are at −180…−170.
    expect(locationMatcher({ kind: 'spatial', relation: 'intersects', geometry: ACROSS }).window).toEqual({ south: -20, north: -10 });
  });

  it('measures great-circle distance in metres, a degree of latitude being about 111.2 km', () => {
    const within = (metres: number) => locationMatcher({ kind: 'distance', center: [0, 0], op: 'le', metres });
    expect(within(111_200).matches(0, 1)).toBe(true);
    expect(within(111_100).matches(0, 1)).toBe(false);
    expect(within(111_100).window).toMatchObject({ south: expect.closeTo(-0.9992, 3), north: expect.closeTo(0.9992, 3) });
    expect(locationMatcher({ kind: 'distance', center: [179.9, 0], op: 'le', metres: 30_000 }).matches(-179.9, 0)).toBe(true);
    expect(locationMatcher({ kind: 'distance', center: [0, 0], op: 'gt', metres: 111_100 }).matches(0, 1)).toBe(true);
  });
});
