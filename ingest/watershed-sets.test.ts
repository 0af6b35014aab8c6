import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { regionSet } from '../scripts/regions/region-set.js';
import { readRegionSets } from '../schemas/region-sets.js';
import { runIngest } from './pipeline.js';
import { query, tempDir } from './test-support.js';

/**
 * Real watershed boundaries as RegionIds: the seven HUC10 units of the Methow (HUC8 17020008) from the USGS
 * Watershed Boundary Dataset (fixtures/real/wbd-methow, source and licence beside it) made a set with
 * scripts/regions/region-set.ts, loaded beside the sample hubs and a second set through REGIONS_FILE, and every
 * membership ingest computes compared with shapely's answer for the same points (`covers`: boundary included).
 */

const real = new URL('./fixtures/real/wbd-methow/Methow_HUC10_02.geojson', import.meta.url).pathname;
const hubs = new URL('../scripts/sample/hubs.geojson', import.meta.url).pathname;

type Ring = number[][];
interface Fc { features: { properties: Record<string, string>; geometry: { type: string; coordinates: Ring[] | Ring[][] } }[] }

/** The points ingest places: the valley's towns, every vertex of every unit (the boundary), a grid over and around the units. */
function pointsOver(fc: Fc): [number, number][] {
  const towns: [number, number][] = [[-120.418, 48.593], [-120.193, 48.48], [-120.119, 48.365], [-120.011, 48.129]];
  const vertices = fc.features.flatMap((f) => (f.geometry.coordinates as Ring[])[0]!.map(([x, y]) => [x!, y!] as [number, number]));
  const grid: [number, number][] = [];
  for (let i = 0; i <= 20; i++) for (let j = 0; j <= 20; j++) grid.push([-120.85 + (i * 1.0) / 20, 47.9 + (j * 1.15) / 20]);
  const seen = new Set<string>();
  return [...towns, ...vertices, ...grid].filter(([x, y]) => !seen.has(`${x},${y}`) && seen.add(`${x},${y}`));
}

const header = 'DatasetName,MonitoringLocationID,MonitoringLocationName,MonitoringLocationLatitude,MonitoringLocationLongitude,MonitoringLocationHorizontalCoordinateReferenceSystem,MonitoringLocationType,ActivityType,ActivityMediaName,ActivityStartDate,CharacteristicName,ResultValue,ResultUnit,ResultValueType,ResultStatusID';

/** shapely's memberships of each point in each region of the set files: an independent point-in-polygon. */
function shapelyMemberships(files: string[], points: [number, number][]): string[][] {
  const script = `
import json, sys
from shapely.geometry import Point, shape
files, points = json.load(sys.stdin)
regions = [(f['properties']['RegionId'], shape(f['geometry'])) for path in files for f in json.load(open(path))['features']]
print(json.dumps([sorted({rid for rid, g in regions if g.covers(Point(x, y))}) for x, y in points]))
`;
  return JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify([files, points]), encoding: 'utf8' })) as string[][];
}

describe('watershed sets', () => {
  it('places every location in the published units shapely places it in, several sets at once', async () => {
    const dir = await tempDir();
    const source = JSON.parse(await readFile(real, 'utf8')) as Fc;
    const sets = join(dir, 'sets');
    await mkdir(sets);
    const huc10 = regionSet(source, { set: 'huc10', code: 'HUC', name: 'HUCName' });
    await writeFile(join(sets, 'huc10.geojson'), JSON.stringify(huc10));
    // The HUC8 unit is exactly its HUC10 units (the hydrologic units nest): a derived second set, one region of seven parts.
    const huc8 = { type: 'FeatureCollection', features: source.features.map((f) => ({ type: 'Feature', properties: { RegionId: 'huc8.17020008', name: 'Methow' }, geometry: f.geometry })) };
    await writeFile(join(sets, 'huc8.geojson'), JSON.stringify(huc8));

    const points = pointsOver(source);
    const src = join(dir, 'src');
    await mkdir(join(src, 'methow'), { recursive: true });
    await writeFile(join(src, 'methow', 'metadata.json'), JSON.stringify({ DOI: '10.80052/tributary-test-methow', DatasetName: 'Methow points' }));
    const rows = points.map(([x, y], i) => `Methow points,P${i},Point ${i},${y},${x},WGS84,River/Stream,Field Msr/Obs,Surface Water,2020-06-01,pH,${7 + (i % 10) / 10},None,Actual,Accepted`);
    await writeFile(join(src, 'methow', 'data.csv'), `${header}\n${rows.join('\n')}\n`);

    const duckdbPath = join(dir, 'out.duckdb');
    const report = await runIngest({ src, duckdbPath, regionsFile: `${hubs}, ${sets}` });
    expect(report.published, JSON.stringify(report.datasets[0]).slice(0, 1500)).toBe(true);
    expect(report.datasets[0]?.rowsLoaded).toBe(points.length);

    const got = await query(duckdbPath, `SELECT l."MonitoringLocationID" AS id, list(r."RegionId" ORDER BY r."RegionId") FILTER (WHERE r."RegionId" LIKE 'huc%') AS ids
      FROM locations l LEFT JOIN location_regions r ON r."LocationId" = l."Id" GROUP BY l."MonitoringLocationID"`);
    const byPoint = new Map(got.map((r) => [String(r['id']), (r['ids'] as string[] | null) ?? []]));
    const expected = shapelyMemberships([join(sets, 'huc8.geojson'), join(sets, 'huc10.geojson')], points);
    const ingested = points.map((_, i) => byPoint.get(`P${i}`) ?? []);
    expect(ingested).toEqual(expected);
    // The answer is not trivially empty or full: inside, outside, and on shared edges (two HUC10 units at once).
    expect(expected.filter((ids) => ids.length === 0).length).toBeGreaterThan(50);
    expect(expected.filter((ids) => ids.includes('huc10.1702000805')).length).toBeGreaterThan(10);
    expect(expected.filter((ids) => ids.filter((id) => id.startsWith('huc10.')).length >= 2).length).toBeGreaterThan(10);
    // Twisp (the town) lies in the Middle Methow unit.
    expect(ingested[2]).toEqual(['huc10.1702000806', 'huc8.17020008']);

    const all = await readRegionSets(`${hubs},${sets}`);
    expect(new Set(all.map((r) => r.set))).toEqual(new Set(['hub', 'huc8', 'huc10']));
    expect(all.find((r) => r.id === 'huc10.1702000805')?.name).toBe('Twisp River');
    // An ingest with the world's boundaries loaded: seconds alone, far more on a machine shared with other suites.
  }, 180_000);
});
