import { describe, expect, it } from 'vitest';
import { parseCql2Text } from '../cql2/parse-cql2.js';
import { parseFilter } from '../odata/parse-filter.js';
import { emptySelection, filterText, searchOfSelection, selectionFromSearch } from './selection.js';
import { MAX_SHAPE_VERTICES, parseShape, shapeCql2, shapeFilter, shapeParam, vertexOf } from './shape.js';

describe('a drawn shape', () => {
  const triangle = [vertexOf(-120.5, 48.3), vertexOf(-120.1, 48.3), vertexOf(-120.1, 48.6)];

  it('writes the OData and CQL2 polygon filters, ring closed, in longitude-latitude order', () => {
    expect(shapeFilter(triangle)).toBe("geo.intersects(Location, geography'SRID=4326;POLYGON((-120.5 48.3, -120.1 48.3, -120.1 48.6, -120.5 48.3))')");
    expect(shapeCql2(triangle)).toBe('S_INTERSECTS(geometry, POLYGON((-120.5 48.3, -120.1 48.3, -120.1 48.6, -120.5 48.3)))');
    expect(() => parseFilter(shapeFilter(triangle))).not.toThrow();
    expect(() => parseCql2Text(shapeCql2(triangle))).not.toThrow();
  });

  it('joins the other filters with and, and survives the URL round trip', () => {
    const s = { ...emptySelection(), region: 'huc10.1702000805', shape: triangle };
    expect(filterText(s)).toBe(`RegionId eq 'huc10.1702000805' and ${shapeFilter(triangle)}`);
    const search = searchOfSelection(s);
    expect(new URLSearchParams(search).get('shape')).toBe('-120.5 48.3,-120.1 48.3,-120.1 48.6');
    expect(selectionFromSearch(search)).toEqual(s);
  });

  it('rounds a click to five decimals, never to exponent notation', () => {
    expect(vertexOf(-120.123456789, 0.000001)).toEqual([-120.12346, 0]);
    expect(shapeParam([vertexOf(0.00001, -0.00002), vertexOf(1, 1), vertexOf(1, 0)])).toBe('0.00001 -0.00002,1 1,1 0');
  });

  it('reads a closed ring as the same polygon', () => {
    expect(parseShape('-120.5 48.3,-120.1 48.3,-120.1 48.6,-120.5 48.3')).toEqual(triangle);
  });

  it.each([
    ['two vertices', '1 1,2 2'],
    ['a latitude out of range', '1 1,2 2,3 95'],
    ['a longitude out of range', '1 1,2 2,181 3'],
    ['three numbers in a vertex', '1 1 1,2 2,3 3'],
    ['words', "1 1,2 2,3 3')) or true"],
    ['an exponent', '1e2 1,2 2,3 3'],
    ['too many vertices', Array.from({ length: MAX_SHAPE_VERTICES + 1 }, (_, i) => `${i / 10} ${i / 20}`).join(',')],
  ])('ignores a hand-edited shape with %s', (_why, text) => {
    expect(parseShape(text)).toBeNull();
    expect(selectionFromSearch(`?${new URLSearchParams({ shape: text })}`).shape).toBeNull();
  });
});
