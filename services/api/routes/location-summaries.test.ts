/**
 * LocationSummaries (issue 48 part 3; issue 52) as a client sees them: every row the API serves is checked against a
 * summary computed here from the observations of the dataset files ingest published beside the fixture (their
 * Parquet files, read as rows only) — the groups and statistics by the independent oracle of the statistics README
 * (scripts/testing/km-oracle.ts), the dates and the latest result in plain TypeScript — not from the production SQL.
 * Then the table behaves as every resource does: filters on its own fields and its location's
 * (MonitoringLocationType, RegionId), keyset pages, $count, $apply, exports, the OGC collection with the location's
 * point, and citations.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { activityGroupFor } from '../../../schemas/activity-group.js';
import { datasetFileName, plainFilesDir } from '../../../schemas/publication-files.js';
import { kmSummary, locationSummaryGroups } from '../../../scripts/testing/km-oracle.js';
import type { SummaryGroup } from '../../../scripts/testing/km-rows.js';
import type { StoredResult } from '../../../scripts/testing/stored-result.js';
import { ucumConvert } from '../../../scripts/testing/ucum-convert.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

interface Obs extends StoredResult {
  readonly Id: number;
  readonly DOI: string;
  readonly MonitoringLocationID: string;
  readonly ActivityType: string;
  readonly ActivityStartDate: string;
  readonly ActivityStartTime: string | null;
}

type Row = Record<string, unknown>;

let fx: FixtureApp;
let files: DuckDBInstance;
let conn: DuckDBConnection;
let expected: Map<number, Row>;
let locations: Row[];
/** The fixture's observations as the dataset files hold them. */
let observations: Obs[];

const enc = (v: string) => encodeURIComponent(v).replace(/'/g, '%27');

async function get(path: string): Promise<Response> {
  const res = await fx.app.request(path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
}

/** Every row of a JSON query, following @odata.nextLink. */
async function allPages(path: string): Promise<Row[]> {
  const out: Row[] = [];
  for (let next: string | undefined = path; next; ) {
    const body = (await (await get(next)).json()) as { value: Row[]; '@odata.nextLink'?: string };
    out.push(...body.value);
    const link = body['@odata.nextLink'];
    next = link ? link.slice(link.indexOf('/v1/')) : undefined;
  }
  return out;
}

/** Blanks first, then text in code-unit order (DuckDB's binary collation on ASCII). */
function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** Later by date, then a time over none, then the time, then the Id. */
function later(a: Obs, b: Obs): boolean {
  if (a.ActivityStartDate !== b.ActivityStartDate) return a.ActivityStartDate > b.ActivityStartDate;
  if ((a.ActivityStartTime === null) !== (b.ActivityStartTime === null)) return a.ActivityStartTime !== null;
  if (a.ActivityStartTime !== b.ActivityStartTime) return a.ActivityStartTime! > b.ActivityStartTime!;
  return a.Id > b.Id;
}

/** A group's row: the oracle's statistics (§5, §6), its dates and latest result, its key. */
function summarise(locationId: number, group: SummaryGroup): Omit<Row, 'Id'> {
  const rows = group.rows as readonly Obs[];
  const dates = rows.map((r) => r.ActivityStartDate).sort();
  const latest = rows.reduce((a, b) => (later(b, a) ? b : a));
  return {
    LocationId: locationId,
    DOI: rows[0]!.DOI,
    ...group.key,
    ...kmSummary(group.classified),
    FirstDate: dates[0],
    LastDate: dates[dates.length - 1],
    LatestObservationId: latest.Id,
    LatestDate: latest.ActivityStartDate,
    LatestTime: latest.ActivityStartTime,
    LatestValue: latest.ResultValue,
    LatestDetectionCondition: latest.ResultDetectionCondition,
  };
}

/** The summaries the definition gives, by Id (LocationId × 2^16 + the group's rank in its location). */
function reference(obs: readonly Obs[], locationIdOf: ReadonlyMap<string, number>): Map<number, Row> {
  const byLocation = new Map<number, Obs[]>();
  for (const o of obs) {
    const id = locationIdOf.get(JSON.stringify([o.DOI, o.MonitoringLocationID]));
    if (id === undefined) throw new Error(`no location for ${o.MonitoringLocationID}`);
    (byLocation.get(id) ?? byLocation.set(id, []).get(id)!).push(o);
  }
  const out = new Map<number, Row>();
  const keys = ['CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultUnit'] as const;
  for (const [locationId, rows] of byLocation) {
    // The oracle's groups (quality control set aside, a non-detect in its limit's unit), ranked blanks first.
    const groups = locationSummaryGroups(rows, ucumConvert);
    groups.sort((a, b) => keys.reduce((c, k) => c || compareText(a.key[k], b.key[k]), 0));
    groups.forEach((g, rank) => {
      const Id = locationId * 2 ** 16 + rank;
      out.set(Id, { Id, ...summarise(locationId, g) });
    });
  }
  return out;
}

beforeAll(async () => {
  const path = inject('apiFixtureDb');
  fx = await openFixtureApp(path);
  // The published Parquet files, as a client downloads them: their names from the downloads manifest's table.
  const listed = await fx.ref.runAndReadAll(`SELECT "Sha256" FROM dataset_files WHERE "Format" = 'parquet'`);
  const paths = listed.getRowObjects().map((r) => join(plainFilesDir(path), datasetFileName(String(r['Sha256']), 'parquet')));
  files = await DuckDBInstance.create(':memory:');
  conn = await files.connect();
  const list = paths.map((p) => `'${p.replaceAll("'", "''")}'`).join(', ');
  const read = await conn.runAndReadAll(
    `SELECT "Id"::DOUBLE AS "Id", "DOI", "MonitoringLocationID", "ActivityType", "CharacteristicName", "ResultSampleFraction", "MethodSpeciation", "ResultUnit", "ResultValue",
       "ResultDetectionCondition", "ResultDetectionQuantitationLimitMeasure", "ResultDetectionQuantitationLimitUnit",
       CAST("ActivityStartDate" AS VARCHAR) AS "ActivityStartDate", CAST("ActivityStartTime" AS VARCHAR) AS "ActivityStartTime"
     FROM read_parquet([${list}])`,
  );
  // The stored group of each ActivityType is upstream's lookup (schemas/upstream/activity-groups.json).
  const obs = (observations = (read.getRowObjectsJS() as unknown as Omit<Obs, 'ActivityGroupType'>[]).map((o) => ({ ...o, ActivityGroupType: activityGroupFor(o.ActivityType) })));
  locations = await allPages('/v1/odata/v4/Locations?$select=Id,DOI,ID,MonitoringLocationType');
  const locationIdOf = new Map(locations.map((l) => [JSON.stringify([l['DOI'], l['ID']]), Number(l['Id'])]));
  expected = reference(obs, locationIdOf);
}, 120_000);

afterAll(async () => {
  conn?.closeSync();
  files?.closeSync();
  await fx?.close();
});

/** Served numbers equal the reference's; a mean or an interpolated quantile to the last few bits of a double. */
function expectSameRow(served: Row, want: Row): void {
  for (const [name, value] of Object.entries(want)) {
    const got = served[name];
    if (typeof value === 'number' && typeof got === 'number' && ['Mean', 'Median', 'P10', 'P90'].includes(name) && (name === 'Mean' || want['Method'] === 'exact')) {
      expect(Math.abs(got - value), `${String(want['Id'])}.${name}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(value)));
    } else expect(got, `${String(want['Id'])}.${name}`).toEqual(value);
  }
}

describe('LocationSummaries', () => {
  it('every row served is the summary computed from the published dataset files, and none is missing', async () => {
    const text = await (await get('/v1/export/LocationSummaries?$format=ndjson')).text();
    const served = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
    expect(served.length).toBe(expected.size);
    expect(served.length).toBeGreaterThan(100);
    for (const row of served) {
      const want = expected.get(Number(row['Id']));
      expect(want, `row ${String(row['Id'])}`).toBeDefined();
      expectSameRow(row, want!);
    }
    // The fixture has non-detects, summaries of many values whose quantiles interpolate, and Kaplan–Meier rows.
    expect(served.some((r) => Number(r['NonDetects']) > 0)).toBe(true);
    expect(served.some((r) => Number(r['Count']) - Number(r['NonDetects']) > 10)).toBe(true);
    expect(served.some((r) => r['Method'] === 'km' && r['MedianQualifier'] === '<')).toBe(true);
    expect(served.some((r) => r['Method'] === 'exact')).toBe(true);
  });

  it("the issue's mercury sites: most results below the 0.005 µg/L limit, so the median is <0.005, where the detected values alone put it above", async () => {
    const rows = await allPages(`/v1/odata/v4/LocationSummaries?$filter=${enc("CharacteristicName eq 'Mercury' and Method eq 'km'")}`);
    const mostlyCensored = rows.filter((r) => 2 * Number(r['LeftCensored']) > Number(r['Count']));
    expect(mostlyCensored.length).toBeGreaterThan(0);
    const idOf = new Map(locations.map((l) => [JSON.stringify([l['DOI'], l['ID']]), Number(l['Id'])]));
    for (const r of mostlyCensored) {
      expect([r['MedianQualifier'], r['Median'], r['MinQualifier'], r['Min']]).toEqual(['<', 0.005, '<', 0.005]);
      const detected = observations
        .filter((o) => o.CharacteristicName === 'Mercury' && o.ResultValue !== null && idOf.get(JSON.stringify([o.DOI, o.MonitoringLocationID])) === r['LocationId'])
        .map((o) => o.ResultValue!)
        .sort((a, b) => a - b);
      expect(detected[Math.floor(detected.length / 2)]!).toBeGreaterThan(0.005);
    }
  });

  it('keyset pages in Id order hold exactly the export, and $count agrees', async () => {
    const paged = await allPages('/v1/odata/v4/LocationSummaries?$top=997');
    const ids = paged.map((r) => Number(r['Id']));
    expect(ids).toEqual([...expected.keys()].sort((a, b) => a - b));
    const count = (await (await get('/v1/odata/v4/LocationSummaries?$count=true')).json()) as { value: number };
    expect(count.value).toBe(expected.size);
  });

  it('filters by its own fields and by its location (MonitoringLocationType, RegionId)', async () => {
    const pH = [...expected.values()].filter((r) => r['CharacteristicName'] === 'pH');
    expect(pH.length).toBeGreaterThan(0);
    const type = String(locations[0]!['MonitoringLocationType']);
    const ofType = new Set(locations.filter((l) => l['MonitoringLocationType'] === type).map((l) => Number(l['Id'])));
    const filter = `CharacteristicName eq 'pH' and MonitoringLocationType eq '${type}' and Count ge 2`;
    const rows = await allPages(`/v1/odata/v4/LocationSummaries?$filter=${enc(filter)}&$select=Id,LocationId,Count`);
    expect(rows.map((r) => Number(r['Id']))).toEqual(pH.filter((r) => ofType.has(Number(r['LocationId'])) && Number(r['Count']) >= 2).map((r) => r['Id']).sort((a, b) => Number(a) - Number(b)));
    expect(Object.keys(rows[0] ?? { Id: 0, LocationId: 0, Count: 0 })).toEqual(['Id', 'LocationId', 'Count']);

    // Regions: the same locations /Locations answers for the region, a different path through the same memberships.
    const inRegion = new Set((await allPages(`/v1/odata/v4/Locations?$filter=${enc("RegionId eq 'hub.pacific'")}&$select=Id`)).map((l) => Number(l['Id'])));
    expect(inRegion.size).toBeGreaterThan(0);
    const regional = await allPages(`/v1/odata/v4/LocationSummaries?$filter=${enc("RegionId eq 'hub.pacific' and LatestValue ne null")}&$select=Id`);
    const want = [...expected.values()].filter((r) => inRegion.has(Number(r['LocationId'])) && r['LatestValue'] !== null).map((r) => Number(r['Id']));
    expect(regional.map((r) => Number(r['Id']))).toEqual(want.sort((a, b) => a - b));
  });

  it('$apply groups and counts its rows, by its own fields and its location\'s', async () => {
    const body = (await (await get(`/v1/odata/v4/LocationSummaries?$apply=${enc('groupby((CharacteristicName,MonitoringLocationType),aggregate($count as N))')}`)).json()) as { value: Row[] };
    const typeOf = new Map(locations.map((l) => [Number(l['Id']), String(l['MonitoringLocationType'])]));
    const want = new Map<string, number>();
    for (const r of expected.values()) {
      const key = JSON.stringify([r['CharacteristicName'], typeOf.get(Number(r['LocationId']))]);
      want.set(key, (want.get(key) ?? 0) + 1);
    }
    expect(new Map(body.value.map((g) => [JSON.stringify([g['CharacteristicName'], g['MonitoringLocationType']]), Number(g['N'])]))).toEqual(want);
  });

  it("selects by its location's point (geo.distance) and pages as Arrow and CSV", async () => {
    const [place] = await allPages('/v1/odata/v4/Locations?$select=Id,Latitude,Longitude&$top=1');
    const near = `geo.distance(Location,geography'SRID=4326;POINT(${String(place!['Longitude'])} ${String(place!['Latitude'])})') le 1`;
    const rows = await allPages(`/v1/odata/v4/LocationSummaries?$filter=${enc(near)}&$select=Id,LocationId`);
    // The location itself, and any other at the same point: every summary of exactly those locations.
    const located = new Set(rows.map((r) => Number(r['LocationId'])));
    expect(located.has(Number(place!['Id']))).toBe(true);
    const want = [...expected.values()].filter((r) => located.has(Number(r['LocationId']))).map((r) => Number(r['Id']));
    expect(rows.map((r) => Number(r['Id']))).toEqual(want.sort((a, b) => a - b));
    const arrow = tableFromIPC(new Uint8Array(await (await get('/v1/odata/v4/LocationSummaries?$format=arrow&$top=50&$select=Id,Median,LatestDate')).arrayBuffer()));
    expect(arrow.numRows).toBe(50);
    expect(arrow.schema.fields.map((f) => f.name)).toEqual(['Id', 'Median', 'LatestDate']);
    const csv = await (await get('/v1/odata/v4/LocationSummaries?$format=csv&$top=5&$select=Id,CharacteristicName')).text();
    expect(csv.split('\r\n')[0]).toBe('Id,CharacteristicName');
  });

  it('refuses what it cannot filter, naming the fields it can', async () => {
    const res = await fx.app.request(`/v1/odata/v4/LocationSummaries?$filter=${enc("ActivityMediaName eq 'Surface Water'")}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/Filterable fields of LocationSummaries: .*CharacteristicName.*RegionId/);
  });

  it('OGC API – Features: the latest pH at every site in one request, each at its location\'s point', async () => {
    const res = await get('/v1/features/collections/location-summaries/items?CharacteristicName=pH&limit=10000');
    const doc = (await res.json()) as { features: { id: number; geometry: { coordinates: [number, number] }; properties: Row }[]; numberMatched: number };
    const pH = [...expected.values()].filter((r) => r['CharacteristicName'] === 'pH');
    expect(doc.numberMatched).toBe(pH.length);
    expect(doc.features.map((f) => f.id)).toEqual(pH.map((r) => Number(r['Id'])).sort((a, b) => a - b));
    const located = await allPages('/v1/odata/v4/Locations?$select=Id,Latitude,Longitude');
    const point = new Map(located.map((l) => [Number(l['Id']), [l['Longitude'], l['Latitude']]]));
    for (const f of doc.features) {
      expect(f.geometry.coordinates).toEqual(point.get(Number(f.properties['LocationId'])));
      expect(f.properties['LatestObservationId']).toBe(expected.get(f.id)!['LatestObservationId']);
    }
  });

  it('OGC API – Features: datetime is the latest result\'s date', async () => {
    const dates = [...expected.values()].map((r) => String(r['LatestDate'])).sort();
    const since = dates[Math.floor(dates.length / 2)]!;
    const doc = (await (await get(`/v1/features/collections/location-summaries/items?datetime=${since}/..&limit=10000`)).json()) as { features: { id: number }[]; numberMatched: number };
    const want = [...expected.values()].filter((r) => String(r['LatestDate']) >= since).map((r) => Number(r['Id'])).sort((a, b) => a - b);
    expect(doc.numberMatched).toBe(want.length);
    expect(doc.features.map((f) => f.id)).toEqual(want);
  });

  it('OGC API – Features: its queryables are its filterable fields, and its items page as HTML with a map', async () => {
    const queryables = (await (await get('/v1/features/collections/location-summaries/queryables')).json()) as { properties: Record<string, unknown> };
    expect(Object.keys(queryables.properties)).toEqual(expect.arrayContaining(['geometry', 'CharacteristicName', 'Median', 'LatestDate', 'RegionId', 'MonitoringLocationType']));
    const html = await get('/v1/features/collections/location-summaries/items?CharacteristicName=pH&limit=5&f=html');
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain('<svg');
  });

  it('exports as Parquet with the location\'s point, and cites the datasets of its rows', async () => {
    const parquet = await get('/v1/export/LocationSummaries?$filter=' + enc("CharacteristicName eq 'pH'"));
    expect(parquet.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(Number(parquet.headers.get('x-total-count'))).toBe([...expected.values()].filter((r) => r['CharacteristicName'] === 'pH').length);
    const citation = (await (await fx.app.request(`/v1/citation/LocationSummaries?$filter=${enc("CharacteristicName eq 'pH'")}`, { headers: { Accept: 'application/json' } })).json()) as { datasets: { DOI: string; Rows: number }[] };
    const perDoi = new Map<string, number>();
    for (const r of expected.values()) if (r['CharacteristicName'] === 'pH') perDoi.set(String(r['DOI']), (perDoi.get(String(r['DOI'])) ?? 0) + 1);
    expect(new Map(citation.datasets.map((d) => [d.DOI, d.Rows]))).toEqual(perDoi);
  });
});
