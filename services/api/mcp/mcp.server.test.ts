/**
 * The MCP door through the official SDK's own client (StreamableHTTPClientTransport) on a real loopback socket: the
 * seven tools are listed with their schemas, and each answer is compared with the HTTP API's answer to the same
 * question (counts with `$count`, rows with the pinned page, citations with `/v1/citation`) and with counts written
 * here in SQL on a connection of the test's own.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources } from '../../../schemas/index.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';
import { listen, type TestServer } from '../testing/test-server.js';

let fixture: FixtureApp;
let server: TestServer;
let client: Client;

beforeAll(async () => {
  fixture = await openFixtureApp(inject('apiFixtureDb'));
  server = await listen(fixture.app);
  client = new Client({ name: 'tributary-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
  await fixture?.close();
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
/**
 * The structured answer; its text is a summary with the links to go on (the pinned URL, the next page), never the
 * structured content again (issue 56 item 5).
 */
async function structured(name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await call(name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const texts = result.content.filter((c) => c.type === 'text').map((c) => (c.type === 'text' ? c.text : ''));
  expect(texts).toHaveLength(1);
  const answer = result.structuredContent!;
  for (const link of [answer['url'], answer['next']]) if (typeof link === 'string') expect(texts[0]).toContain(link);
  if (Array.isArray(answer['rows']) && answer['rows'].length > 0) expect(texts[0]).not.toContain(JSON.stringify(answer['rows'][0]));
  return answer;
}
async function http(url: string, accept = 'application/json'): Promise<{ status: number; publication: string | null; body: any }> {
  const res = await fetch(url, { headers: { accept } });
  const text = await res.text();
  return { status: res.status, publication: res.headers.get('tributary-publication'), body: accept.includes('json') ? JSON.parse(text) : text };
}
const odata = (path: string) => `${server.origin}/v1/odata/v4/${path}`;
const enc = encodeURIComponent;
async function sql(text: string, ...params: string[]): Promise<Record<string, unknown>[]> {
  const reader = await fixture.ref.runAndReadAll(text, params);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}

const PH = "CharacteristicName eq 'pH'";

describe('MCP over Streamable HTTP, the official TypeScript client', () => {
  it('lists the seven tools of the contract, each with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['aggregate', 'cite', 'count', 'describe', 'list_values', 'query', 'search_datasets']);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.annotations?.readOnlyHint, t.name).toBe(true);
    }
    expect(client.getInstructions()).toMatch(/publication/);
    // The resources come from the catalogue: one registered there is offered here with no change to the tools.
    const describe = tools.find((t) => t.name === 'describe')!;
    expect((describe.inputSchema.properties!['resource'] as { enum: string[] }).enum).toEqual(resources.map((r) => r.name));
  });

  it('count equals $count, names the publication, and its pinned URL answers the same', async () => {
    const answer = await structured('count', { resource: 'Observations', filter: PH });
    const api = await http(odata(`Observations?$filter=${enc(PH)}&$count=true`));
    const [ref] = await sql("SELECT count(*)::INTEGER AS n FROM observations WHERE CharacteristicName = 'pH'");
    expect(answer.count).toBe(api.body.value);
    expect(answer.count).toBe(ref!.n);
    expect(answer.publication).toBe(api.publication);
    expect(answer.url).toContain(`publication=${answer.publication}`);
    expect((await http(answer.url)).body).toEqual({ value: answer.count });
  });

  it('query returns the pinned page, the total, the whole result and its exports and citation', async () => {
    const answer = await structured('query', { resource: 'Records', filter: PH, select: 'Id,DOI,CharacteristicName,ResultValue', top: 7 });
    const page = await http(`${answer.url}&$top=7`);
    expect(answer.rows).toEqual(page.body.value);
    expect(answer.returned).toBe(7);
    expect(answer.total).toBe((await http(odata(`Records?$filter=${enc(PH)}&$count=true`))).body.value);
    expect(answer.total).toBeGreaterThan(answer.returned);
    expect(answer.next).toBe(page.body['@odata.nextLink']);
    for (const url of [answer.exports.parquet, answer.exports.csv]) {
      expect(url).toContain(`publication=${answer.publication}`);
      const head = await fetch(url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('x-total-count'))).toBe(answer.total);
    }
    expect(answer.citation.publication).toBe(answer.publication);
    expect(answer.citation.rows).toBe(answer.total);
  });

  it('query on a resource with no export says so, and caps rows at 1,000', async () => {
    const answer = await structured('query', { resource: 'Locations', top: 3 });
    expect(answer.exports).toBeNull();
    expect(answer.rows).toHaveLength(3);
    const over = await call('query', { resource: 'Records', top: 1001 });
    expect(over.isError).toBe(true);
  });

  it('cite equals /v1/citation in JSON, CSL-JSON and text', async () => {
    const answer = await structured('cite', { resource: 'Observations', filter: PH });
    const base = `${server.origin}/v1/citation/Observations?$filter=${enc(PH)}&publication=${answer.publication}`;
    const doc = (await http(base)).body;
    expect(answer.datasets).toEqual(doc.datasets);
    expect(answer.rows).toBe(doc.rows);
    expect(answer.url).toBe(doc.url);
    expect(answer.csl).toEqual((await http(`${base}&format=csl`)).body);
    expect(answer.text).toBe((await http(`${base}&format=text`, 'text/plain')).body);
  });

  it('list_values gives each value with its exact count', async () => {
    const answer = await structured('list_values', { resource: 'Observations', field: 'CharacteristicName', filter: 'ActivityStartYear ge 2018' });
    const ref = await sql('SELECT CharacteristicName AS value, count(*)::INTEGER AS count FROM observations WHERE ActivityStartYear >= 2018 GROUP BY 1 ORDER BY 1');
    expect([...answer.values].sort((a, b) => String(a.value).localeCompare(String(b.value)))).toEqual([...ref].sort((a, b) => String(a.value).localeCompare(String(b.value))));
    expect(answer.complete).toBe(true);
  });

  it('aggregate is the API\'s $apply answer', async () => {
    const apply = `filter(${PH})/groupby((ActivityStartYear),aggregate($count as N))`;
    const answer = await structured('aggregate', { resource: 'Records', apply });
    const api = await http(odata(`Records?$apply=${enc(apply)}&$top=1000&publication=${answer.publication}`));
    expect(answer.groups).toEqual(api.body.value);
    expect(answer.url).toContain(`publication=${answer.publication}`);
  });

  it('reads the governing guideline comparisons unless the filter names Governing, and says so', async () => {
    const exceeds = "Verdict eq 'exceeds'";
    const [ref] = await sql(`SELECT count(*) FILTER (WHERE "Governing")::INTEGER AS governing, count(*)::INTEGER AS every FROM guideline_comparisons WHERE "Verdict" = 'exceeds'`);
    expect(ref!.every).toBeGreaterThan(ref!.governing as number);
    const counted = await structured('count', { resource: 'GuidelineComparisons', filter: exceeds });
    expect(counted.count).toBe(ref!.governing);
    expect(counted.note).toMatch(/governing comparisons only \(Governing eq true\)/);
    expect((await http(counted.url)).body).toEqual({ value: ref!.governing });
    const every = await structured('count', { resource: 'GuidelineComparisons', filter: `${exceeds} and (Governing eq true or Governing eq false)` });
    expect(every.count).toBe(ref!.every);
    expect(every.note).toBeUndefined();
    const grouped = await structured('aggregate', { resource: 'GuidelineComparisons', apply: `filter(${exceeds})/aggregate($count as N)` });
    expect(grouped.groups).toEqual([{ N: ref!.governing }]);
    expect(grouped.note).toMatch(/Governing eq true/);
    const rows = await structured('query', { resource: 'GuidelineComparisons', filter: exceeds, select: 'Id,Governing', top: 5 });
    expect(rows.total).toBe(ref!.governing);
    expect(rows.rows.every((r: Record<string, unknown>) => r.Governing === true)).toBe(true);
    expect((await structured('count', { resource: 'Observations', filter: PH })).note).toBeUndefined();
  });

  it('aggregate sorts and cuts the groups (orderby, top): the ten sites with the most exceedances', async () => {
    const apply = "filter(Verdict eq 'exceeds')/groupby((LocationId),aggregate($count as N))";
    const answer = await structured('aggregate', { resource: 'GuidelineComparisons', apply, orderby: 'N desc', top: 10 });
    // Governing by default: each result counted once per publisher and term.
    expect(answer.apply).toBe("filter((Verdict eq 'exceeds') and Governing eq true)/groupby((LocationId),aggregate($count as N))/orderby(N desc)/top(10)");
    const ref = await sql("SELECT LocationId, count(*) AS N FROM guideline_comparisons WHERE Verdict = 'exceeds' AND Governing GROUP BY LocationId");
    const want = ref.map((r) => ({ LocationId: Number(r['LocationId']), N: Number(r['N']) })).sort((a, b) => b.N - a.N || a.LocationId - b.LocationId).slice(0, 10);
    expect(answer.groups).toEqual(want);
    expect(answer.complete).toBe(true);
  });

  it('aggregate hands back a next link past its 1,000 groups, and continues from it on the same publication', async () => {
    const apply = 'groupby((LocationId,CharacteristicName,ActivityStartYear),aggregate($count as N))';
    const [{ n }] = (await sql('SELECT count(*) AS n FROM (SELECT DISTINCT LocationId, CharacteristicName, ActivityStartYear FROM observations)')) as [{ n: bigint }];
    expect(Number(n)).toBeGreaterThan(1000);
    const first = await structured('aggregate', { resource: 'Records', apply });
    expect(first.complete).toBe(false);
    const groups = [...first.groups];
    for (let next = first.next as string | undefined; next; ) {
      const page = await structured('aggregate', { resource: 'Records', apply, next });
      expect(page.publication).toBe(first.publication);
      groups.push(...page.groups);
      next = page.next;
    }
    expect(groups).toHaveLength(Number(n));
    expect(new Set(groups.map((g) => JSON.stringify(g))).size).toBe(groups.length);
    // A next link of another question is refused, not followed.
    const other = await call('aggregate', { resource: 'Records', apply: 'groupby((DOI))', next: first.next });
    expect(other.isError).toBe(true);
  });

  it('describe lists the catalogue\'s fields with what $filter accepts, and the row count', async () => {
    const answer = await structured('describe', { resource: 'Observations' });
    const names = answer.fields.map((f: { name: string }) => f.name);
    expect(names).toContain('CharacteristicName');
    expect(answer.fields.find((f: { name: string }) => f.name === 'CharacteristicName').filterable).toBe(true);
    expect(answer.fields.find((f: { name: string }) => f.name === 'ResultComment').filterable).toBe(false);
    expect(answer.filterOnly.map((f: { name: string }) => f.name)).toContain('RegionId');
    expect(answer.rows).toBe((await http(odata('Observations?$count=true'))).body.value);
    expect(answer.aggregate).toBe(true);
    const metadata = await structured('describe', { resource: 'Metadata' });
    expect(metadata.aggregate).toBe(false);
    expect(metadata.export).toBe(false);
    // The tables of their own aggregate (issue 53: describe once said they did not), by their dimensions.
    for (const name of ['LocationSummaries', 'Guidelines', 'GuidelineComparisons', 'WaterQualityIndex']) {
      const own = await structured('describe', { resource: name });
      expect(own.aggregate, name).toBe(true);
      expect(own.groupBy.length, name).toBeGreaterThan(0);
    }
    expect((await structured('describe', { resource: 'GuidelineComparisons' })).groupBy).toEqual(expect.arrayContaining(['Verdict', 'LocationId', 'GuidelineId']));
  });

  it('search_datasets finds a dataset by a word of its name, with its rows', async () => {
    const [some] = await sql("SELECT DOI, DatasetName FROM datasets ORDER BY DOI LIMIT 1");
    const word = String(some!.DatasetName).split(/\s+/).find((w) => w.length > 4)!;
    const answer = await structured('search_datasets', { text: word.toUpperCase() });
    const found = answer.datasets.find((d: { DOI: string }) => d.DOI === some!.DOI);
    expect(found).toBeDefined();
    const [ref] = await sql('SELECT count(*)::INTEGER AS n FROM observations WHERE DOI = $1', String(some!.DOI));
    expect(found.rows).toBe(ref!.n);
    expect(found.url).toBe(`https://doi.org/${some!.DOI}`);
    const [box] = await sql('SELECT min(Longitude) AS w, min(Latitude) AS s, max(Longitude) AS e, max(Latitude) AS n FROM locations WHERE DOI = $1', String(some!.DOI));
    expect(found.bbox).toHaveLength(4);
    [box!.w, box!.s, box!.e, box!.n].forEach((v, i) => expect(found.bbox[i]).toBeCloseTo(Number(v), 5));
    expect((await fetch(found.landingPage)).status).toBe(200);
    const none = await structured('search_datasets', { text: 'zzzz-no-such-word' });
    expect(none.matched).toBe(0);
  });

  it('search_datasets narrows by characteristic as "has such an observation"', async () => {
    const answer = await structured('search_datasets', { text: '', characteristic: 'pH' });
    const ref = await sql("SELECT DOI, count(*)::INTEGER AS n FROM observations WHERE CharacteristicName = 'pH' GROUP BY 1 ORDER BY 1");
    expect(answer.datasets.map((d: { DOI: string; rows: number }) => [d.DOI, d.rows]).sort()).toEqual(ref.map((r) => [r.DOI, r.n]).sort());
  });

  it('search_datasets quotes what it is given: a region with a quote in it is one odd name, not a filter', async () => {
    const answer = await structured('search_datasets', { text: '', region: "hub.pacific' or DOI ne 'x" });
    expect(answer.filter).toBe("RegionId eq 'hub.pacific'' or DOI ne ''x'");
    expect(answer.matched).toBe(0);
  });

  it('a bad filter is a tool error carrying the API\'s own message, not a protocol failure', async () => {
    const bad = 'Bogus eq 1';
    const api = await http(odata(`Observations?$filter=${enc(bad)}&$count=true`));
    expect(api.status).toBe(400);
    for (const [tool, args] of [
      ['count', { resource: 'Observations', filter: bad }],
      ['query', { resource: 'Observations', filter: bad }],
      ['cite', { resource: 'Observations', filter: bad }],
    ] as const) {
      const result = await call(tool, args);
      expect(result.isError, tool).toBe(true);
      expect(result.content).toEqual([{ type: 'text', text: api.body.message }]);
    }
    const apply = await call('list_values', { resource: 'Locations', field: 'RegionId' });
    expect(apply.isError).toBe(true);
    expect((apply.content[0] as { text: string }).text).toMatch(/\$apply is offered on Observations, Records, .*; on Locations use \$filter/);
  });

  it('answers GET and DELETE with 405: stateless, no stream and no session', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.origin}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    }
  });
});
