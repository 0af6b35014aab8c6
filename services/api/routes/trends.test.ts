/**
 * Trends (issue 54) as a client sees them. Which rows a publish computes is ingest's (ingest/trends/*.test.ts: the
 * worked examples, the independent oracle, the cost of a change); here the rows the fixture's publish stored are read
 * as they are, and every answer of the API is checked against them filtered, counted and grouped in plain
 * TypeScript: its own fields, its location's (RegionId, MonitoringLocationType, geo.intersects), a region's picture
 * (`groupby((Category),aggregate($count as Sites))`), exports, $metadata, OpenAPI, the OGC collection and citations.
 * Then the README's worked examples once over HTTP, from a file the ingest CLI published.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeTestDataset } from '../../../scripts/testing/trend-datasets.js';
import { WORKED_PERIODS, workedDatasets, workedDisagreements, workedRows } from '../../../scripts/testing/trend-worked-examples.js';
import { REPO_ROOT } from '../testing/fixture-db.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

type Row = Record<string, unknown>;

let fx: FixtureApp;
/** The stored rows as the default projection serves them (without the on-request IncrementObservationIds). */
let trends: Row[];
/** Each row's IncrementObservationIds as stored: null, or the kept observations' Ids. */
let kept: Map<number, number[] | null>;
let locations: Map<number, Row>;
let pacific: Set<number>;

const enc = (v: string) => encodeURIComponent(v).replace(/'/g, '%27');

async function get(app: FixtureApp, path: string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await app.app.request(path, { headers });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
}

async function allPages(app: FixtureApp, path: string): Promise<Row[]> {
  const out: Row[] = [];
  for (let next: string | undefined = path; next; ) {
    const body = (await (await get(app, next)).json()) as { value: Row[]; '@odata.nextLink'?: string };
    out.push(...body.value);
    next = body['@odata.nextLink']?.replace(/^https?:\/\/[^/]+/, '');
  }
  return out;
}

async function stored(app: FixtureApp, sql: string): Promise<Row[]> {
  const rows = (await app.ref.runAndReadAll(sql)).getRowObjectsJS() as Row[];
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

const ids = (rows: readonly Row[]) => rows.map((r) => Number(r['Id']));
const count = async (app: FixtureApp, filter: string) => ((await (await get(app, `/v1/odata/v4/Trends?$filter=${enc(filter)}&$count=true`)).json()) as { value: number }).value;

beforeAll(async () => {
  fx = await openFixtureApp(inject('apiFixtureDb'));
  trends = await stored(fx, 'SELECT * EXCLUDE ("IncrementObservationIds") FROM trends ORDER BY "Id"');
  kept = new Map((await stored(fx, 'SELECT "Id", "IncrementObservationIds" AS k FROM trends')).map((r) => [Number(r['Id']), r['k'] === null ? null : (r['k'] as unknown[]).map(Number)]));
  locations = new Map((await stored(fx, 'SELECT "Id", "MonitoringLocationType", "Latitude", "Longitude" FROM locations')).map((l) => [Number(l['Id']), l]));
  pacific = new Set((await stored(fx, `SELECT "LocationId" FROM location_regions WHERE "RegionId" = 'hub.pacific'`)).map((r) => Number(r['LocationId'])));
  // The fixture's hub has assessed and unassessed rows, with and without a category, in and out of the region.
  expect(trends.filter((t) => t['TimeIncrement'] !== 'unassessed').length).toBeGreaterThan(0);
  expect(trends.filter((t) => t['Category'] === null).length).toBeGreaterThan(0);
  expect(trends.filter((t) => pacific.has(Number(t['LocationId']))).length).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  await fx?.close();
});

describe('Trends on the fixture hub', () => {
  it('serves every stored row as it is, in keyset pages by Id', async () => {
    expect(await allPages(fx, '/v1/odata/v4/Trends?$top=97')).toEqual(trends);
  });

  it("filters by its own fields and by its location's: type, region, a polygon", async () => {
    const cases: [string, (t: Row) => boolean][] = [
      ["TimeIncrement eq 'unassessed' and Period eq 10", (t) => t['TimeIncrement'] === 'unassessed' && t['Period'] === 10],
      ["Category ne 'Not Analysed' and Category ne null", (t) => t['Category'] !== 'Not Analysed' && t['Category'] !== null],
      ['Seasonal eq false or Seasonal eq true', (t) => t['Seasonal'] !== null],
      ["Reason eq 'unassessed' and Observations ge 20", (t) => t['Reason'] === 'unassessed' && Number(t['Observations']) >= 20],
      ["MonitoringLocationType eq 'Lake/Pond'", (t) => locations.get(Number(t['LocationId']))!['MonitoringLocationType'] === 'Lake/Pond'],
      ["RegionId eq 'hub.pacific' and ImprovesWhen eq 'decreasing'", (t) => pacific.has(Number(t['LocationId'])) && t['ImprovesWhen'] === 'decreasing'],
      ["geo.intersects(Location,geography'SRID=4326;POLYGON((-125 48,-110 48,-110 60,-125 60,-125 48))')", (t) => {
        const l = locations.get(Number(t['LocationId']))!;
        return Number(l['Longitude']) >= -125 && Number(l['Longitude']) <= -110 && Number(l['Latitude']) >= 48 && Number(l['Latitude']) <= 60;
      }],
    ];
    for (const [filter, want] of cases) {
      const expected = trends.filter(want);
      expect(expected.length, filter).toBeGreaterThan(0);
      expect(expected.length, filter).toBeLessThan(trends.length);
      expect(ids(await allPages(fx, `/v1/odata/v4/Trends?$filter=${enc(filter)}&$select=Id`)), filter).toEqual(ids(expected));
      expect(await count(fx, filter), filter).toBe(expected.length);
    }
  });

  it("a region's picture: groupby((Category),aggregate($count as Sites)) counts its rows", async () => {
    const filter = enc("RegionId eq 'hub.pacific' and Period eq 10");
    const groups = await allPages(fx, `/v1/odata/v4/Trends?$apply=${enc('groupby((Category),aggregate($count as Sites))')}&$filter=${filter}`);
    const want = new Map<unknown, number>();
    for (const t of trends.filter((r) => pacific.has(Number(r['LocationId'])) && r['Period'] === 10)) want.set(t['Category'], (want.get(t['Category']) ?? 0) + 1);
    expect(new Map(groups.map((g) => [g['Category'], Number(g['Sites'])]))).toEqual(want);
  });

  it('exports every matching row (CSV, NDJSON), Seasonal as true/false', async () => {
    const filter = enc("TimeIncrement ne 'unassessed'");
    const want = trends.filter((t) => t['TimeIncrement'] !== 'unassessed');
    const ndjson = await get(fx, `/v1/export/Trends?$filter=${filter}&$format=ndjson`);
    expect(Number(ndjson.headers.get('x-total-count'))).toBe(want.length);
    expect((await ndjson.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row)).toEqual(want);
    const csv = await (await get(fx, `/v1/export/Trends?$filter=${filter}&$format=csv&$select=Id,Seasonal,Category`)).text();
    const lines = csv.split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('Id,Seasonal,Category');
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(want.map((t) => String(t['Seasonal'])));
  });

  it('IncrementObservationIds only when $select names it: the stored Ids of the kept observations, as JSON, CSV and Arrow; not filterable', async () => {
    const select = '$select=Id,IncrementObservationIds&$top=10000';
    const rows = await allPages(fx, `/v1/odata/v4/Trends?${select}`);
    expect(rows.length).toBe(trends.length);
    for (const r of rows) expect(r['IncrementObservationIds'], String(r['Id'])).toEqual(kept.get(Number(r['Id'])));
    // Each assessed row keeps N observations, each of its own series (location and characteristic) and period.
    const assessed = trends.filter((t) => t['TimeIncrement'] !== 'unassessed');
    expect(assessed.length).toBeGreaterThan(0);
    const some = assessed.slice(0, 5);
    for (const t of some) {
      const ids = kept.get(Number(t['Id']))!;
      expect(ids).toHaveLength(Number(t['N']));
      const obs = await stored(fx, `SELECT "LocationId", "CharacteristicName", year("ActivityStartDate") AS y FROM observations WHERE "Id" IN (${ids.join(',')})`);
      expect(obs).toHaveLength(ids.length);
      for (const o of obs) {
        expect([o['LocationId'], o['CharacteristicName']]).toEqual([t['LocationId'], t['CharacteristicName']]);
        expect(Number(o['y'])).toBeGreaterThanOrEqual(Number(t['StartYear']));
        expect(Number(o['y'])).toBeLessThanOrEqual(Number(t['EndYear']));
      }
    }
    const first = some[0]!;
    const csv = await (await get(fx, `/v1/odata/v4/Trends?$format=csv&$select=Id,IncrementObservationIds&$filter=${enc(`Id eq ${String(first['Id'])}`)}`)).text();
    expect(csv.split('\r\n')[1]).toBe(`${String(first['Id'])},"${kept.get(Number(first['Id']))!.join(';')}"`);
    const { tableFromIPC } = await import('apache-arrow');
    const arrow = tableFromIPC(new Uint8Array(await (await get(fx, `/v1/odata/v4/Trends?$format=arrow&$select=Id,IncrementObservationIds&$filter=${enc(`Id eq ${String(first['Id'])}`)}`)).arrayBuffer()));
    expect([...arrow.getChild('IncrementObservationIds')!.get(0)!].map(Number)).toEqual(kept.get(Number(first['Id'])));
    // Left out of the default projection (OData and the OGC collection), and a list is not compared.
    expect(Object.keys((await allPages(fx, '/v1/odata/v4/Trends?$top=1'))[0]!)).not.toContain('IncrementObservationIds');
    const feature = ((await (await get(fx, '/v1/features/collections/trends/items?limit=1')).json()) as { features: { properties: Row }[] }).features[0]!;
    expect(Object.keys(feature.properties)).not.toContain('IncrementObservationIds');
    const refused = await fx.app.request(`/v1/odata/v4/Trends?$filter=${enc('IncrementObservationIds eq 1')}`);
    expect(refused.status).toBe(400);
  });

  it('is in $metadata and OpenAPI, Seasonal a boolean', async () => {
    const csdl = await (await get(fx, '/v1/odata/v4/$metadata')).text();
    expect(csdl).toContain('<EntitySet Name="Trends" EntityType="Tributary.Trend"');
    expect(csdl).toMatch(/<Property Name="Seasonal" Type="Edm.Boolean"/);
    const openapi = (await (await get(fx, '/v1/openapi.json')).json()) as { components: { schemas: Record<string, { properties: Record<string, { type: unknown }> }> } };
    const schema = Object.values(openapi.components.schemas).find((s) => s.properties?.['SenSlopeUpper90'] !== undefined)!;
    expect(schema.properties['Seasonal']!.type).toEqual(['boolean', 'null']);
  });

  it("OGC collection trends: each row at its location's point, numberMatched the OData $count", async () => {
    const doc = (await (await get(fx, '/v1/features/collections/trends/items?Period=10&limit=10000')).json()) as {
      features: { id: number; geometry: { coordinates: unknown }; properties: Row }[];
      numberMatched: number;
    };
    expect(doc.numberMatched).toBe(await count(fx, 'Period eq 10'));
    expect(doc.features.map((f) => f.id)).toEqual(ids(trends.filter((t) => t['Period'] === 10)));
    for (const f of doc.features) {
      const l = locations.get(Number(f.properties['LocationId']))!;
      expect(f.geometry.coordinates).toEqual([l['Longitude'], l['Latitude']]);
    }
  });

  it('cites the datasets of its rows', async () => {
    const doc = (await (await get(fx, `/v1/citation/Trends?$filter=${enc("TimeIncrement ne 'unassessed'")}`, { Accept: 'application/json' })).json()) as { rows: number; datasets: { DOI: string; Rows: number }[] };
    const want = trends.filter((t) => t['TimeIncrement'] !== 'unassessed');
    expect(doc.rows).toBe(want.length);
    const perDoi = new Map<string, number>();
    for (const t of want) perDoi.set(String(t['DOI']), (perDoi.get(String(t['DOI'])) ?? 0) + 1);
    expect(new Map(doc.datasets.map((d) => [d.DOI, d.Rows]))).toEqual(perDoi);
  });
});

describe('the worked examples over HTTP', () => {
  let dir: string;
  let worked: FixtureApp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tributary-trends-http-'));
    for (const ds of workedDatasets) await writeTestDataset(join(dir, 'src'), ds);
    const env = { ...process.env, SRC: join(dir, 'src'), DUCKDB_PATH: join(dir, 'worked.duckdb'), TRENDS_PERIODS: WORKED_PERIODS };
    await promisify(execFile)(process.execPath, [inject('ingestCli'), 'ingest'], { cwd: REPO_ROOT, env });
    worked = await openFixtureApp(join(dir, 'worked.duckdb'));
  }, 120_000);

  afterAll(async () => {
    await worked?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(workedRows.map((w) => [`${w.CharacteristicName} ${w.StartYear}–${w.EndYear}`, w] as const))('%s: every figure of the README', async (_, w) => {
    const filter = `CharacteristicName eq '${w.CharacteristicName}' and StartYear eq ${w.StartYear} and EndYear eq ${w.EndYear}`;
    const [row, ...more] = await allPages(worked, `/v1/odata/v4/Trends?$filter=${enc(filter)}`);
    expect(more).toEqual([]);
    expect(workedDisagreements(row!, w)).toEqual([]);
  });

  it('Seasonal eq true selects the seasonal rows', async () => {
    const rows = await allPages(worked, `/v1/odata/v4/Trends?$filter=${enc('Seasonal eq true')}&$select=CharacteristicName,StartYear`);
    expect(rows.map((r) => `${String(r['CharacteristicName'])} ${String(r['StartYear'])}`).sort()).toEqual(['Ammonia and ammonium 2020', 'Chloride 1983', 'Escherichia coli 2015', 'Escherichia coli 2020']);
  });
});
