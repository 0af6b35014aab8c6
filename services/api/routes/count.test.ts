/**
 * `GET /v1/odata/v4/{resource}/$count` over HTTP on the fixture file: the plain-text number equals `$count=true`'s
 * `{"value": N}` and `$top=0&$count=true`'s `@odata.count` for the same filter on every resource, and brute-force SQL
 * where it is plain; the options a count refuses, each named; the publication's ETag and 304; a pin; and Apache
 * Olingo's odatajs, a generic OData client, reading the count over a socket.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Hono } from 'hono';
import odatajs from 'ts-odatajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources } from '../../../schemas/index.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';
import { listen, type TestServer } from '../testing/test-server.js';

const BASE = '/v1/odata/v4';
let fixture: FixtureApp;
let app: Hono;
let ref: DuckDBConnection;
let server: TestServer;

beforeAll(async () => {
  fixture = await openFixtureApp(inject('apiFixtureDb'));
  ({ app, ref } = fixture);
  server = await listen(app);
});
afterAll(async () => {
  await server?.close();
  await fixture.close();
});

const enc = (options: Record<string, string>) =>
  Object.entries(options).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
const countUrl = (resource: string, options: Record<string, string> = {}) => `${BASE}/${resource}/$count${Object.keys(options).length ? `?${enc(options)}` : ''}`;

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers });
  const text = await res.text();
  return { res, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}

async function refCount(sql: string): Promise<number> {
  return Number((await ref.runAndReadAll(sql)).getColumns()[0]![0]);
}

/** The number `/$count` answers, checked to be the plain-text form OData gives it. */
async function counted(resource: string, filter?: string): Promise<number> {
  const { res, text } = await get(countUrl(resource, filter ? { $filter: filter } : {}));
  expect([res.status, res.headers.get('content-type'), text]).toEqual([200, 'text/plain; charset=utf-8', expect.stringMatching(/^(0|[1-9][0-9]*)$/)]);
  return Number(text);
}

/** A filter per resource that matches some rows but not all, in the fixture. */
const FILTERS: Readonly<Record<string, string>> = {
  Metadata: "CharacteristicName eq 'pH'",
  Locations: "CharacteristicName eq 'pH' and RegionId eq 'admin.4.ca.ab'",
  Observations: "CharacteristicName eq 'pH' and ActivityStartYear ge 2015",
  Records: "MonitoringLocationType eq 'River/Stream'",
  LocationSummaries: "CharacteristicName eq 'pH'",
  Guidelines: "startswith(CharacteristicName,'p')",
  GuidelineComparisons: "Verdict eq 'exceeds'",
  WaterQualityIndex: 'Year ge 2015',
  Trends: "TimeIncrement eq 'unassessed'",
};

describe('/$count equals $count=true', () => {
  it('has a filter for every resource', () => {
    expect(Object.keys(FILTERS).sort()).toEqual(resources.map((r) => r.name).sort());
  });

  it.each(resources.map((r) => r.name))('%s: with and without a filter, the same number as {"value": N} and @odata.count', async (resource) => {
    const seen: number[] = [];
    for (const filter of [undefined, FILTERS[resource]]) {
      const options: Record<string, string> = filter ? { $filter: filter } : {};
      const n = await counted(resource, filter);
      seen.push(n);
      const value = (await get(`${BASE}/${resource}?${enc({ ...options, $count: 'true' })}`)).body.value;
      const page = (await get(`${BASE}/${resource}?${enc({ ...options, $top: '0', $count: 'true' })}`)).body['@odata.count'];
      expect([resource, filter, n]).toEqual([resource, filter, value]);
      expect(page).toBe(n);
    }
    // The filter tells rows apart, so an answer that ignored it would fail.
    expect(seen[1]).toBeGreaterThan(0);
    expect(seen[1]).toBeLessThan(seen[0]!);
  });

  it.each([
    // From the statistics, from a scan of the values, and by location membership.
    ["CharacteristicName eq 'pH'", `CharacteristicName = 'pH'`],
    ["CharacteristicName eq 'pH' and ResultValue gt 7.5", `CharacteristicName = 'pH' AND ResultValue > 7.5`],
    ["ActivityStartDate ge 2020-06-01 and ActivityStartDate lt 2020-09-01", `ActivityStartDate >= DATE '2020-06-01' AND ActivityStartDate < DATE '2020-09-01'`],
  ])('Observations?$filter=%s counts what brute-force SQL does', async (filter, where) => {
    const expected = await refCount(`SELECT count(*) FROM observations WHERE ${where}`);
    expect(expected).toBeGreaterThan(0);
    expect(await counted('Observations', filter)).toBe(expected);
  });

  it('GuidelineComparisons counts its own rows', async () => {
    const expected = await refCount(`SELECT count(*) FROM guideline_comparisons WHERE Verdict = 'exceeds'`);
    expect(expected).toBeGreaterThan(0);
    expect(await counted('GuidelineComparisons', "Verdict eq 'exceeds'")).toBe(expected);
  });

  it('a filter that matches nothing is 0; %24count, HEAD and the Server-Timing stages are the collection count\'s', async () => {
    expect(await counted('Observations', "CharacteristicName eq 'no such thing'")).toBe(0);
    const n = await counted('Records');
    expect(await (await app.request(`${BASE}/Records/%24count`)).text()).toBe(String(n));
    const head = await app.request(countUrl('Records'), { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'text/plain; charset=utf-8', '']);
    const { res } = await get(countUrl('Records'));
    expect((res.headers.get('server-timing') ?? '').split(', ').map((s) => s.split(';')[0])).toEqual(['parse', 'plan', 'execute']);
  });
});

describe('what /$count refuses', () => {
  it.each([
    ['$top', '5'],
    ['$skip', '5'],
    ['$orderby', 'Id'],
    ['$select', 'Id'],
    ['$skiptoken', 'Id:10'],
    ['$count', 'true'],
    ['$apply', 'groupby((CharacteristicName))'],
    ['$format', 'json'],
    ['$expand', 'x'],
    ['$TOP', '5'],
  ])('%s → 400 unsupported_option naming it', async (option, value) => {
    const { res, body } = await get(`${BASE}/Observations/$count?$filter=${encodeURIComponent("CharacteristicName eq 'pH'")}&${option}=${value}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(body.errors[0]).toMatchObject({ status: '400', code: 'unsupported_option', source: { parameter: option } });
    expect(body.message).toBe(`${option} is not allowed on /$count, which answers the number of rows $filter matches as text/plain: leave ${option} out (for the rows themselves, GET the collection without /$count).`);
  });

  it.each([
    [countUrl('Observations', { $filter: "CharacteristicName eq 'pH" }), 400, 'invalid_filter'],
    [countUrl('Observations', { $filter: "Nope eq 'x'" }), 400, 'unknown_field'],
    [countUrl('Observations', { $search: 'pH' }), 400, 'unsupported_option'],
    [`${BASE}/Nope/$count`, 404, 'not_found'],
    [`${BASE}/$metadata/$count`, 404, 'not_found'],
    [`${BASE}/Observations/$count?publication=${encodeURIComponent('not a publication!')}`, 400, 'invalid_parameter'],
  ])('%s → %i %s, the API\'s JSON error body', async (path, status, code) => {
    const { res, body } = await get(path);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(body.errors[0]).toMatchObject({ status: String(status), code });
    expect(body.errors[0].detail).toBe(body.message);
  });

  it('is read-only: POST is 405 with Allow, OPTIONS names the methods', async () => {
    const post = await app.request(countUrl('Observations'), { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS']);
    expect((await post.json()).errors[0].code).toBe('method_not_allowed');
    const options = await app.request(countUrl('Observations'), { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'GET, HEAD, OPTIONS']);
  });
});

describe('one publication\'s number', () => {
  it('carries the publication\'s weak ETag, the same as the collection\'s, and answers If-None-Match with 304', async () => {
    const path = countUrl('Observations', { $filter: FILTERS['Observations']! });
    const { res } = await get(path);
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^W\/".+"$/);
    expect((await get(`${BASE}/Observations?$top=1`)).res.headers.get('etag')).toBe(etag);
    const again = await app.request(path, { headers: { 'If-None-Match': etag! } });
    expect([again.status, await again.text(), again.headers.get('etag')]).toEqual([304, '', etag]);
    const stale = await app.request(path, { headers: { 'If-None-Match': 'W/"another"' } });
    expect(stale.status).toBe(200);
  });

  it('a pinned count (publication=<id>) is that publication\'s, as a pinned $count=true is', async () => {
    const { res, text } = await get(countUrl('Records', { $filter: FILTERS['Records']! }));
    const publication = res.headers.get('tributary-publication');
    expect(publication).toBeTruthy();
    const pinned = await get(countUrl('Records', { $filter: FILTERS['Records']!, publication: publication! }));
    expect([pinned.res.status, pinned.text, pinned.res.headers.get('tributary-publication')]).toEqual([200, text, publication]);
    const value = (await get(`${BASE}/Records?${enc({ $filter: FILTERS['Records']!, $count: 'true', publication: publication! })}`)).body.value;
    expect(pinned.text).toBe(String(value));
  });
});

describe('a generic OData client (Apache Olingo odatajs)', () => {
  /** odatajs speaks callbacks; its Node HTTP client does the request over the socket, and its text handler reads text/plain. */
  const read = (url: string) =>
    new Promise<unknown>((resolve, reject) => odatajs.oData.read({ requestUri: url }, resolve, reject));

  it.each(['Observations', 'GuidelineComparisons'])('reads %s/$count with a $filter as the number the API counts', async (resource) => {
    const filter = FILTERS[resource]!;
    const value = (await get(`${BASE}/${resource}?${enc({ $filter: filter, $count: 'true' })}`)).body.value;
    expect(value).toBeGreaterThan(0);
    const answer = await read(`${server.origin}${countUrl(resource, { $filter: filter })}`);
    expect(Number(answer)).toBe(value);
  });
});
