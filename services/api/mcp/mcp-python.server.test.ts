/**
 * The MCP door through Python's official SDK (pip's `mcp`, mcp_client.py beside this file) with a key, on a real
 * loopback socket: it lists the seven tools, calls each one, and every answer equals the HTTP API's own (counts
 * with `$count`, rows with the pinned page, citations with `/v1/citation`, groups with `$apply`); a bad filter is a
 * tool error in the API's words.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { acquirer, openDatabase, type Database } from '../db/database.js';
import { openKeyStore, type KeyStore } from '../keys/key-store.js';
import { runClient } from '../testing/run-client.js';
import { listen, type TestServer } from '../testing/test-server.js';
import { answerText, type ToolName } from './answer-text.js';

const KEY = 'python-mcp-key';
const PH = "CharacteristicName eq 'pH'";
const APPLY = `filter(${PH})/groupby((ActivityStartYear),aggregate($count as N))`;
const BAD = 'Bogus eq 1';
const CALLS: [string, Record<string, unknown>][] = [
  ['describe', { resource: 'Records' }],
  ['search_datasets', { text: '', characteristic: 'pH' }],
  ['list_values', { resource: 'Observations', field: 'CharacteristicName' }],
  ['count', { resource: 'Observations', filter: PH }],
  ['query', { resource: 'Observations', filter: PH, top: 5 }],
  ['aggregate', { resource: 'Records', apply: APPLY }],
  ['cite', { resource: 'Records', filter: PH }],
  ['count', { resource: 'Observations', filter: BAD }],
];

interface PythonRun {
  protocolVersion: string;
  server: string;
  tools: { name: string; inputSchema: { type: string }; outputSchema: { type: string } | null }[];
  results: { tool: string; isError: boolean; structuredContent: Record<string, any> | null; text: string[] }[];
}

let db: Database;
let keys: KeyStore;
let server: TestServer;
let run: PythonRun;

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  keys = await openKeyStore({ plainKeys: [KEY], pollMs: 0 });
  server = await listen(createApp({ acquire: acquirer(db), links: { trustProxy: false }, access: { keys } }));
  const { status, stdout, stderr } = await runClient('python3', [join(import.meta.dirname, 'mcp_client.py'), JSON.stringify(CALLS)], { TRIBUTARY_URL: server.origin, TRIBUTARY_API_KEY: KEY });
  expect(status, stderr).toBe(0);
  run = JSON.parse(stdout) as PythonRun;
});
afterAll(async () => {
  await server?.close();
  keys?.close();
  await db?.close();
});

async function http(url: string, accept = 'application/json'): Promise<any> {
  const res = await fetch(url, { headers: { accept, 'x-api-key': KEY } });
  expect(res.status, url).toBe(200);
  return accept.includes('json') ? res.json() : res.text();
}
const odata = (query: string) => `${server.origin}/v1/odata/v4/${query}`;
const enc = encodeURIComponent;
const result = (i: number) => {
  const r = run.results[i]!;
  expect(r.tool).toBe(CALLS[i]![0]);
  // The text is a summary with the links to go on, never the rows again (answer-text.ts).
  if (!r.isError) expect(r.text).toEqual([answerText(r.tool as ToolName, r.structuredContent!)]);
  return r;
};

describe('MCP through Python\'s mcp package', () => {
  it('initializes and lists the seven tools with their schemas', () => {
    expect(run.server).toBe('tributary');
    expect(run.tools.map((t) => t.name).sort()).toEqual(['aggregate', 'cite', 'count', 'describe', 'list_values', 'query', 'search_datasets']);
    for (const t of run.tools) expect([t.inputSchema.type, t.outputSchema?.type]).toEqual(['object', 'object']);
  });

  it('describe, count and list_values equal the API\'s counts', async () => {
    const publication = result(0).structuredContent!.publication;
    expect(result(0).structuredContent!.rows).toBe((await http(odata(`Records?$count=true&publication=${publication}`))).value);
    const count = result(3).structuredContent!;
    expect(count.count).toBe((await http(odata(`Observations?$filter=${enc(PH)}&$count=true&publication=${count.publication}`))).value);
    const values = result(2).structuredContent!;
    const groups = await http(odata(`Observations?$apply=${enc('groupby((CharacteristicName),aggregate($count as Count))')}&publication=${values.publication}`));
    expect(values.values).toEqual(groups.value.map((g: { CharacteristicName: string; Count: number }) => ({ value: g.CharacteristicName, count: g.Count })));
  });

  it('query\'s rows are the pinned page and its total the $count', async () => {
    const q = result(4).structuredContent!;
    expect(q.rows).toEqual((await http(`${q.url}&$top=5`)).value);
    expect(q.total).toBe(result(3).structuredContent!.count);
  });

  it('aggregate is $apply, cite is /v1/citation, search_datasets lists the datasets with pH', async () => {
    const a = result(5).structuredContent!;
    expect(a.groups).toEqual((await http(odata(`Records?$apply=${enc(APPLY)}&$top=1000&publication=${a.publication}`))).value);
    const c = result(6).structuredContent!;
    const base = `${server.origin}/v1/citation/Records?$filter=${enc(PH)}&publication=${c.publication}`;
    expect(c.datasets).toEqual((await http(base)).datasets);
    expect(c.csl).toEqual(await http(`${base}&format=csl`));
    expect(c.text).toBe(await http(`${base}&format=text`, 'text/plain'));
    const s = result(1).structuredContent!;
    expect(s.datasets.map((d: { DOI: string }) => d.DOI).sort()).toEqual(c.datasets.map((d: { DOI: string }) => d.DOI).sort());
  });

  it('a bad filter is a tool error with the API\'s message', async () => {
    const bad = result(7);
    expect(bad.isError).toBe(true);
    const res = await fetch(odata(`Observations?$filter=${enc(BAD)}&$count=true`), { headers: { 'x-api-key': KEY } });
    expect(res.status).toBe(400);
    expect(bad.text).toEqual([((await res.json()) as { message: string }).message]);
  });
});
