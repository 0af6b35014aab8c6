/** The format table read the way the parser and the route read it. */
import { describe, expect, it } from 'vitest';
import { FORMAT_NAMES, FORMATS, formatFromAccept, formatNamed, isTextFormat } from './formats.js';

describe('formats', () => {
  it('a $format value is a name or a media type', () => {
    for (const f of FORMAT_NAMES) {
      expect(formatNamed(f)).toBe(f);
      expect(formatNamed(FORMATS[f].mediaType)).toBe(f);
    }
    expect(formatNamed('xml')).toBeUndefined();
  });

  it("GeoJSON is the features API's alone: OData's $format and Accept never choose it", () => {
    expect(FORMAT_NAMES).toEqual(['json', 'csv', 'arrow']);
    expect(formatNamed('geojson')).toBeUndefined();
    expect(formatNamed('application/geo+json')).toBeUndefined();
    expect(formatFromAccept('application/geo+json')).toBeUndefined();
    expect(isTextFormat('geojson')).toBe(true);
  });

  it.each([
    ['text/csv', 'csv'],
    ['Text/CSV; charset=utf-8', 'csv'],
    ['text/html, text/csv;q=0.9', 'csv'],
    ['application/vnd.apache.arrow.stream', 'arrow'],
    // JSON is the default, never chosen by Accept: the DataStream clients send application/vnd.api+json.
    ['application/json', undefined],
    ['application/vnd.api+json', undefined],
    ['text/csvx', undefined],
    ['*/*', undefined],
    [undefined, undefined],
  ] as const)('Accept: %s → %s', (accept, format) => {
    expect(formatFromAccept(accept)).toBe(format);
  });

  it('text formats name what COPY writes after each row; columnar ones do not', () => {
    for (const f of FORMAT_NAMES) {
      if (isTextFormat(f)) expect(FORMATS[f].rowEnd).toMatch(/^(,|\r\n)$/);
      else expect('rowEnd' in FORMATS[f]).toBe(false);
    }
  });
});
