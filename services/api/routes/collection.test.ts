/**
 * The collection endpoints over HTTP (`app.request()`), against a real published DuckDB file built from the
 * sample generator by the ingest CLI. Expected answers come from straightforward reference SQL on the
 * observations table — never from the statistics or the code under test.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import type { Database } from '../db/database.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

const BASE = '/v1/odata/v4';
let fixture: FixtureApp;
let db: Database;
let app: Hono;
let ref: DuckDBConnection;

beforeAll(async () => {
  fixture = await openFixtureApp(inject('apiFixtureDb'));
  ({ db, app, ref } = fixture);
});
afterAll(() => fixture.close());

/** A URL with each option value percent-encoded, as the clients send it. */
export function url(resource: string, options: Record<string, string | number> = {}): string {
  const qs = Object.entries(options)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');
  return `${BASE}/${resource}${qs ? `?${qs}` : ''}`;
}

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers });
  const text = await res.text();
  return { res, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}

/** Follows @odata.nextLink to the end and returns every row. */
async function pageAll(first: string, via: 'body' | 'link' = 'body'): Promise<{ rows: Record<string, unknown>[]; pages: number }> {
  const rows: Record<string, unknown>[] = [];
  let next: string | undefined = first;
  let pages = 0;
  while (next) {
    const { res, body } = await get(next);
    expect(res.status).toBe(200);
    rows.push(...body.value);
    pages++;
    const link = res.headers.get('link');
    const fromBody = body['@odata.nextLink'] as string | undefined;
    // Both forms always agree; datastreamjs reads the header with a lazy match from the first '<'.
    expect(link ? /<(.*?)>; rel="next"/.exec(link)?.[1] : undefined).toBe(fromBody);
    const target = via === 'body' ? fromBody : link ? /<(.*?)>; rel="next"/.exec(link)?.[1] : undefined;
    next = target ? new URL(target).pathname + new URL(target).search : undefined;
    if (pages > 10_000) throw new Error('paging does not end');
  }
  return { rows, pages };
}

async function refIds(sql: string): Promise<number[]> {
  const reader = await ref.runAndReadAll(sql);
  return (reader.getColumns()[0] ?? []).map((v) => Number(v));
}

async function refScalar(sql: string): Promise<unknown> {
  return (await ref.runAndReadAll(sql)).getColumns()[0]![0];
}

describe('resources', () => {
  it.each(['Metadata', 'Locations', 'Observations', 'Records'])('%s answers a JSON page with OData headers', async (resource) => {
    const { res, body } = await get(url(resource, { $top: 5 }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('odata-version')).toBe('4.0');
    expect(Array.isArray(body.value)).toBe(true);
    expect(body.value.length).toBeGreaterThan(0);
    expect(body['@odata.context']).toBe(`http://localhost${BASE}/$metadata#${resource}`);
  });

  it('serves the catalogue fields in catalogue order, nulls as null, types as JSON types', async () => {
    const { body } = await get(url('Observations', { $top: 1 }));
    const row = body.value[0];
    expect(Object.keys(row)).toEqual(
      (await import('../../../schemas/index.js')).observationFields.map((f) => f.name),
    );
    expect(typeof row.Id).toBe('number');
    expect(typeof row.LocationId).toBe('number');
    expect(row.ActivityStartDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(row.ActivityStartTime === null || /^\d{2}:\d{2}:\d{2}$/.test(row.ActivityStartTime)).toBe(true);
    expect(Object.values(row)).not.toContain(undefined);
    const meta = (await get(url('Metadata', { $top: 1 }))).body.value[0];
    expect(meta.CreateTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Array.isArray(meta.TemporalExtent)).toBe(true);
    expect(meta.TemporalExtent).toHaveLength(2);
    expect(Array.isArray(meta.TopicCategoryCode) || meta.TopicCategoryCode === null).toBe(true);
  });

  it('ignores the Accept header for JSON (clients send application/vnd.api+json): never a 406', async () => {
    const { res } = await get(url('Locations', { $top: 1 }), { Accept: 'application/vnd.api+json' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('$select', () => {
  it('returns only the selected fields, in catalogue order, with spaces around commas', async () => {
    const { body } = await get(url('Locations', { $select: 'Name , ID,Id', $top: 2 }));
    expect(Object.keys(body.value[0])).toEqual(['Id', 'ID', 'Name']);
    expect(body['@odata.context']).toBe(`http://localhost${BASE}/$metadata#Locations(Id,ID,Name)`);
    const mlid = await refScalar(`SELECT MonitoringLocationID FROM locations ORDER BY Id LIMIT 1`);
    expect(body.value[0].ID).toBe(mlid);
  });

  it('names an unknown field and lists the valid ones', async () => {
    const { res, body } = await get(url('Observations', { $select: 'Id,Bogus' }));
    expect(res.status).toBe(400);
    expect(body.message).toContain("'Bogus'");
    expect(body.message).toContain('CharacteristicName');
    expect(body.errors[0]).toMatchObject({ status: '400', code: 'unknown_field', source: { parameter: '$select' } });
  });

  it('is case-sensitive: id is not Id', async () => {
    const { res, body } = await get(url('Locations', { $select: 'id' }));
    expect(res.status).toBe(400);
    expect(body.message).toContain("did you mean 'Id'");
  });
});

describe('$filter against reference SQL', () => {
  const cases: [string, string][] = [
    ["CharacteristicName eq 'pH'", `CharacteristicName = 'pH'`],
    ["CharacteristicName ne 'pH'", `CharacteristicName <> 'pH'`],
    ["CharacteristicName in ('pH','Dissolved oxygen (DO)')", `CharacteristicName IN ('pH','Dissolved oxygen (DO)')`],
    ['ActivityStartYear ge 2018 and ActivityStartYear lte 2019', `ActivityStartYear BETWEEN 2018 AND 2019`],
    ["ActivityStartYear gt '2019'", `ActivityStartYear > 2019`],
    ['ActivityStartDateYear lt 2012', `ActivityStartYear < 2012`],
    ["not (CharacteristicName eq 'pH') and ActivityStartYear gte 2020", `NOT (CharacteristicName = 'pH') AND ActivityStartYear >= 2020`],
    // `and` binds tighter than `or`, as clients rely on when they prepend `LocationId eq N and `.
    ["LocationId eq 3 and CharacteristicName eq 'pH' or ActivityStartYear eq 2011", `(LocationId = 3 AND CharacteristicName = 'pH') OR ActivityStartYear = 2011`],
    ["LocationId eq 3 and (CharacteristicName eq 'pH' or ActivityStartYear eq 2011)", `LocationId = 3 AND (CharacteristicName = 'pH' OR ActivityStartYear = 2011)`],
    ["RegionId eq 'admin.4.ca.ab'", `LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.4.ca.ab')`],
    ["RegionId ne 'admin.4.ca.ab' and CharacteristicName eq 'pH'", `LocationId NOT IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.4.ca.ab') AND CharacteristicName = 'pH'`],
    ["RegionId in ('hub.pacific','hub.atlantic')", `LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId IN ('hub.pacific','hub.atlantic'))`],
    ["startswith(CharacteristicName, 'Temp')", `CharacteristicName LIKE 'Temp%'`],
    ["contains(ActivityMediaName, 'Water') and endswith(MonitoringLocationType, 'Stream')", `ActivityMediaName LIKE '%Water%' AND MonitoringLocationType LIKE '%Stream'`],
    ["ActivityGroupType eq 'Lab Sample'", `ActivityGroupType = 'Lab Sample'`],
    ["LocationId eq '2'", `LocationId = 2`],
    ["LocationId in (1, 2, 5)", `LocationId IN (1,2,5)`],
    // Exceedances and date ranges: row-level, counted from the observations rather than the statistics.
    ["CharacteristicName eq 'pH' and ResultValue gt 8", `CharacteristicName = 'pH' AND ResultValue > 8`],
    ["CharacteristicName eq 'pH' and (ResultValue lt 6.5 or ResultValue gt '8.5')", `CharacteristicName = 'pH' AND (ResultValue < 6.5 OR ResultValue > 8.5)`],
    ['ResultValue eq null', `ResultValue IS NULL`],
    // OData: null is not equal to 3, so `ne` keeps the rows without a value, and `not` stays its complement.
    ['ResultValue ne 3', `ResultValue IS DISTINCT FROM 3`],
    ['not (ResultValue gt 10)', `NOT COALESCE(ResultValue > 10, false)`],
    ["not (ResultValue gt 10 or CharacteristicName eq 'pH') and ActivityStartYear ge 2015", `NOT (COALESCE(ResultValue > 10, false) OR CharacteristicName = 'pH') AND ActivityStartYear >= 2015`],
    ["ResultValue gt 13 or CharacteristicName eq 'pH'", `COALESCE(ResultValue > 13, false) OR CharacteristicName = 'pH'`],
    ["ActivityStartDate ge 2020-06-01 and ActivityStartDate lt '2020-09-01'", `ActivityStartDate >= DATE '2020-06-01' AND ActivityStartDate < DATE '2020-09-01'`],
    ["RegionId eq 'admin.2.ca' and ActivityStartDate eq 2019-07-15", `LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.2.ca') AND ActivityStartDate = DATE '2019-07-15'`],
  ];

  it.each(cases)('Observations ?$filter=%s pages to exactly the reference rows', async (filter, where) => {
    const expected = await refIds(`SELECT Id FROM observations WHERE ${where} ORDER BY Id`);
    const { rows } = await pageAll(url('Observations', { $filter: filter, $select: 'Id', $top: 2000 }));
    expect(rows.map((r) => r['Id'])).toEqual(expected);
    const { body } = await get(url('Records', { $filter: filter, $count: 'true' }));
    expect(body).toEqual({ value: expected.length });
  });

  // Regression: a LIMIT above the region semi-join ran as DuckDB's streaming limit and a page skipped a whole
  // 2,048-row vector (Ids 1995–2048 of the fixture); region filters scan the regions' Id ranges instead.
  it.each([
    ["RegionId eq 'admin.2.ca'", `LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.2.ca')`],
    ["RegionId in ('hub.pacific','admin.4.ca.ab') and CharacteristicName ne 'pH'", `LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId IN ('hub.pacific','admin.4.ca.ab')) AND CharacteristicName <> 'pH'`],
    ["startswith(RegionId, 'admin.4') and RegionId eq 'admin.2.ca'", `LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId LIKE 'admin.4%')`],
    ["RegionId ne 'admin.4.ca.ab' or CharacteristicName eq 'pH'", `LocationId NOT IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.4.ca.ab') OR CharacteristicName = 'pH'`],
  ])('region filter %s pages without skipping rows at any page boundary', async (filter, where) => {
    const expected = await refIds(`SELECT Id FROM observations WHERE ${where} ORDER BY Id`);
    expect(expected.length).toBeGreaterThan(997);
    const { rows } = await pageAll(url('Records', { $filter: filter, $select: 'Id', $top: 997 }));
    expect(rows.map((r) => r['Id'])).toEqual(expected);
  });

  it('coarse by fine: Locations with a pH observation in 2020 (the same observation)', async () => {
    const filter = "CharacteristicName eq 'pH' and ActivityStartYear eq 2020";
    const expected = await refIds(
      `SELECT DISTINCT LocationId FROM observations WHERE CharacteristicName = 'pH' AND ActivityStartYear = 2020 ORDER BY 1`,
    );
    expect(expected.length).toBeGreaterThan(0);
    const { rows } = await pageAll(url('Locations', { $filter: filter, $select: 'Id' }));
    expect(rows.map((r) => r['Id'])).toEqual(expected);
    // The clients' partition pattern covers exactly the matching observations.
    let total = 0;
    for (const id of expected) {
      const { body } = await get(url('Observations', { $filter: `LocationId eq ${id} and ${filter}`, $count: 'true' }));
      total += body.value;
    }
    expect(total).toBe(Number(await refScalar(`SELECT count(*) FROM observations WHERE CharacteristicName = 'pH' AND ActivityStartYear = 2020`)));
  });

  it("exceedances through the clients' partition pattern: Locations first, then LocationId eq N and the same filter", async () => {
    const filter = "CharacteristicName eq 'pH' and ResultValue gt 8";
    const expected = await refIds(`SELECT Id FROM observations WHERE CharacteristicName = 'pH' AND ResultValue > 8 ORDER BY Id`);
    expect(expected.length).toBeGreaterThan(0);
    const { rows: locations } = await pageAll(url('Locations', { $filter: filter, $select: 'Id' }));
    const ids: unknown[] = [];
    for (const { Id } of locations) {
      const { rows } = await pageAll(url('Observations', { $filter: `LocationId eq ${Id} and ${filter}`, $select: 'Id' }));
      expect(rows.length).toBeGreaterThan(0);
      ids.push(...rows.map((r) => r['Id']));
    }
    expect(ids.sort((a, b) => Number(a) - Number(b))).toEqual(expected);
  });

  it('coarse by fine on Metadata: datasets with a location in a region measuring pH', async () => {
    const expected = (
      await ref.runAndReadAll(
        `SELECT DISTINCT DOI FROM observations WHERE CharacteristicName = 'pH' AND LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.2.ca') ORDER BY 1`,
      )
    ).getColumns()[0];
    const { body } = await get(url('Metadata', { $filter: "CharacteristicName eq 'pH' and RegionId eq 'admin.2.ca'", $select: 'DOI' }));
    expect(body.value.map((r: { DOI: string }) => r.DOI).sort()).toEqual(expected);
  });

  it('bounding boxes on Locations, with quoted and unquoted numbers', async () => {
    const expected = await refIds(`SELECT Id FROM locations WHERE Latitude > 49 AND Latitude < 60 AND Longitude > -120 AND Longitude < -110 ORDER BY Id`);
    const { rows } = await pageAll(
      url('Locations', { $filter: "Latitude gt '49' and Latitude lt 60 and LongitudeNormalized gt -120.0 and Longitude lt '-110'", $select: 'Id' }),
    );
    expect(rows.map((r) => r['Id'])).toEqual(expected);
  });

  it('CreateTimestamp with quoted dates, unquoted dates and date-times', async () => {
    const all = Number(await refScalar(`SELECT count(*) FROM datasets WHERE CreateTimestamp > TIMESTAMP '2000-01-01'`));
    for (const f of ["CreateTimestamp gt '2000-01-01'", 'CreateTimestamp gt 2000-01-01', 'CreateTimestamp gt 2000-01-01T00:00:00Z']) {
      const { body } = await get(url('Metadata', { $filter: f, $count: 'true' }));
      expect(body.value).toBe(all);
    }
  });

  it('eq null is IS NULL', async () => {
    const expected = Number(await refScalar(`SELECT count(*) FROM datasets WHERE CreateTimestamp IS NULL`));
    const { body } = await get(url('Metadata', { $filter: 'CreateTimestamp eq null', $count: 'true' }));
    expect(body.value).toBe(expected);
  });

  it.each([
    ['ActivityStartYear eq 2020.5', 'invalid_value', 'whole number'],
    ["LocationId eq 'abc'", 'invalid_value', 'LocationId'],
    ['CharacteristicName eq pH', 'unsupported_expression', 'pH'],
    ["ResultComment eq 'x'", 'not_filterable', "'ResultComment' cannot be used in $filter on Observations: no resource of such rows filters by it; $select it"],
    ["Name eq 'Bow River'", 'not_filterable', 'filter Locations by it, then narrow Observations by what that returns (LocationId eq <Id>)'],
    ['ActivityStartDate ge 2020-06-01T00:00:00Z', 'invalid_value', 'ActivityStartDate wants a date'],
    ["ActivityStartDate ge '2021-02-30'", 'invalid_value', 'ActivityStartDate wants a date'],
    ["ResultValue gt 'high'", 'invalid_value', 'ResultValue wants a number'],
    ['Nope eq 1', 'unknown_field', 'Nope'],
    ["RegionId gt 'a'", 'invalid_value', 'RegionId'],
  ])('%s → 400 %s', async (filter, code, mention) => {
    const { res, body } = await get(url('Observations', { $filter: filter }));
    expect(res.status).toBe(400);
    expect(body.errors[0].code).toBe(code);
    expect(body.errors[0].source.parameter).toBe('$filter');
    expect(body.message).toContain(mention);
  });
});

describe('paging', () => {
  it('follows @odata.nextLink and the Link header to the same rows, no duplicates or gaps', async () => {
    const filter = "CharacteristicName in ('pH','Temperature, water')";
    const expected = await refIds(`SELECT Id FROM observations WHERE CharacteristicName IN ('pH','Temperature, water') ORDER BY Id`);
    const viaBody = await pageAll(url('Records', { $filter: filter, $select: 'Id', $top: 777 }), 'body');
    const viaLink = await pageAll(url('Records', { $filter: filter, $select: 'Id', $top: 777 }), 'link');
    expect(viaBody.rows.map((r) => r['Id'])).toEqual(expected);
    expect(viaLink.rows.map((r) => r['Id'])).toEqual(expected);
    expect(viaBody.pages).toBe(Math.ceil(expected.length / 777) || 1);
  });

  it('carries every option in the next link, percent-encoded, plus the new $skiptoken', async () => {
    const { body, res } = await get(url('Observations', { $select: 'Id,DOI', $filter: "CharacteristicName eq 'pH'", $top: 3 }));
    const next = new URL(body['@odata.nextLink']);
    expect(next.origin).toBe('http://localhost');
    expect(next.search).not.toMatch(/[ ']/);
    expect(next.searchParams.get('$select')).toBe('Id,DOI');
    expect(next.searchParams.get('$filter')).toBe("CharacteristicName eq 'pH'");
    expect(next.searchParams.get('$top')).toBe('3');
    expect(next.searchParams.get('$skiptoken')).toBe(`Id:${body.value[2].Id}`);
    // next first; the signposting links (describedby: the citation of the same query) follow it.
    expect(res.headers.get('link')).toMatch(/^<[^>]+>; rel="next", <[^>]+\/v1\/citation\/Observations\?[^>]+>; rel="describedby"/);
    expect(res.headers.get('link')!.split(', ')[0]).toBe(`<${body['@odata.nextLink']}>; rel="next"`);
  });

  it('omits the next link on the last page (top+1 rows decide, no second count)', async () => {
    const n = Number(await refScalar(`SELECT count(*) FROM observations WHERE LocationId = 1`));
    const { body, res } = await get(url('Observations', { $filter: 'LocationId eq 1', $top: n }));
    expect(body.value).toHaveLength(n);
    expect(body['@odata.nextLink']).toBeUndefined();
    expect(res.headers.get('link')).not.toContain('rel="next"');
  });

  it('pages Metadata by UUID', async () => {
    const expected = (await ref.runAndReadAll(`SELECT CAST(Id AS VARCHAR) FROM datasets ORDER BY Id`)).getColumns()[0];
    const { rows } = await pageAll(url('Metadata', { $select: 'Id', $top: 1 }));
    expect(rows.map((r) => r['Id'])).toEqual(expected);
  });

  it('uses PUBLIC_BASE_URL, else trusted forwarded headers, for links', async () => {
    const behind = createApp({ acquire: () => db.acquire(), links: { trustProxy: true } });
    const res = await behind.request(url('Observations', { $top: 1 }), {
      headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org' },
    });
    expect((await res.json())['@odata.nextLink']).toMatch(/^https:\/\/api\.example\.org\/v1\/odata\/v4\/Observations\?/);
    const untrusted = await app.request(url('Observations', { $top: 1 }), { headers: { 'X-Forwarded-Host': 'evil.example' } });
    expect((await untrusted.json())['@odata.nextLink']).toMatch(/^http:\/\/localhost\//);
    const fixed = createApp({ acquire: () => db.acquire(), links: { trustProxy: true, publicBaseUrl: 'https://data.example.org/' } });
    const r3 = await fixed.request(url('Observations', { $top: 1 }), { headers: { 'X-Forwarded-Host': 'other.example' } });
    expect((await r3.json())['@odata.nextLink']).toMatch(/^https:\/\/data\.example\.org\/v1\/odata\/v4\//);
  });

  it.each([
    ['Id:abc', 'Observations'],
    ['1234', 'Observations'],
    ['Id:12', 'Metadata'],
  ])('a malformed $skiptoken %s is a 400', async (token, resource) => {
    const { res, body } = await get(url(resource, { $skiptoken: token }));
    expect(res.status).toBe(400);
    expect(body.errors[0].code).toBe('invalid_skiptoken');
  });
});

describe('$count', () => {
  it('answers {"value": N} with a JSON number and no links, ignoring $top/$select/$skiptoken', async () => {
    const n = Number(await refScalar(`SELECT count(*) FROM observations`));
    const { res, text } = await get(url('Observations', { $count: 'true', $top: 5, $select: 'Id', $skiptoken: 'Id:10' }));
    expect(text).toBe(`{"value":${n}}`);
    expect(res.headers.get('link')).toBeNull();
  });
});

describe('Server-Timing', () => {
  const stages = (res: Response) => (res.headers.get('server-timing') ?? '').split(', ').map((s) => s.replace(/;dur=\d+\.\d$/, ''));

  it('a page names parse, plan, execute and first-byte, each with its duration', async () => {
    const { res } = await get(url('Records', { $top: 5 }));
    expect(res.headers.get('server-timing')).toMatch(/^parse;dur=\d+\.\d, plan;dur=\d+\.\d, execute;dur=\d+\.\d, first-byte;dur=\d+\.\d$/);
  });

  it('a count and an aggregate, built whole, name the first three', async () => {
    expect(stages((await get(url('Records', { $count: 'true' }))).res)).toEqual(['parse', 'plan', 'execute']);
    expect(stages((await get(url('Records', { $apply: 'groupby((CharacteristicName),aggregate($count as Count))' }))).res)).toEqual(['parse', 'plan', 'execute']);
  });
});

describe('$top=0', () => {
  const filter = "CharacteristicName eq 'pH'";

  it.each(['Metadata', 'Locations', 'Observations', 'Records'])('%s: $top=0&$count=true is an empty page with the exact @odata.count', async (resource) => {
    const { res, body } = await get(url(resource, { $top: 0, $count: 'true' }));
    expect(res.status).toBe(200);
    const table = resource === 'Metadata' ? 'datasets' : resource === 'Locations' ? 'locations' : 'observations';
    expect(body['@odata.count']).toBe(Number(await refScalar(`SELECT count(*) FROM ${table}`)));
    expect(body.value).toEqual([]);
    expect(body['@odata.context']).toContain(`$metadata#${resource}`);
    expect(body['@odata.nextLink']).toBeUndefined();
    expect(res.headers.get('link')).not.toContain('rel="next"');
  });

  it('counts what the filter matches, as $count=true does', async () => {
    const counted = (await get(url('Observations', { $filter: filter, $count: 'true' }))).body.value;
    expect(counted).toBe(Number(await refScalar(`SELECT count(*) FROM observations WHERE CharacteristicName = 'pH'`)));
    const { body } = await get(url('Observations', { $filter: filter, $top: 0, $count: 'true' }));
    expect(body['@odata.count']).toBe(counted);
  });

  it('without $count: an empty page and no next link, in every format', async () => {
    const json = await get(url('Records', { $filter: filter, $top: 0 }));
    expect(json.res.status).toBe(200);
    expect(json.body.value).toEqual([]);
    expect(json.body).not.toHaveProperty('@odata.count');
    expect(json.body).not.toHaveProperty('@odata.nextLink');
    const csv = await get(url('Records', { $top: 0, $format: 'csv', $select: 'Id,DOI' }));
    expect(csv.text).toBe('Id,DOI\r\n');
    expect(csv.res.headers.get('link')).not.toContain('rel="next"');
    const { tableFromIPC } = await import('apache-arrow');
    const arrow = await app.request(url('Records', { $top: 0, $format: 'arrow', $select: 'Id,DOI' }));
    const table = tableFromIPC(new Uint8Array(await arrow.arrayBuffer()));
    expect([table.numRows, table.schema.fields.map((f) => f.name)]).toEqual([0, ['Id', 'DOI']]);
  });

  it('$apply with $top=0 answers no group and no next link', async () => {
    const { body } = await get(url('Records', { $apply: 'groupby((CharacteristicName),aggregate($count as Count))', $top: 0 }));
    expect(body.value).toEqual([]);
    expect(body['@odata.nextLink']).toBeUndefined();
  });
});

describe('CSV', () => {
  it('$format=csv and Accept: text/csv give RFC 4180 rows with the catalogue header', async () => {
    const a = await get(url('Records', { $format: 'csv', $top: 50, $select: 'Id,DOI,ResultComment' }));
    const b = await get(url('Records', { $top: 50, $select: 'Id,DOI,ResultComment' }), { Accept: 'text/csv' });
    expect(a.res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(a.text).toBe(b.text);
    expect(a.text.split('\r\n')[0]).toBe('Id,DOI,ResultComment');
    expect(a.res.headers.get('link')).toMatch(/\$format=csv/);
  });
});

describe('errors', () => {
  it.each([
    [url('Observations', { $orderby: 'Id' }), 400, 'unsupported_option'],
    [url('Observations', { $skip: 10 }), 400, 'unsupported_option'],
    [url('Observations', { $expand: 'x' }), 400, 'unsupported_option'],
    [url('Observations', { $top: -1 }), 400, 'invalid_top'],
    [url('Observations', { $top: 10001 }), 400, 'invalid_top'],
    [url('Observations', { $top: 'ten' }), 400, 'invalid_top'],
    [url('Observations', { $count: 'maybe' }), 400, 'invalid_count'],
    [`${BASE}/Nope`, 404, 'not_found'],
    ['/elsewhere', 404, 'not_found'],
  ])('%s → %i %s', async (path, status, code) => {
    const { res, body } = await get(path);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(typeof body.message).toBe('string');
    expect(body.errors[0]).toMatchObject({ status: String(status), code });
    expect(body.errors[0].detail).toBe(body.message);
  });

  it('an undecodable query string is 400 with {"message": null} and the reason in errors', async () => {
    const { res, body } = await get(`${BASE}/Observations?$top=%zz`);
    expect(res.status).toBe(400);
    expect(body.message).toBeNull();
    expect(body.errors[0].code).toBe('undecodable_query');
  });

  it('accepts %24 for $ and + for spaces', async () => {
    const a = await get(`${BASE}/Observations?%24filter=CharacteristicName+eq+%27pH%27&%24top=3&%24select=Id`);
    const b = await get(url('Observations', { $filter: "CharacteristicName eq 'pH'", $top: 3, $select: 'Id' }));
    expect(a.res.status).toBe(200);
    expect(a.body.value).toEqual(b.body.value);
  });

  it('other methods are 405 with Allow', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await app.request(url('Observations'), { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect((await res.json()).errors[0].code).toBe('method_not_allowed');
    }
  });
});

describe('$apply groupby from the statistics table', () => {
  it.each([
    ['groupby((CharacteristicName,ActivityStartYear),aggregate($count as Count))', undefined, 'CharacteristicName, ActivityStartYear', ''],
    ["filter(ActivityStartYear ge 2015)/groupby((MonitoringLocationType),aggregate($count as N))", undefined, 'MonitoringLocationType', 'WHERE ActivityStartYear >= 2015'],
    ['groupby((DOI,ActivityGroupType),aggregate($count as Count))', "CharacteristicName eq 'pH'", 'DOI, ActivityGroupType', "WHERE CharacteristicName = 'pH'"],
    ["filter(ResultValue gt 8)/groupby((CharacteristicName),aggregate($count as N))", undefined, 'CharacteristicName', 'WHERE ResultValue > 8'],
    ['groupby((ActivityMediaName,ActivityStartYear),aggregate($count as N))', "ActivityStartDate ge 2019-05-01 and CharacteristicName eq 'pH'", 'ActivityMediaName, ActivityStartYear', "WHERE ActivityStartDate >= DATE '2019-05-01' AND CharacteristicName = 'pH'"],
  ])('%s (filter %s) equals a brute-force GROUP BY', async (apply, filter, groupCols, where) => {
    const alias = /as (\w+)/.exec(apply)![1]!;
    const reference = await ref.runAndReadAll(`SELECT ${groupCols}, count(*) AS n FROM observations ${where} GROUP BY ALL ORDER BY ${groupCols}`);
    const expected = reference.getRowObjectsJson().map((r) => {
      const { n, ...groups } = r as Record<string, unknown>;
      return { ...groups, [alias]: Number(n) };
    });
    const rows: unknown[] = [];
    let next: string | undefined = url('Observations', { $apply: apply, ...(filter ? { $filter: filter } : {}), $top: 7 });
    while (next) {
      const { res, body } = await get(next);
      expect(res.status).toBe(200);
      rows.push(...body.value);
      next = body['@odata.nextLink'] ? new URL(body['@odata.nextLink']).pathname + new URL(body['@odata.nextLink']).search : undefined;
    }
    expect(rows).toEqual(expected);
  });

  it('groups by RegionId through location membership', async () => {
    const reference = await ref.runAndReadAll(
      `SELECT r.RegionId, count(*) AS n FROM observations o JOIN location_regions r ON r.LocationId = o.LocationId GROUP BY 1 ORDER BY 1`,
    );
    const { body } = await get(url('Records', { $apply: 'groupby((RegionId),aggregate($count as Count))', $top: 10000 }));
    expect(body.value).toEqual(reference.getRowObjectsJson().map((r) => ({ RegionId: r['RegionId'], Count: Number(r['n']) })));
  });

  it.each([
    ["CharacteristicName eq 'pH'", 'groupby((RegionId),aggregate($count as N))', `SELECT r.RegionId AS g, count(*) AS n FROM observations o JOIN location_regions r ON r.LocationId = o.LocationId WHERE o.CharacteristicName = 'pH' GROUP BY 1 ORDER BY 1`],
    ["RegionId eq 'admin.4.ca.ab'", 'groupby((ActivityGroupType),aggregate($count as N))', `SELECT ActivityGroupType AS g, count(*) AS n FROM observations WHERE LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.4.ca.ab') GROUP BY 1 ORDER BY 1`],
    // Every region of the Pacific hub's locations, not the hub alone: the region rollup cannot answer this one.
    ["RegionId eq 'hub.pacific'", 'groupby((RegionId),aggregate($count as N))', `SELECT r.RegionId AS g, count(*) AS n FROM observations o JOIN location_regions r ON r.LocationId = o.LocationId WHERE o.LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId = 'hub.pacific') GROUP BY 1 ORDER BY 1`],
    ["CharacteristicName eq 'pH' and ResultValue gt 8", 'groupby((RegionId),aggregate($count as N))', `SELECT r.RegionId AS g, count(*) AS n FROM observations o JOIN location_regions r ON r.LocationId = o.LocationId WHERE o.CharacteristicName = 'pH' AND o.ResultValue > 8 GROUP BY 1 ORDER BY 1`],
  ])('filter %s, %s equals a brute-force GROUP BY over region membership', async (filter, apply, reference) => {
    const expected = (await ref.runAndReadAll(reference)).getRowObjectsJson().map((r) => [r['g'], Number(r['n'])]);
    expect(expected.length).toBeGreaterThan(1);
    const { body } = await get(url('Records', { $filter: filter, $apply: apply, $top: 10000 }));
    expect(body.value.map((r: Record<string, unknown>) => Object.values(r))).toEqual(expected);
  });

  it.each([
    ['groupby((ResultValue),aggregate($count as Count))', 'Observations'],
    ['groupby((CharacteristicName),aggregate(MonitoringLocationID with sum as Total))', 'Observations'],
    ['groupby((CharacteristicName),aggregate($count as Count))', 'Locations'],
  ])('%s on %s is a 400 that says what is supported', async (apply, resource) => {
    const { res, body } = await get(url(resource, { $apply: apply }));
    expect(res.status).toBe(400);
    expect(body.errors[0].code).toBe('unsupported_apply');
    expect(body.message).toMatch(/group ?by|Observations|\$count/i);
  });
});

describe('$apply pages are bounded like row pages (regression: a 16 KB alias repeated in 10,000 groups was built whole)', () => {
  const byLocation = (alias: string) => url('Records', { $apply: `groupby((LocationId),aggregate($count as ${alias}))`, $top: 10000 });

  it('an alias longer than an OData identifier (128 characters) is a 400 naming its length', async () => {
    const { res, body } = await get(byLocation('A'.repeat(10_000)));
    expect(res.status).toBe(400);
    expect(body.errors[0]).toMatchObject({ code: 'unsupported_apply', source: { parameter: '$apply' } });
    expect(body.message).toMatch(/10000 characters long; an OData identifier has at most 128/);
    expect((await get(byLocation('A'.repeat(128)))).res.status).toBe(200);
  });

  it('a page over MAX_PAGE_BYTES is a 413 before any byte, as a row page is', async () => {
    const limited = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, limits: { maxPageBytes: 1024 } });
    const res = await limited.request(byLocation('Count'));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toMatch(/groups\); the limit is/);
    expect((await limited.request(url('Records', { $apply: 'groupby((ActivityMediaName),aggregate($count as Count))' }))).status).toBe(200);
  });

  it('is streamed a slice of groups at a time, and any alias OData allows is a plain key (__proto__ too)', async () => {
    const res = await app.request(byLocation('__proto__'));
    const chunks: Uint8Array[] = [];
    for await (const chunk of res.body!) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { value: Record<string, unknown>[] };
    const locations = Number(await refScalar('SELECT count(DISTINCT LocationId) FROM observations'));
    expect(body.value).toHaveLength(Math.min(locations, 10000));
    for (const row of body.value) expect(Object.keys(row)).toEqual(['LocationId', '__proto__']);
    expect(body.value.reduce((n, row) => n + Number(Object.getOwnPropertyDescriptor(row, '__proto__')!.value), 0)).toBe(Number(await refScalar('SELECT count(*) FROM observations')));
  });
});

describe('Arrow', () => {
  it('$format=arrow and the Arrow Accept type give the same rows and types as JSON', async () => {
    const { tableFromIPC } = await import('apache-arrow');
    const options = { $filter: "CharacteristicName ne 'pH'", $top: 3000 };
    const json = (await get(url('Records', options))).body;
    for (const [path, headers] of [
      [url('Records', { ...options, $format: 'arrow' }), {}],
      [url('Records', options), { Accept: 'application/vnd.apache.arrow.stream' }],
    ] as const) {
      const res = await app.request(path, { headers });
      expect(res.headers.get('content-type')).toBe('application/vnd.apache.arrow.stream');
      const table = tableFromIPC(new Uint8Array(await res.arrayBuffer()));
      expect(table.numRows).toBe(json.value.length);
      expect(table.schema.fields.map((f) => f.name)).toEqual(Object.keys(json.value[0]));
      expect(String(table.schema.fields.find((f) => f.name === 'ActivityStartDate')!.type)).toBe('Date32<DAY>');
      expect(res.headers.get('link')).toMatch(/\$format=arrow/);
      // Same values once Arrow's types are written the way the JSON writes them.
      const rows = table.toArray().map((r) => r.toJSON());
      rows.forEach((row, i) => {
        const expected = json.value[i];
        for (const [key, value] of Object.entries(row)) {
          const v = value as unknown;
          const asJson =
            v === null
              ? null
              : typeof v === 'bigint'
                ? Number(v)
                : key.endsWith('Date') && typeof v === 'number'
                  ? new Date(v).toISOString().slice(0, 10)
                  : key.endsWith('Time') && typeof v === 'bigint'
                    ? v
                    : v;
          if (key.endsWith('Time') && asJson !== null) {
            const micros = Number(v as bigint);
            const hms = new Date(micros / 1000).toISOString().slice(11, 19);
            expect(hms).toBe(expected[key]);
          } else {
            expect(asJson).toEqual(expected[key]);
          }
        }
      });
    }
  });

  it('an empty Arrow page is a valid stream with the schema', async () => {
    const { tableFromIPC } = await import('apache-arrow');
    const res = await app.request(url('Observations', { $filter: 'LocationId eq 999999', $format: 'arrow', $select: 'Id,ResultValue' }));
    const table = tableFromIPC(new Uint8Array(await res.arrayBuffer()));
    expect(table.numRows).toBe(0);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['Id', 'ResultValue']);
  });
});

describe('$count equals the rows paging returns, on every resource', () => {
  it.each([
    ['Locations', "CharacteristicName eq 'pH'", `SELECT count(DISTINCT LocationId) FROM observations WHERE CharacteristicName = 'pH'`],
    ['Locations', "RegionId eq 'admin.4.ca.ab' or MonitoringLocationType eq 'Lake'", `SELECT count(*) FROM locations WHERE Id IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.4.ca.ab') OR MonitoringLocationType = 'Lake'`],
    ['Locations', "not (ActivityGroupType eq 'Continuous Data') and ActivityStartYear in (2015, 2016)", `SELECT count(DISTINCT LocationId) FROM observations WHERE NOT (ActivityGroupType = 'Continuous Data') AND ActivityStartYear IN (2015, 2016)`],
    ['Locations', "RegionId eq 'admin.4.ca.ab' and CharacteristicName eq 'pH' or LocationId eq 3", `SELECT count(DISTINCT LocationId) FROM observations WHERE (CharacteristicName = 'pH' AND LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.4.ca.ab')) OR LocationId = 3`],
    ['Metadata', "ActivityMediaName eq 'Surface Water' and Latitude gt 50", `SELECT count(DISTINCT o.DOI) FROM observations o JOIN locations l ON l.Id = o.LocationId WHERE o.ActivityMediaName = 'Surface Water' AND l.Latitude > 50`],
    ['Metadata', "RegionId ne 'admin.4.ca.on'", `SELECT count(DISTINCT DOI) FROM locations WHERE Id NOT IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.4.ca.on')`],
    ['Observations', "MonitoringLocationType ne 'Lake' and DOI in ('x', 'y') or ActivityStartYear le 2012", `SELECT count(*) FROM observations WHERE (MonitoringLocationType <> 'Lake' AND DOI IN ('x','y')) OR ActivityStartYear <= 2012`],
    ['Records', "RegionId in ('hub.atlantic','hub.greatlakes') and not (CharacteristicName in ('pH','Temperature, water'))", `SELECT count(*) FROM observations WHERE LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId IN ('hub.atlantic','hub.greatlakes')) AND CharacteristicName NOT IN ('pH','Temperature, water')`],
    // One region and rollup dimensions: counted from the region rollup.
    ['Records', "RegionId eq 'admin.2.ca' and CharacteristicName eq 'pH' and ActivityStartYear ge 2015", `SELECT count(*) FROM observations WHERE LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.2.ca') AND CharacteristicName = 'pH' AND ActivityStartYear >= 2015`],
    ['Observations', "MonitoringLocationType ne 'Lake' and RegionId eq 'hub.pacific'", `SELECT count(*) FROM observations WHERE MonitoringLocationType <> 'Lake' AND LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId = 'hub.pacific')`],
    // Row-level filters: no statistics table holds a value or a date.
    ['Observations', "CharacteristicName eq 'pH' and ResultValue gt 8", `SELECT count(*) FROM observations WHERE CharacteristicName = 'pH' AND ResultValue > 8`],
    ['Records', "RegionId eq 'admin.2.ca' and ActivityStartDate ge 2018-03-01 and ActivityStartDate le 2018-10-31", `SELECT count(*) FROM observations WHERE LocationId IN (SELECT LocationId FROM location_regions WHERE RegionId = 'admin.2.ca') AND ActivityStartDate BETWEEN DATE '2018-03-01' AND DATE '2018-10-31'`],
    ['Locations', "CharacteristicName eq 'pH' and ResultValue gt 8", `SELECT count(DISTINCT LocationId) FROM observations WHERE CharacteristicName = 'pH' AND ResultValue > 8`],
    ["Locations", "Latitude gt 50 and ResultValue gt 100", `SELECT count(DISTINCT o.LocationId) FROM observations o JOIN locations l ON l.Id = o.LocationId WHERE l.Latitude > 50 AND o.ResultValue > 100`],
    ['Metadata', "CharacteristicName eq 'pH' and ResultValue gt 8", `SELECT count(DISTINCT DOI) FROM observations WHERE CharacteristicName = 'pH' AND ResultValue > 8`],
    ['Metadata', "Latitude gt 50 and ActivityStartDate lt 2015-01-01", `SELECT count(DISTINCT o.DOI) FROM observations o JOIN locations l ON l.Id = o.LocationId WHERE l.Latitude > 50 AND o.ActivityStartDate < DATE '2015-01-01'`],
  ])('%s ?$filter=%s', async (resource, filter, reference) => {
    const expected = Number(await refScalar(reference));
    const { body } = await get(url(resource, { $filter: filter, $count: 'true' }));
    expect(body).toEqual({ value: expected });
    const { rows } = await pageAll(url(resource, { $filter: filter, $select: 'Id', $top: 1500 }));
    expect(rows).toHaveLength(expected);
  });
});
