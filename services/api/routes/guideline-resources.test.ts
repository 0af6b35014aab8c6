/**
 * Guidelines, GuidelineComparisons and WaterQualityIndex (issue 45) as the API serves them. Which comparisons and
 * indices a publish computes is ingest's (ingest/guideline-*.test.ts); here the rows the fixture's publish wrote are
 * read as they are stored, and every answer of the API is checked against those rows filtered, counted and grouped
 * in plain TypeScript: the dimensions of issue 45 (`Verdict eq 'exceeds' and RegionId eq 'hub.pacific'`), keyset
 * pages, $count, $apply, exports, the OGC collections with the location's point, pins and citations.
 */
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PUBLICATION_HEADER } from '../http/paths.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

type Row = Record<string, unknown>;

let fx: FixtureApp;
let guidelines: Row[];
let comparisons: Row[];
let indices: Row[];
let pacific: Set<number>;
/** Stored beside the served fields of a comparison, for filters without a join: not served. */
const STORED_ONLY = ['MonitoringLocationType', 'ActivityMediaName', 'ActivityGroupType'];

const enc = (v: string) => encodeURIComponent(v).replace(/'/g, '%27');

async function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fx.app.request(path, { headers });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
}

async function allPages(path: string): Promise<Row[]> {
  const out: Row[] = [];
  for (let next: string | undefined = path; next; ) {
    const body = (await (await get(next)).json()) as { value: Row[]; '@odata.nextLink'?: string };
    out.push(...body.value);
    const link = body['@odata.nextLink'];
    next = link ? link.replace(/^https?:\/\/[^/]+/, '') : undefined;
  }
  return out;
}

/** A stored table's rows as JSON would carry them: integers as numbers, dates as text. */
async function stored(table: string, dates: readonly string[] = []): Promise<Row[]> {
  const cast = dates.map((d) => `, CAST("${d}" AS VARCHAR) AS "${d}"`).join('');
  const all = dates.length ? `* EXCLUDE (${dates.map((d) => `"${d}"`).join(', ')})` : '*';
  const rows = (await fx.ref.runAndReadAll(`SELECT ${all}${cast} FROM ${table} ORDER BY "Id"`)).getRowObjectsJS() as Row[];
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

beforeAll(async () => {
  fx = await openFixtureApp(inject('apiFixtureDb'));
  guidelines = await stored('guidelines');
  comparisons = await stored('guideline_comparisons', ['ActivityStartDate']);
  indices = await stored('water_quality_index');
  pacific = new Set((await allPages(`/v1/odata/v4/Locations?$filter=${enc("RegionId eq 'hub.pacific'")}&$select=Id`)).map((l) => Number(l['Id'])));
  expect(comparisons.filter((c) => c['Verdict'] === 'exceeds').length).toBeGreaterThan(0);
  expect(pacific.size).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  await fx?.close();
});

const ids = (rows: readonly Row[]) => rows.map((r) => Number(r['Id']));
const sorted = (xs: number[]) => xs.sort((a, b) => a - b);

describe('GuidelineComparisons', () => {
  it("Verdict eq 'exceeds' and RegionId eq 'hub.pacific': every such row, in keyset pages, and its $count", async () => {
    const filter = enc("Verdict eq 'exceeds' and RegionId eq 'hub.pacific'");
    const want = comparisons.filter((c) => c['Verdict'] === 'exceeds' && pacific.has(Number(c['LocationId'])));
    expect(want.length).toBeGreaterThan(0);
    const rows = await allPages(`/v1/odata/v4/GuidelineComparisons?$filter=${filter}&$top=97`);
    expect(ids(rows)).toEqual(sorted(ids(want)));
    expect(rows[0]).toEqual(Object.fromEntries(Object.entries(want.find((c) => c['Id'] === rows[0]!['Id'])!).filter(([k]) => !STORED_ONLY.includes(k))));
    const count = (await (await get(`/v1/odata/v4/GuidelineComparisons?$filter=${filter}&$count=true`)).json()) as { value: number };
    expect(count.value).toBe(want.length);
  });

  it('filters by every dimension it stores and by its own fields: medium, location type, date, value, publisher, a null Reason', async () => {
    const [first] = comparisons;
    const [type, media, publisher] = [first!['MonitoringLocationType'], first!['ActivityMediaName'], first!['Publisher']].map(String);
    const filter = `MonitoringLocationType eq '${type}' and ActivityMediaName eq '${media}' and ActivityStartDate ge 2019-01-01 and Publisher eq '${publisher}' and Reason eq null and ResultValue gt 0`;
    const want = comparisons.filter(
      (c) => c['MonitoringLocationType'] === type && c['ActivityMediaName'] === media && String(c['ActivityStartDate']) >= '2019-01-01' && c['Publisher'] === publisher && c['Reason'] === null && (c['ResultValue'] as number) > 0,
    );
    expect(want.length).toBeGreaterThan(0);
    const rows = await allPages(`/v1/odata/v4/GuidelineComparisons?$filter=${enc(filter)}&$select=Id`);
    expect(ids(rows)).toEqual(sorted(ids(want)));
  });

  it('$count and @odata.count equal the rows, from the statistics for their keys and from the rows for any other field', async () => {
    const [first] = comparisons.filter((c) => c['Verdict'] === 'exceeds' && c['ResultUnit'] !== null);
    const [publisher, unit] = [String(first!['Publisher']), String(first!['ResultUnit'])];
    // Which table answers each is pinned by query/compile-apply-own-table.test.ts.
    const cases: [filter: string, want: (c: Row) => boolean][] = [
      ["Verdict eq 'exceeds'", (c) => c['Verdict'] === 'exceeds'],
      [`Publisher eq '${publisher}' and ActivityStartYear ge 2015 and not (ProtectionLevel eq 'Acute')`, (c) => c['Publisher'] === publisher && (c['ActivityStartYear'] as number) >= 2015 && c['ProtectionLevel'] !== 'Acute'],
      // ResultUnit and Reason are fields of the rows the statistics do not keep: the count scans the comparisons.
      [`Verdict eq 'exceeds' and ResultUnit eq '${unit}'`, (c) => c['Verdict'] === 'exceeds' && c['ResultUnit'] === unit],
      ["Verdict ne 'meets' and Reason ne null", (c) => c['Verdict'] !== 'meets' && c['Reason'] !== null],
      // One verdict per result, publisher and term: counted from the statistics, which keep Governing.
      ["Governing eq true and Verdict eq 'exceeds'", (c) => c['Governing'] === true && c['Verdict'] === 'exceeds'],
      ["Governing eq false", (c) => c['Governing'] === false],
    ];
    for (const [filter, want] of cases) {
      const n = comparisons.filter(want).length;
      expect(n, filter).toBeGreaterThan(0);
      const body = (await (await get(`/v1/odata/v4/GuidelineComparisons?$filter=${enc(filter)}&$count=true`)).json()) as { value: number };
      expect(body.value, filter).toBe(n);
      const inline = (await (await get(`/v1/odata/v4/GuidelineComparisons?$filter=${enc(filter)}&$count=true&$top=0`)).json()) as { '@odata.count': number };
      expect(inline['@odata.count'], filter).toBe(n);
    }
  });

  it('serves Governing as a JSON boolean and filters it by true or false alone', async () => {
    const rows = await allPages(`/v1/odata/v4/GuidelineComparisons?$filter=${enc("Governing eq true and Verdict eq 'exceeds'")}&$select=Id,Governing,Term,Alternatives&$top=10000`);
    expect(sorted(ids(rows))).toEqual(sorted(ids(comparisons.filter((c) => c['Governing'] === true && c['Verdict'] === 'exceeds'))));
    expect(rows.every((r) => r['Governing'] === true)).toBe(true);
    expect(rows.some((r) => typeof r['Alternatives'] === 'string')).toBe(true);
    // CSV writes true and false; Arrow a Bool column, the same values as the stored rows in Id order.
    const first = comparisons.slice(0, 200);
    const csv = await (await get(`/v1/odata/v4/GuidelineComparisons?$format=csv&$top=200&$select=Id,Governing`)).text();
    expect(csv.split('\r\n').filter(Boolean).slice(1)).toEqual(first.map((c) => `${String(c['Id'])},${String(c['Governing'])}`));
    const arrow = tableFromIPC(new Uint8Array(await (await get('/v1/odata/v4/GuidelineComparisons?$format=arrow&$top=200&$select=Id,Governing')).arrayBuffer()));
    expect(String(arrow.schema.fields[1]!.type)).toBe('Bool');
    expect(arrow.getChild('Governing')!.toArray().length).toBe(200);
    expect([...arrow.getChild('Governing')!]).toEqual(first.map((c) => c['Governing']));
    for (const bad of ["Governing eq 'true'", 'Governing gt false', 'Governing eq 1']) {
      const res = await fx.app.request(`/v1/odata/v4/GuidelineComparisons?$filter=${enc(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(await res.text(), bad).toMatch(/Governing is true or false/);
    }
  });

  it('$apply=groupby((LocationId,CharacteristicName,Verdict),aggregate($count as N)) counts its rows', async () => {
    const apply = enc('groupby((LocationId,CharacteristicName,Verdict),aggregate($count as N))');
    const groups: Row[] = [];
    for (let next: string | undefined = `/v1/odata/v4/GuidelineComparisons?$apply=${apply}&$top=500`; next; ) {
      const body = (await (await get(next)).json()) as { value: Row[]; '@odata.nextLink'?: string };
      groups.push(...body.value);
      next = body['@odata.nextLink']?.replace(/^https?:\/\/[^/]+/, '');
    }
    const want = new Map<string, number>();
    for (const c of comparisons) {
      const key = JSON.stringify([c['LocationId'], c['CharacteristicName'], c['Verdict']]);
      want.set(key, (want.get(key) ?? 0) + 1);
    }
    expect(new Map(groups.map((g) => [JSON.stringify([Number(g['LocationId']), g['CharacteristicName'], g['Verdict']]), Number(g['N'])]))).toEqual(want);
  });

  it("answers the explorer's exceedance cube: governing exceedances by every facet field, and by region too", async () => {
    const fields = 'DOI,CharacteristicName,ActivityMediaName,ActivityGroupType,MonitoringLocationType,ActivityStartYear';
    const exceeds = comparisons.filter((c) => c['Governing'] === true && c['Verdict'] === 'exceeds');
    const cube = (groups: string) => allPages(`/v1/odata/v4/GuidelineComparisons?$apply=${enc(`groupby((${groups}),aggregate($count as Count))`)}&$filter=${enc("Governing eq true and Verdict eq 'exceeds'")}&$top=10000`);
    const want = new Map<string, number>();
    for (const c of exceeds) {
      const key = JSON.stringify(fields.split(',').map((f) => c[f]));
      want.set(key, (want.get(key) ?? 0) + 1);
    }
    const got = await cube(fields);
    expect(new Map(got.map((g) => [JSON.stringify(fields.split(',').map((f) => g[f])), Number(g['Count'])]))).toEqual(want);
    const regional = await cube(`RegionId,${fields}`);
    const pacificRows = regional.filter((g) => g['RegionId'] === 'hub.pacific').reduce((n, g) => n + Number(g['Count']), 0);
    expect(pacificRows).toBe(exceeds.filter((c) => pacific.has(Number(c['LocationId']))).length);
  });

  it('exports every matching row (NDJSON, CSV), counted before the first byte', async () => {
    const filter = enc("Verdict ne 'meets'");
    const want = comparisons.filter((c) => c['Verdict'] !== 'meets');
    const ndjson = await get(`/v1/export/GuidelineComparisons?$filter=${filter}&$format=ndjson`);
    expect(Number(ndjson.headers.get('x-total-count'))).toBe(want.length);
    const lines = (await ndjson.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
    expect(ids(lines)).toEqual(ids(want));
    const csv = await (await get(`/v1/export/GuidelineComparisons?$filter=${filter}&$format=csv&$select=Id,Verdict,Reason`)).text();
    expect(csv.split('\r\n')[0]).toBe('Id,Verdict,Reason');
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(want.length + 1);
  });

  it('OGC collection guideline-comparisons: Verdict=exceeds at each location\'s point, numberMatched exact', async () => {
    const located = await allPages('/v1/odata/v4/Locations?$select=Id,Latitude,Longitude');
    const point = new Map(located.map((l) => [Number(l['Id']), [l['Longitude'], l['Latitude']]]));
    const want = comparisons.filter((c) => c['Verdict'] === 'exceeds');
    const doc = (await (await get('/v1/features/collections/guideline-comparisons/items?Verdict=exceeds&limit=10000')).json()) as {
      features: { id: number; geometry: { coordinates: unknown }; properties: Row }[];
      numberMatched: number;
    };
    expect(doc.numberMatched).toBe(want.length);
    expect(doc.features.map((f) => f.id)).toEqual(sorted(ids(want)).slice(0, 10000));
    for (const f of doc.features.slice(0, 200)) expect(f.geometry.coordinates).toEqual(point.get(Number(f.properties['LocationId'])));
  });

  it('cites the datasets of its rows and the guideline publishers and sources they were compared with', async () => {
    const filter = enc("Verdict eq 'exceeds'");
    const doc = (await (await get(`/v1/citation/GuidelineComparisons?$filter=${filter}`, { Accept: 'application/json' })).json()) as {
      rows: number;
      datasets: { DOI: string; Rows: number }[];
      guidelines: { Publisher: string; Source: string | null; Rows: number }[];
    };
    const want = comparisons.filter((c) => c['Verdict'] === 'exceeds');
    expect(doc.rows).toBe(want.length);
    const perDoi = new Map<string, number>();
    for (const c of want) perDoi.set(String(c['DOI']), (perDoi.get(String(c['DOI'])) ?? 0) + 1);
    expect(new Map(doc.datasets.map((d) => [d.DOI, d.Rows]))).toEqual(perDoi);
    const guideline = new Map(guidelines.map((g) => [Number(g['Id']), g]));
    const sources = bySource(want.map((c) => guideline.get(Number(c['GuidelineId']))!));
    expect(doc.guidelines).toEqual(sources);
    const text = await (await get(`/v1/citation/GuidelineComparisons?$filter=${filter}&format=text`)).text();
    const cited = sources.find((g) => g.Source)!;
    expect(text).toContain(`- ${cited.Publisher} ${cited.Source}. ${cited.Rows} rows.`);
  });

  it('pins: a page of a publication names it, and its next link carries it', async () => {
    const first = await get('/v1/odata/v4/GuidelineComparisons?$top=10');
    const publication = first.headers.get(PUBLICATION_HEADER)!;
    expect(publication).toBeTruthy();
    const pinned = (await (await get(`/v1/odata/v4/GuidelineComparisons?$top=10&publication=${publication}`)).json()) as { '@odata.nextLink': string };
    expect(pinned['@odata.nextLink']).toContain(`publication=${publication}`);
  });
});

describe('Guidelines', () => {
  it('serves every guideline with its lists, filters by its fields, and cites its publishers and sources', async () => {
    expect(await allPages('/v1/odata/v4/Guidelines')).toEqual(guidelines);
    const ccme = await allPages(`/v1/odata/v4/Guidelines?$filter=${enc("Publisher eq 'CCME' and CharacteristicName eq 'pH'")}&$select=Id,Jurisdictions`);
    const want = guidelines.filter((g) => g['Publisher'] === 'CCME' && g['CharacteristicName'] === 'pH').map((g) => ({ Id: g['Id'], Jurisdictions: g['Jurisdictions'] }));
    expect(want.length).toBeGreaterThan(0);
    expect(ccme).toEqual(want);
    const doc = (await (await get('/v1/citation/Guidelines', { Accept: 'application/json' })).json()) as Row;
    expect(doc['datasets']).toEqual([]);
    expect(doc['rows']).toBe(guidelines.length);
    expect(doc['guidelines']).toEqual(bySource(guidelines));
  });
});

/** Rows per (Publisher, Source), ordered as SQL orders them: by publisher, then source, blanks last. */
function bySource(rows: readonly Row[]): { Publisher: string; Source: string | null; Rows: number }[] {
  const counts = new Map<string, number>();
  for (const g of rows) {
    const key = JSON.stringify([g['Publisher'], g['Source'] ?? null]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const out = [...counts].map(([key, n]) => {
    const [Publisher, Source] = JSON.parse(key) as [string, string | null];
    return { Publisher, Source, Rows: n };
  });
  const text = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  return out.sort((a, b) => text(a.Publisher, b.Publisher) || text(a.Source, b.Source));
}

describe('WaterQualityIndex', () => {
  it('filters by RegionId, LocationId, Year and Category; counts; maps as the OGC collection water-quality-index', async () => {
    // The fixture's index rows (whatever their category, or none with its Reason) at a location of the region.
    const rated = indices.find((r) => pacific.has(Number(r['LocationId'])));
    expect(rated, `${indices.length} index rows, none in hub.pacific`).toBeDefined();
    const [year, category] = [Number(rated!['Year']), rated!['Category'] as string | null];
    const is = (c: string | null) => (c === null ? 'Category eq null' : `Category eq '${c}'`);
    const filter = `${is(category)} and Year eq ${year} and RegionId eq 'hub.pacific'`;
    const want = indices.filter((r) => r['Category'] === category && r['Year'] === year && pacific.has(Number(r['LocationId'])));
    expect(ids(await allPages(`/v1/odata/v4/WaterQualityIndex?$filter=${enc(filter)}`))).toEqual(ids(want));
    const count = (await (await get(`/v1/odata/v4/WaterQualityIndex?$filter=${enc(is(category))}&$count=true`)).json()) as { value: number };
    expect(count.value).toBe(indices.filter((r) => r['Category'] === category).length);
    const where = enc(`${category === null ? 'Category IS NULL' : `Category = '${category}'`} AND Year = ${year}`);
    const doc = (await (await get(`/v1/features/collections/water-quality-index/items?filter=${where}&limit=10000`)).json()) as { features: { id: number }[]; numberMatched: number };
    const map = indices.filter((r) => r['Category'] === category && r['Year'] === year);
    expect(doc.numberMatched).toBe(map.length);
    expect(doc.features.map((f) => f.id)).toEqual(ids(map));
  });
});
