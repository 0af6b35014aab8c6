import { describe, expect, it } from 'vitest';
import type { Expr } from './ast.js';
import { formatFilter } from './format-filter.js';
import { ODataError } from './odata-error.js';
import { parseFilter } from './parse-filter.js';

const square = { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]] } as const;
const LITERAL = "geography'SRID=4326;POLYGON((0 0,10 0,10 10,0 10,0 0))'";

function failure(text: string): ODataError {
  try {
    parseFilter(text);
  } catch (err) {
    if (err instanceof ODataError) return err;
    throw err;
  }
  throw new Error(`expected ${text} to fail`);
}

describe('parseFilter: geo.intersects and geo.distance over Location', () => {
  it.each<[string, Expr]>([
    [`geo.intersects(Location,${LITERAL})`, { kind: 'spatial', relation: 'intersects', geometry: square, offset: 0 }],
    [`geo.intersects(${LITERAL}, Location) eq true`, { kind: 'spatial', relation: 'intersects', geometry: square, offset: 0 }],
    [`geo.intersects(Location,${LITERAL}) eq false`, { kind: 'not', operand: { kind: 'spatial', relation: 'intersects', geometry: square, offset: 0 } }],
    ["geo.intersects(Location,geography'POINT(1 2)')", { kind: 'spatial', relation: 'intersects', geometry: { type: 'Point', coordinates: [1, 2] }, offset: 0 }],
    ["geo.distance(Location,geography'SRID=4326;POINT(-114.07 51.05)') le 10000", { kind: 'distance', center: [-114.07, 51.05], op: 'le', metres: 10000, offset: 0 }],
    ["geo.distance(Location,geography'SRID=4326;POINT(-114 51)') gt 2.5e3", { kind: 'distance', center: [-114, 51], op: 'gt', metres: 2500, offset: 0 }],
  ])('%s', (text, expr) => {
    const parsed = parseFilter(text);
    expect(parsed).toEqual(expr);
    // The link builder writes it back; the text parses to the same tree.
    expect(formatFilter(parseFilter(formatFilter(parsed)))).toBe(formatFilter(parsed));
  });

  it('combines with the other conditions', () => {
    expect(parseFilter(`CharacteristicName eq 'pH' and geo.intersects(Location,${LITERAL})`)).toMatchObject({ kind: 'and', right: { kind: 'spatial', offset: 31 } });
  });

  it.each([
    ["geo.intersects(Location,geography'SRID=3857;POINT(1 2)')", 'invalid_geometry', 34, 'SRID=3857'],
    ["geo.intersects(Location,geography'SRID=4326;POLYGON((0 0,1 0,1 1,0 1))')", 'invalid_geometry', 44, 'is not closed'],
    ["geo.intersects(Location,geography'SRID=4326;POINT(1 2) x')", 'invalid_geometry', 55, 'one geometry'],
    ["geo.intersects(Geometry,geography'POINT(1 2)')", 'invalid_filter', 15, "'Geometry' is not a geography"],
    ["geo.intersects(Location,Location)", 'unsupported_expression', 0, 'one geography literal'],
    ["geo.distance(Location,geography'POLYGON((0 0,1 0,1 1,0 0))') le 5", 'unsupported_expression', 0, 'measures from a POINT'],
    ["geo.distance(Location,geography'POINT(0 0)') eq 5", 'invalid_filter', 45, 'Expected lt, le, gt or ge'],
    ["geo.distance(Location,geography'POINT(0 0)') le 'x'", 'invalid_filter', 48, 'distance in metres'],
    ["geo.length(Location) gt 5", 'unsupported_function', 0, 'geo.intersects and geo.distance'],
  ])('%s → %s at %i', (text, code, offset, words) => {
    const err = failure(text);
    expect({ code: err.code, offset: err.offset }).toEqual({ code, offset });
    expect(err.message).toContain(words);
  });
});
