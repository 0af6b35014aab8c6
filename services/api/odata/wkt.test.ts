import { describe, expect, it } from 'vitest';
import { GEOMETRY_LIMITS, GeometryBudget, geometryProblem, type Geometry } from './geometry.js';
import { ODataError } from './odata-error.js';
import { formatWkt, readWkt } from './wkt.js';

const read = (text: string) => readWkt(text, 0, { parameter: 'filter', bbox: true });

function failure(text: string): ODataError {
  try {
    read(text);
  } catch (err) {
    if (err instanceof ODataError) return err;
    throw err;
  }
  throw new Error(`expected ${text} to fail`);
}

describe('readWkt: every literal of CQL2 "spatial functions plus"', () => {
  it.each<[string, Geometry]>([
    ['POINT(-114.07 51.05)', { type: 'Point', coordinates: [-114.07, 51.05] }],
    ['point ( 1 2 )', { type: 'Point', coordinates: [1, 2] }],
    ['MULTIPOINT((1 2), (3 4))', { type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] }],
    ['MULTIPOINT(1 2, 3 4)', { type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] }],
    ['LINESTRING(0 0, 1 1, 2 0)', { type: 'LineString', coordinates: [[0, 0], [1, 1], [2, 0]] }],
    ['MULTILINESTRING((0 0, 1 1), (2 2, 3 3))', { type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[2, 2], [3, 3]]] }],
    [
      'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 4 2, 4 4, 2 2))',
      { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[2, 2], [4, 2], [4, 4], [2, 2]]] },
    ],
    ['MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))', { type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]] }],
    ['GEOMETRYCOLLECTION(POINT(1 2), LINESTRING(0 0, 1 1))', { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }, { type: 'LineString', coordinates: [[0, 0], [1, 1]] }] }],
    ['BBOX(-120, 49, -110, 60)', { type: 'BBox', bbox: [-120, 49, -110, 60] }],
    ['POLYGON((170 -20, 190 -20, 190 -10, 170 -10, 170 -20))', { type: 'Polygon', coordinates: [[[170, -20], [190, -20], [190, -10], [170, -10], [170, -20]]] }],
  ])('%s', (text, geometry) => {
    const { geometry: got, end } = read(text);
    expect(got).toEqual(geometry);
    expect(end).toBe(text.length);
    // Written back, it reads as the same geometry.
    expect(read(formatWkt(got)).geometry).toEqual(geometry);
  });

  it('reads from a position inside a longer text and stops after the literal', () => {
    const text = 'S_WITHIN(geometry, POINT(-114 51)) AND A = 1';
    expect(readWkt(text, 19, { parameter: 'filter', bbox: true })).toEqual({ geometry: { type: 'Point', coordinates: [-114, 51] }, end: 33 });
  });
});

describe('readWkt: invalid geometry is a 400 naming what is wrong', () => {
  const many = Array.from({ length: GEOMETRY_LIMITS.maxVertices }, (_, i) => `${Math.cos(i) * 10} ${Math.sin(i) * 10}`);
  it.each([
    ['POLYGON((0 0, 1 0, 1 1, 0 1))', 0, 'is not closed: it starts at (0 0) and ends at (0 1)'],
    ['POLYGON((0 0, 1 0, 0 0))', 0, 'needs at least four'],
    ['POLYGON((0 0, 1 1, 1 0, 0 1, 0 0))', 0, 'ring 1 of the polygon crosses or touches itself near (0.5 0.5)'],
    ['POLYGON((0 0, 2 0, 2 2, 1 0, 0 2, 0 0))', 0, 'crosses or touches itself near (1 0)'],
    ['POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (5 5, 15 5, 15 6, 5 6, 5 5))', 0, 'rings 1 and 2 of the polygon cross'],
    ['POLYGON((0 0, 1 1, 2 2, 0 0))', 0, 'crosses or touches itself'],
    ['POINT(51 -114)', 0, 'latitude -114'],
    ['LINESTRING(0 0)', 0, 'a line needs at least two'],
    ['MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((0 0, 1 0, 1 1, 0 1)))', 0, 'ring 1 of polygon 2 is not closed'],
    ['POINT Z(1 2 3)', 0, 'elevations'],
    ['POLYGON EMPTY', 0, 'EMPTY'],
    ['POLYGON((0 0, 1 0, 1 1 0 0))', 23, 'A third number'],
    ['CIRCLE(0 0, 1)', 0, 'Expected a geometry'],
    ['LINESTRING(-300 0, 300 0)', 0, 'more than 360°'],
    ['BBOX(0, 10, 1, 5)', 0, 'south above its north'],
    [`POLYGON((${many.join(', ')}, ${many[0]}))`, 0, `the limit is ${GEOMETRY_LIMITS.maxVertices}`],
    [`${'GEOMETRYCOLLECTION('.repeat(50)}POINT(0 0)${')'.repeat(50)}`, 76, 'nests collections'],
  ])('%s', (text, offset, words) => {
    const err = failure(text);
    expect(err.code).toBe('invalid_geometry');
    expect(err.offset).toBe(offset);
    expect(err.message).toContain(words);
  });

  it('accepts a hole touching its shell at one point and a shell of thousands of positions', () => {
    expect(geometryProblem({ type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[0, 0], [5, 2], [2, 5], [0, 0]]] })).toBeUndefined();
    const ring = Array.from({ length: 5000 }, (_, i) => [Math.cos((2 * Math.PI * i) / 5000), Math.sin((2 * Math.PI * i) / 5000)] as const);
    expect(geometryProblem({ type: 'Polygon', coordinates: [[...ring, ring[0]!]] })).toBeUndefined();
  });
});

// Issue 47 item 1: the sweep compared every pair whose longitudes overlapped, quadratic for a zigzag.
describe('geometryProblem: a polygon check whose cost is bounded per filter', () => {
  /** A valid comb: teeth across the longitudes, one above the other; every edge spans the width. */
  const zigzag = (n: number, width = 10): [number, number][] => {
    const right = Array.from({ length: n }, (_, i) => [i % 2 === 0 ? 0.5 : width, (i * 80) / n] as [number, number]);
    return [[0, 0], ...right, [0, 80], [0, 0]];
  };
  /** A valid fan of long, nearly parallel diagonals: its edges overlap on both axes. */
  const fan = (n: number): [number, number][] => {
    const ring = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? [i * 1e-3, 0] : [100 + i * 1e-3, 80]) as [number, number]);
    return [...ring, [n * 1e-3, -1], [0, -1], ring[0]!];
  };

  it('accepts a valid zigzag of nearly the whole limit (swept along the latitudes, where its edges do not overlap)', () => {
    expect(geometryProblem({ type: 'Polygon', coordinates: [zigzag(GEOMETRY_LIMITS.maxVertices - 10)] })).toBeUndefined();
  });

  it('refuses a shape whose edges overlap on both axes, before comparing them', () => {
    expect(geometryProblem({ type: 'Polygon', coordinates: [fan(4000)] })).toContain('too intricate to check');
  });

  it('counts positions and compared pairs per filter, not per literal', () => {
    const budget = new GeometryBudget();
    expect(geometryProblem({ type: 'Polygon', coordinates: [zigzag(6000)] }, budget)).toBeUndefined();
    expect(geometryProblem({ type: 'Polygon', coordinates: [zigzag(6000)] }, budget)).toMatch(/has 6003 positions \(after 6003 in the filter's earlier geometries\); the limit is 10000 per filter/);
    const wkt = `POLYGON((${zigzag(6000).map((p) => p.join(' ')).join(',')}))`;
    expect(() => readWkt(wkt, 0, { parameter: 'filter', bbox: true, budget })).toThrow(/per filter/);
  });
});

describe('geometryProblem: a tiny valid triangle (issue 47 item 10)', () => {
  it.each([1e-200, 1e-160, 1e-12, 5e-324 * 4])('sides of %s degrees are a triangle, not a line', (d) => {
    expect(geometryProblem({ type: 'Polygon', coordinates: [[[0, 0], [d, 0], [0, d], [0, 0]]] })).toBeUndefined();
    expect(geometryProblem({ type: 'Polygon', coordinates: [[[-d, -d], [d, -d], [d, d], [-d, d], [-d, -d]]] })).toBeUndefined();
  });

  it('a tiny figure eight still crosses itself', () => {
    const d = 1e-200;
    expect(geometryProblem({ type: 'Polygon', coordinates: [[[0, 0], [d, d], [d, 0], [0, d], [0, 0]]] })).toContain('crosses or touches itself');
  });
});
