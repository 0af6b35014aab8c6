/**
 * The `regions` collection over HTTP: REGIONS_FILE's sets (the sample hubs and real WBD HUC10 units of the Methow,
 * ingest/fixtures/real/wbd-methow) listed with their outlines, paged, filtered by set and bbox, one by Id, and read
 * by GDAL's OGC API – Features driver from a real socket.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { regionSet } from '../../../scripts/regions/region-set.js';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { REPO_ROOT } from '../testing/fixture-db.js';
import { listen, type TestServer } from '../testing/test-server.js';

const R = '/v1/features/collections/regions';
const hubs = join(REPO_ROOT, 'scripts/sample/hubs.geojson');
const source = JSON.parse(readFileSync(join(REPO_ROOT, 'ingest/fixtures/real/wbd-methow/Methow_HUC10_02.geojson'), 'utf8')) as { features: { properties: Record<string, string>; geometry: { coordinates: number[][][] } }[] };
let db: Database;
let app: Hono;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-regions-'));
  mkdirSync(join(dir, 'sets'));
  writeFileSync(join(dir, 'sets', 'huc10.geojson'), JSON.stringify(regionSet(source, { set: 'huc10', code: 'HUC', name: 'HUCName' })));
  db = await openDatabase(inject('apiFixtureDb'));
  app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, regionsFile: `${hubs},${join(dir, 'sets')}` });
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Fc { numberMatched: number; numberReturned: number; features: { id: string; geometry: { type: string; coordinates: unknown }; properties: Record<string, string> }[]; links: { rel: string; href: string }[] }
const get = async (path: string) => {
  const res = await app.request(path);
  return { res, body: (await res.json()) as Record<string, unknown> };
};
const hubIds = (JSON.parse(readFileSync(hubs, 'utf8')) as { features: { properties: { RegionId: string } }[] }).features.map((f) => f.properties.RegionId);

describe('the regions collection', () => {
  it('is listed beside the data collections, with its sets and extent', async () => {
    const { body } = await get('/v1/features/collections');
    const regions = (body['collections'] as { id: string; description: string; extent?: { spatial: { bbox: number[][] } } }[]).find((c) => c.id === 'regions');
    expect(regions?.description).toMatch(/sets hub, huc10/);
    const [w, s, e, n] = regions!.extent!.spatial.bbox[0]!;
    expect(w).toBeLessThanOrEqual(-120.79);
    expect(e).toBeGreaterThanOrEqual(-119.84);
    expect(s).toBeLessThanOrEqual(47.95);
    expect(n).toBeGreaterThanOrEqual(48.99);
    expect((await get(R)).body['id']).toBe('regions');
  });

  it('serves every region of every set with its outline, name and set, in file order', async () => {
    const { res, body } = await get(`${R}/items?limit=1000`);
    expect(res.headers.get('content-type')).toBe('application/geo+json');
    const fc = body as unknown as Fc;
    expect(fc.features.map((f) => f.id)).toEqual([...new Set(hubIds), ...source.features.map((f) => `huc10.${f.properties['HUC']}`)]);
    expect(fc.numberMatched).toBe(fc.features.length);
    const twisp = fc.features.find((f) => f.id === 'huc10.1702000805')!;
    expect(twisp.properties).toEqual({ RegionId: 'huc10.1702000805', name: 'Twisp River', set: 'huc10' });
    expect(twisp.geometry).toEqual(source.features.find((f) => f.properties['HUC'] === '1702000805')!.geometry);
  });

  it('filters by set and bbox, and pages with next links to the end', async () => {
    const sets = (await get(`${R}/items?set=huc10`)).body as unknown as Fc;
    expect(sets.features.every((f) => f.properties['set'] === 'huc10')).toBe(true);
    expect(sets.numberMatched).toBe(7);
    // A box around Twisp's town touches the units whose bounding boxes hold it.
    const box = (await get(`${R}/items?set=huc10&bbox=-120.13,48.36,-120.11,48.37`)).body as unknown as Fc;
    expect(box.features.map((f) => f.id)).toContain('huc10.1702000806');
    expect(box.features.map((f) => f.id)).not.toContain('huc10.1702000801');
    const seen: string[] = [];
    let next: string | undefined = `${R}/items?set=huc10&limit=3`;
    while (next) {
      const page = (await get(next)).body as unknown as Fc;
      seen.push(...page.features.map((f) => f.id));
      next = page.links.find((l) => l.rel === 'next')?.href;
    }
    expect(seen).toEqual(sets.features.map((f) => f.id));
  });

  it('answers one region by its Id, and 404 or 400 naming what is wrong', async () => {
    const one = await get(`${R}/items/huc10.1702000801`);
    expect(one.body['properties']).toEqual({ RegionId: 'huc10.1702000801', name: 'Lost River', set: 'huc10' });
    const missing = await get(`${R}/items/huc10.0000`);
    expect(missing.res.status).toBe(404);
    expect(JSON.stringify(missing.body)).toMatch(/No region 'huc10.0000'/);
    for (const [q, says] of [['set=huc12', /No region set 'huc12'.*hub, huc10/], ['limit=0', /limit is a whole number/], ['colour=red', /Unknown parameter 'colour'/], ['bbox=1,2,3', /bbox wants 4 numbers/]] as const) {
      const bad = await get(`${R}/items?${q}`);
      expect(bad.res.status, q).toBe(400);
      expect(String(bad.body['message']), q).toMatch(says);
    }
  });

  it('says which file is wrong when REGIONS_FILE cannot be read', async () => {
    writeFileSync(join(dir, 'broken.geojson'), '{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":null}]}');
    const broken = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, regionsFile: join(dir, 'broken.geojson') });
    const res = await broken.request(`${R}/items`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toMatch(/broken\.geojson: feature 0 has no properties\.RegionId/);
  });
});

describe('GDAL reads the regions', () => {
  let server: TestServer;
  beforeAll(async () => void (server = await listen(app)));
  afterAll(() => server.close());

  it('ogrinfo lists the collection and its polygons with their Ids and names', async () => {
    const { stdout } = await promisify(execFile)('ogrinfo', ['-ro', '-al', '-geom=SUMMARY', '-where', "set = 'huc10'", `OAPIF:${server.origin}/v1/features`, 'regions']);
    expect(stdout).toMatch(/Feature Count: 7/);
    expect(stdout).toMatch(/name \(String\) = Twisp River/);
    expect(stdout).toMatch(/RegionId \(String\) = huc10\.1702000805/);
    expect(stdout).toMatch(/POLYGON/);
  });
});
