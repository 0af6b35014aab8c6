/**
 * LocationSummaries (issue 48 part 3) as a client sees them: every row the API serves is checked against a summary
 * computed here, in plain TypeScript, from the observations of the dataset files ingest published beside the
 * fixture (their Parquet files, read as rows only) — not from the production SQL. Then the table behaves as every
 * resource does: filters on its own fields and its location's (MonitoringLocationType, RegionId), keyset pages,
 * $count, $apply, exports, the OGC collection with the location's point, and citations.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { datasetFileName, plainFilesDir } from '../../../schemas/publication-files.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

interface Obs {
  readonly Id: number;
  readonly DOI: string;
  readonly MonitoringLocationID: string;
  readonly CharacteristicName: string;
  readonly ResultSampleFraction: string | null;
  readonly MethodSpeciation: string | null;
  readonly ResultUnit: string | null;
  readonly ResultValue: number | null;
  readonly ResultDetectionCondition: string | null;
  readonly ActivityStartDate: string;
  readonly ActivityStartTime: string | null;
}

type Row = Record<string, unknown>;

let fx: FixtureApp;
let files: DuckDBInstance;
let conn: DuckDBConnection;
let expected: Map<number, Row>;
let locations: Row[];

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

/** The continuous quantile (linear between the two nearest ranks), as its definition says. */
function quantile(sorted: readonly number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  return lo + 1 < sorted.length ? sorted[lo]! + (h - lo) * (sorted[lo + 1]! - sorted[lo]!) : sorted[lo]!;
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

function summarise(locationId: number, rows: readonly Obs[]): Omit<Row, 'Id'> {
  const values = rows.map((r) => r.ResultValue).filter((v): v is number => v !== null).sort((a, b) => a - b);
  const dates = rows.map((r) => r.ActivityStartDate).sort();
  const latest = rows.reduce((a, b) => (later(b, a) ? b : a));
  const first = rows[0]!;
  return {
    LocationId: locationId,
    DOI: first.DOI,
    CharacteristicName: first.CharacteristicName,
    ResultSampleFraction: first.ResultSampleFraction,
    MethodSpeciation: first.MethodSpeciation,
    ResultUnit: first.ResultUnit,
    Count: rows.length,
    NonDetects: rows.length - values.length,
    FirstDate: dates[0],
    LastDate: dates[dates.length - 1],
    Min: values.length ? values[0] : null,
    Max: values.length ? values[values.length - 1] : null,
    Mean: values.length ? values.reduce((s, v) => s + v, 0) / values.length : null,
    Median: values.length ? quantile(values, 0.5) : null,
    P10: values.length ? quantile(values, 0.1) : null,
    P90: values.length ? quantile(values, 0.9) : null,
    LatestObservationId: latest.Id,
    LatestDate: latest.ActivityStartDate,
    LatestTime: latest.ActivityStartTime,
    LatestValue: latest.ResultValue,
    LatestDetectionCondition: latest.ResultDetectionCondition,
  };
}

/** The summaries the definition gives, by Id (LocationId × 2^16 + the group's rank in its location). */
function reference(obs: readonly Obs[], locationIdOf: ReadonlyMap<string, number>): Map<number, Row> {
  const groups = new Map<string, Obs[]>();
  for (const o of obs) {
    const key = JSON.stringify([o.DOI, o.MonitoringLocationID, o.CharacteristicName, o.ResultSampleFraction, o.MethodSpeciation, o.ResultUnit]);
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(o);
  }
  const byLocation = new Map<number, Obs[][]>();
  for (const rows of groups.values()) {
    const id = locationIdOf.get(JSON.stringify([rows[0]!.DOI, rows[0]!.MonitoringLocationID]));
    if (id === undefined) throw new Error(`no location for ${rows[0]!.MonitoringLocationID}`);
    (byLocation.get(id) ?? byLocation.set(id, []).get(id)!).push(rows);
  }
  const out = new Map<number, Row>();
  for (const [locationId, list] of byLocation) {
    const keys = ['CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultUnit'] as const;
    list.sort((a, b) => keys.reduce((c, k) => c || compareText(a[0]![k], b[0]![k]), 0));
    list.forEach((rows, rank) => {
      const Id = locationId * 2 ** 16 + rank;
      out.set(Id, { Id, ...summarise(locationId, rows) });
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
    `SELECT "Id"::DOUBLE AS "Id", "DOI", "MonitoringLocationID", "CharacteristicName", "ResultSampleFraction", "MethodSpeciation", "ResultUnit", "ResultValue",
       "ResultDetectionCondition", CAST("ActivityStartDate" AS VARCHAR) AS "ActivityStartDate", CAST("ActivityStartTime" AS VARCHAR) AS "ActivityStartTime"
     FROM read_parquet([${list}])`,
  );
  const obs = read.getRowObjectsJS() as unknown as Obs[];
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
    if (typeof value === 'number' && typeof got === 'number' && ['Mean', 'Median', 'P10', 'P90'].includes(name)) {
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
    // The fixture has non-detects, and summaries of many values, whose quantiles interpolate.
    expect(served.some((r) => Number(r['NonDetects']) > 0)).toBe(true);
    expect(served.some((r) => Number(r['Count']) - Number(r['NonDetects']) > 10)).toBe(true);
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
