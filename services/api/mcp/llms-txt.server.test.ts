/**
 * /llms.txt and /llms-full.txt on a real socket: the llms.txt convention's shape (a title, a summary quote,
 * sections of links), what they must say (each resource, each MCP tool, the limits this instance applies, how to
 * cite), and every URL of ours in them followed: each answers 200 (the MCP door to its one method, a POST).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources } from '../../../schemas/index.js';
import { createApp } from '../app.js';
import { acquirer, openDatabase, type Database } from '../db/database.js';
import { listen, type TestServer } from '../testing/test-server.js';
import { TOOLS } from './tool-descriptions.js';

let db: Database;
let server: TestServer;

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  const app = createApp({
    acquire: acquirer(db),
    links: { trustProxy: false },
    retentionMs: 3_600_000,
    limits: { maxPageBytes: 64 * 1024 * 1024, queryTimeoutMs: 30_000 },
    access: { rateLimit: { rps: 1e9, burst: 2e9, minRows: 500 }, discoveryRateLimit: { rps: 1e9, burst: 3e9 }, fileBytes: { bytesPerSecond: 64 * 1024 * 1024, burst: 512 * 1024 * 1024 } },
  });
  server = await listen(app);
});
afterAll(async () => {
  await server?.close();
  await db?.close();
});

const ours = (text: string) => [...new Set(text.match(/https?:\/\/[^\s)`'"<>]+/g) ?? [])].filter((u) => u.startsWith(server.origin));

async function follow(url: string): Promise<number> {
  if (new URL(url).pathname !== '/mcp') {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.status;
  }
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'llms-test', version: '1' } } }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe.each(['/llms.txt', '/llms-full.txt'])('%s', (path) => {
  let text: string;
  beforeAll(async () => {
    const res = await fetch(`${server.origin}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    text = await res.text();
  });

  it('has the convention\'s shape: a title, a summary quote, then sections of links', () => {
    const lines = text.split('\n');
    expect(lines[0]).toBe('# Tributary');
    expect(lines[2]).toMatch(/^> \S/);
    expect(text).toMatch(/^## Doors$/m);
    expect(text).toMatch(/^- \[[^\]]+\]\(http[^)]+\): /m);
  });

  it('names every resource, every MCP tool, the limits and how to cite', () => {
    for (const r of resources) expect(text).toContain(`[${r.name}](${server.origin}/v1/odata/v4/${r.name}?`);
    for (const tool of Object.keys(TOOLS)) expect(text).toContain(`\`${tool}\``);
    expect(text).toContain('## Limits');
    expect(text).toContain('for 1 h after a newer one replaces it');
    expect(text).toContain('64 MiB');
    expect(text).toContain('## How to cite');
    for (const task of ['Count', 'Count as text', 'Page', 'Export', 'Cite', 'GIS']) expect(text).toMatch(new RegExp(`^- \\[${task}\\]\\(`, 'm'));
  });

  it('every URL of ours in it answers 200', async () => {
    const urls = ours(text);
    expect(urls.length).toBeGreaterThan(10);
    const statuses = await Promise.all(urls.map(async (u) => [u, await follow(u)] as const));
    expect(statuses.filter(([, s]) => s !== 200)).toEqual([]);
  });
});

it('llms-full.txt adds every field of every resource and every operation of the OpenAPI document', async () => {
  const full = await (await fetch(`${server.origin}/llms-full.txt`)).text();
  for (const r of resources) {
    expect(full).toContain(`## ${r.name} fields`);
    for (const f of r.fields.filter((f) => f.selectable)) expect(full).toContain(`- \`${f.name}\` (`);
  }
  expect(full).toContain('### GET `/v1/odata/v4/Records`');
  expect(full).toContain('### GET `/v1/citation/Records`');
});

describe('each budget in its unit (issue 53 item 6)', () => {
  it('the pages\' budget in rows, the discovery documents\' in requests, the files\' in bytes', async () => {
    const text = await (await fetch(`${server.origin}/llms.txt`)).text();
    const rate = text.split('\n').filter((l) => l.startsWith('- Rate:') || l.startsWith('- Discovery') || l.startsWith('- Dataset files'));
    expect(rate).toHaveLength(3);
    expect(rate[0]).toContain('counted in rows: 1000000000 rows per second, bursts of 2000000000 rows; a request costs the rows it returns, at least 500 rows.');
    expect(rate[1]).toContain('counted in requests: 1000000000 requests per second, bursts of 3000000000 requests.');
    expect(rate[2]).toContain('counted in bytes: 64 MiB per second, bursts of 512 MiB.');
    expect(text).not.toMatch(/1000000000 requests per second, bursts of 2000000000/);
  });
});

describe('written once, budgeted as a discovery document (issue 56 item 5)', () => {
  it('each Host gets its own links from the one text', async () => {
    const read = (host: string) => fetch(`${server.origin}/llms-full.txt`, { headers: { 'x-forwarded-host': host } }).then((r) => r.text());
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: true } });
    const [a, b] = await Promise.all(['a.example', 'b.example:8080'].map(async (host) => (await app.request('/llms-full.txt', { headers: { 'x-forwarded-host': host } })).text()));
    expect(a).toContain('http://a.example/v1/odata/v4/Records');
    expect(a!.replaceAll('http://a.example', 'BASE')).toBe(b!.replaceAll('http://b.example:8080', 'BASE'));
    expect(await read('ignored.example')).toContain(server.origin);
  });

  it('spends the discovery budget of the address that asks: over it, 429 with Retry-After', async () => {
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: false }, access: { discoveryRateLimit: { rps: 0.001, burst: 2 } } });
    const statuses: number[] = [];
    for (const path of ['/llms.txt', '/llms-full.txt', '/llms.txt']) {
      const res = await app.request(path);
      statuses.push(res.status);
      if (res.status === 429) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});
