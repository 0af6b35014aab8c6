import { describe, expect, it } from 'vitest';
import { ODataError } from '../odata/odata-error.js';
import { stripOffsets } from '../testing/odata-ast.js';
import { parseCql2Json } from './parse-cql2-json.js';
import { parseCql2Text } from './parse-cql2.js';

const geometry = { property: 'geometry' };
const polygon = { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[4, 4], [6, 4], [6, 6], [4, 4]]] };
const POLYGON = 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 4))';

function failure(json: unknown): ODataError {
  try {
    parseCql2Json(typeof json === 'string' ? json : JSON.stringify(json));
  } catch (err) {
    if (err instanceof ODataError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(json)} to fail`);
}

describe('parseCql2Json: the same tree as the same filter in CQL2-Text', () => {
  it.each<[string, unknown]>([
    ["CharacteristicName = 'pH'", { op: '=', args: [{ property: 'CharacteristicName' }, 'pH'] }],
    ['2020 < ActivityStartYear', { op: '<', args: [2020, { property: 'ActivityStartYear' }] }],
    ["A = 'x' AND (B <> 2 OR NOT C >= 1.5)", { op: 'and', args: [{ op: '=', args: [{ property: 'A' }, 'x'] }, { op: 'or', args: [{ op: '<>', args: [{ property: 'B' }, 2] }, { op: 'not', args: [{ op: '>=', args: [{ property: 'C' }, 1.5] }] }] }] }],
    ["A LIKE 'pH%'", { op: 'like', args: [{ property: 'A' }, 'pH%'] }],
    ['A BETWEEN 1 AND 2', { op: 'between', args: [{ property: 'A' }, 1, 2] }],
    ["A IN ('x', 'y')", { op: 'in', args: [{ property: 'A' }, ['x', 'y']] }],
    ['A IS NULL', { op: 'isNull', args: [{ property: 'A' }] }],
    ["ActivityStartDate >= DATE('2020-01-01')", { op: '>=', args: [{ property: 'ActivityStartDate' }, { date: '2020-01-01' }] }],
    ['S_INTERSECTS(geometry, BBOX(-120, 49, -110, 60))', { op: 's_intersects', args: [geometry, { bbox: [-120, 49, -110, 60] }] }],
    [`S_INTERSECTS(geometry, ${POLYGON})`, { op: 's_intersects', args: [geometry, polygon] }],
    [`S_WITHIN(${POLYGON}, geometry)`, { op: 's_within', args: [polygon, geometry] }],
    [`S_DISJOINT(geometry, ${POLYGON})`, { op: 's_disjoint', args: [geometry, polygon] }],
    ['S_TOUCHES(geometry, MULTILINESTRING((0 0, 1 1), (2 2, 3 3)))', { op: 's_touches', args: [geometry, { type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[2, 2], [3, 3]]] }] }],
    ['S_EQUALS(geometry, GEOMETRYCOLLECTION(POINT(1 2)))', { op: 's_equals', args: [geometry, { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }] }] }],
    ['DWITHIN(geometry, POINT(-114 51), 10, kilometers)', { op: 's_dwithin', args: [geometry, { type: 'Point', coordinates: [-114, 51] }, 10, 'kilometers'] }],
  ])('%s', (text, json) => {
    expect(stripOffsets(parseCql2Json(JSON.stringify(json)))).toEqual(stripOffsets(parseCql2Text(text)));
  });

  it.each<[unknown, string, string]>([
    ['{"op": ', 'invalid_filter', 'is not JSON'],
    [{ op: 'and', args: [{ op: '=', args: [{ property: 'A' }, 1] }] }, 'invalid_filter', '/args of and needs at least two'],
    [{ op: 's_within', args: [geometry, { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }] }, 'invalid_geometry', '/args/1 ring 1 of the polygon is not closed'],
    [{ op: 's_within', args: [geometry, { type: 'Point', coordinates: [1, 2, 3] }] }, 'invalid_geometry', '/args/1/coordinates must be a position of two numbers'],
    [{ op: 's_within', args: [{ property: 'location' }, polygon] }, 'unsupported_expression', '"geometry"'],
    [{ op: 't_after', args: [] }, 'unsupported_function', "'t_after' is not supported"],
    [{ op: 's_dwithin', args: [geometry, { type: 'Point', coordinates: [0, 0] }, 10, 'furlongs'] }, 'invalid_filter', '/args/3 must be a unit'],
    [{ op: 'in', args: [{ property: 'A' }, Array.from({ length: 1001 }, (_, i) => i)] }, 'too_many_values', 'the limit is 1000'],
    [Array.from({ length: 70 }).reduce<unknown>((e) => ({ op: 'not', args: [e] }), { op: '=', args: [{ property: 'A' }, 1] }), 'too_deep', 'more than 64 deep'],
  ])('%j → %s', (json, code, words) => {
    const err = failure(json);
    expect(err.code).toBe(code);
    expect(err.message).toContain(words);
  });
});
