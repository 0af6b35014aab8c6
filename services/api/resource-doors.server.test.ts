/**
 * Every resource walked through every door (issue 53 item 1): each door its declaration opens (schemas/catalogue.ts)
 * answers through the app, and each it leaves shut answers a 400 or 404 that says where to go instead, so a resource
 * declared wrongly, or a reader that decides a door by itself, fails here. Real requests: the app over the fixture
 * file, and the MCP tools through the official SDK's client on a loopback socket.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources, type ResourceDef } from '../../schemas/index.js';
import { DOWNLOAD_FORMATS } from '../../schemas/publication-files.js';
import { PATHS } from './http/paths.js';
import { openFixtureApp, type FixtureApp } from './testing/fixture-app.js';
import { listen, type TestServer } from './testing/test-server.js';

let fx: FixtureApp;
let server: TestServer;
let client: Client;

beforeAll(async () => {
  fx = await openFixtureApp(inject('apiFixtureDb'));
  server = await listen(fx.app);
  client = new Client({ name: 'resource-doors', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
  await fx?.close();
});

type Json = Record<string, any>;
async function get(path: string): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fx.app.request(path);
  const text = await res.text();
  const json = /^application\/(.+\+)?json\b/.test(res.headers.get('content-type') ?? '');
  return { status: res.status, body: json ? (JSON.parse(text) as Json) : { text }, headers: res.headers };
}
const odata = (r: ResourceDef, query: string) => `${PATHS.odata}/${r.name}?${query}`;
const enc = encodeURIComponent;
const tool = async (name: string, args: Json) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const errorText = (res: CallToolResult) => res.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
/** A field to group by that counts every row once: not a membership (a location is in several regions). */
const countingGroup = (r: ResourceDef) => (r.apply === 'none' ? undefined : r.apply.groupBy.find((g) => g !== 'RegionId')!);

describe.each(resources.map((r) => [r.name, r] as const))('%s', (_name, r) => {
  let total: number;

  it('pages: Id order across a next link, and $count and /$count agree', async () => {
    const first = await get(odata(r, '$top=2&$select=Id'));
    expect(first.status).toBe(200);
    total = (await get(odata(r, '$count=true'))).body['value'] as number;
    expect((await get(`${PATHS.odata}/${r.name}/$count`)).body['text']).toBe(String(total));
    const next = first.body['@odata.nextLink'] as string | undefined;
    expect(next !== undefined).toBe(total > 2);
    if (!next) return;
    const second = await get(next.replace(/^https?:\/\/[^/]+/, ''));
    const ids = [...first.body['value'], ...second.body['value']].map((row: Json) => row['Id'] as string | number);
    expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it(r.apply === 'none' ? '$apply: not declared, a 400 naming where it is offered' : '$apply: every dimension groups, every measure and distinct field aggregates, groups count every row', async () => {
    if (r.apply === 'none') {
      const refused = await get(odata(r, `$apply=${enc('aggregate($count as N)')}`));
      expect(refused.status).toBe(400);
      expect(refused.body['errors'][0].code).toBe('unsupported_apply');
      expect(refused.body['message']).toMatch(new RegExp(`offered on ${resources.find((o) => o.apply !== 'none')!.name}.*; on ${r.name} use \\$filter and \\$count=true`));
      return;
    }
    const door = r.apply;
    for (const group of door.groupBy) {
      const res = await get(odata(r, `$top=1&$apply=${enc(`groupby((${group}),aggregate($count as N))`)}`));
      expect(res.status, `${group}: ${res.body['message']}`).toBe(200);
    }
    const group = countingGroup(r)!;
    const groups = await get(odata(r, `$top=10000&$apply=${enc(`groupby((${group}),aggregate($count as N))`)}`));
    expect(groups.body['value'].reduce((s: number, g: Json) => s + (g['N'] as number), 0)).toBe(total);
    for (const m of door.measures) {
      const by = m.unit ? `groupby((${m.unit}),` : '';
      const res = await get(odata(r, `$top=1&$apply=${enc(`${by}aggregate(${m.field} with max as Hi,${m.field} with countdistinct as D)${by ? ')' : ''}`)}`));
      expect(res.status, `${m.field}: ${res.body['message']}`).toBe(200);
    }
    for (const field of door.distinct) {
      const res = await get(odata(r, `$apply=${enc(`aggregate(${field} with countdistinct as D)`)}`));
      expect(res.status, `${field}: ${res.body['message']}`).toBe(200);
      expect(res.body['value'][0]['D']).toBeGreaterThan(0);
    }
    // A key is never a group: every row would be one.
    const key = await get(odata(r, `$apply=${enc('groupby((Id),aggregate($count as N))')}`));
    expect(key.status).toBe(400);
    expect(key.body['message']).toContain(`groups by its dimensions, ${door.groupBy.join(', ')}`);
  });

  it(r.export ? 'export: every row in one file, counted' : 'export: not declared, a 404 naming the exports', async () => {
    const res = await get(`${PATHS.export}/${r.name}?$format=ndjson`);
    if (!r.export) {
      expect(res.status).toBe(404);
      expect(res.body['message']).toMatch(new RegExp(`^${r.name} declares no export.*Exports: ${PATHS.export}/`));
      return;
    }
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-total-count'))).toBe(total);
    expect(String(res.body['text']).split('\n').filter(Boolean)).toHaveLength(total);
  });

  it(r.ogc === 'none' ? 'OGC: no collection, a 404 saying so' : `OGC: the collection ${r.ogc.id}, listed and paged`, async () => {
    const collections = (await get(`${PATHS.features}/collections`)).body['collections'].map((c: Json) => c['id']);
    if (r.ogc === 'none') {
      const res = await get(`${PATHS.features}/collections/${r.name}/items`);
      expect(res.status).toBe(404);
      expect(res.body['message']).toMatch(new RegExp(`^${r.name} has no OGC collection`));
      return;
    }
    expect(collections).toContain(r.ogc.id);
    const items = await get(`${PATHS.features}/collections/${r.ogc.id}/items?limit=2`);
    expect(items.status).toBe(200);
    expect(items.body['numberMatched']).toBe(total);
    for (const f of items.body['features']) expect(f['geometry']['type']).toBe('Point');
  });

  it('citation: the datasets and guidelines its declaration credits', async () => {
    const res = await get(`${PATHS.citation}/${r.name}`);
    expect(res.status).toBe(200);
    expect(res.body['rows']).toBe(total);
    expect(res.body['datasets'].length > 0).toBe(r.citation.datasets);
    expect(res.body['guidelines'] !== undefined).toBe(r.citation.guidelines !== 'none');
  });

  it(r.mcp ? 'MCP: describe tells what it declares; aggregate and list_values answer where $apply does' : 'MCP: not offered to assistants', async () => {
    const described = await tool('describe', { resource: r.name });
    if (!r.mcp) {
      expect(described.isError).toBe(true);
      return;
    }
    expect(described.isError, errorText(described)).toBeFalsy();
    const d = described.structuredContent!;
    expect({ aggregate: d['aggregate'], export: d['export'], ogc: d['ogcCollection'], files: d['files'], rows: d['rows'] }).toEqual({
      aggregate: r.apply !== 'none', export: r.export, ogc: r.ogc === 'none' ? null : r.ogc.id, files: r.files, rows: total,
    });
    const group = countingGroup(r) ?? 'DOI';
    const aggregated = await tool('aggregate', { resource: r.name, apply: `groupby((${group}),aggregate($count as N))`, orderby: 'N desc', top: 3 });
    const listed = await tool('list_values', { resource: r.name, field: group });
    if (r.apply === 'none') {
      for (const refused of [aggregated, listed]) {
        expect(refused.isError).toBe(true);
        expect(errorText(refused)).toContain(`on ${r.name} use $filter and $count=true`);
      }
      return;
    }
    expect(aggregated.isError, errorText(aggregated)).toBeFalsy();
    const counts = (aggregated.structuredContent!['groups'] as Json[]).map((g) => g['N'] as number);
    expect(counts.length).toBe(Math.min(3, (listed.structuredContent!['values'] as unknown[]).length));
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
  });
});

describe('dataset files', () => {
  it('the formats listed are exactly those the resources declare, each file readable', async () => {
    const declared = resources.flatMap((r) => r.files);
    expect([...declared].sort()).toEqual([...DOWNLOAD_FORMATS].sort());
    const index = (await get(PATHS.downloads)).body;
    const firstOf = new Map<string, string>();
    for (const d of index['datasets'] as Json[]) for (const [format, file] of Object.entries(d['files'] as Record<string, Json>)) if (!firstOf.has(format)) firstOf.set(format, file['url'] as string);
    expect([...firstOf.keys()].sort()).toEqual([...declared].sort());
    for (const [format, url] of firstOf) expect((await fx.app.request(new URL(url).pathname, { method: 'HEAD' })).status, format).toBe(200);
  });

  it('a file name in a format no resource declares is refused, naming the formats', async () => {
    const res = await get(`${PATHS.files}/sha256-${'0'.repeat(64)}/10.1234.location-summaries.json`);
    expect(res.status).toBe(406);
    expect(res.body['message']).toContain('Formats: .parquet');
  });
});
