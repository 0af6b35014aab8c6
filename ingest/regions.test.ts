import { describe, expect, it } from 'vitest';
import { canadaRegions, loadRegionsFile, regionsContaining, regionsFromGeoJson } from './regions.js';

const hubs = new URL('../scripts/sample/hubs.geojson', import.meta.url).pathname;

describe('regions', () => {
  it.each([
    ['Edmonton', -113.4938, 53.5461, ['admin.2.ca', 'admin.4.ca.ab']],
    ['Vancouver', -123.1207, 49.2827, ['admin.2.ca', 'admin.4.ca.bc']],
    ['Whitehorse', -135.0568, 60.7212, ['admin.2.ca', 'admin.4.ca.yt']],
    ['Yellowknife', -114.3718, 62.454, ['admin.2.ca', 'admin.4.ca.nt']],
    ['Québec', -71.2082, 46.8139, ['admin.2.ca', 'admin.4.ca.qc']],
    ['Seattle', -122.3321, 47.6062, []],
  ])('%s', async (_name, lon, lat, expected) => {
    expect(regionsContaining(lon, lat, await canadaRegions())).toEqual(expected);
  });

  it('adds every REGIONS_FILE feature containing the point', async () => {
    const regions = await loadRegionsFile(hubs);
    expect(regions.map((r) => r.id)).toContain('hub.pacific');
    expect(regionsContaining(-123.1207, 49.2827, regions)).toContain('hub.pacific');
  });

  it('rejects features without a RegionId or with other geometries', () => {
    const square = { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] };
    expect(() => regionsFromGeoJson({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: square }] }, 'f')).toThrow(/RegionId/);
    expect(() => regionsFromGeoJson({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { RegionId: 'x' }, geometry: { type: 'Point', coordinates: [0, 0] } }] }, 'f')).toThrow(/Polygon/);
    const multi = regionsFromGeoJson({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { RegionId: 'x' }, geometry: { type: 'MultiPolygon', coordinates: [square.coordinates] } }] }, 'f');
    expect(regionsContaining(0.5, 0.5, multi)).toEqual(['x']);
  });
});
