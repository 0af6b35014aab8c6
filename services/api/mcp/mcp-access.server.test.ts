/**
 * The MCP door behind the API's keys, CORS rule and limits, on a real socket with the policy's middleware: no key
 * and a wrong key are refused as any /v1 request is, a listed browser origin is let in as on /v1; a tool call's reads
 * are counted against the caller's key and address (the access log names them); a burst of tool calls beyond the
 * key's budget is refused in the API's words, tool by tool, with no 5xx and no protocol failure.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { acquirer, openDatabase, type Database } from '../db/database.js';
import { openKeyStore, type KeyStore } from '../keys/key-store.js';
import { createQueryGate } from '../limits/query-gate.js';
import { listen, type TestServer } from '../testing/test-server.js';

const KEY = 'mcp-test-key';
/** A key of its own for the burst, so its budget is whole when the burst starts. */
const BURST_KEY = 'mcp-burst-key';
const BURST = 4;
const APP_ORIGIN = 'https://app.example.org';
let db: Database;
let keys: KeyStore;
let server: TestServer;
const log: { path: string; status: number; keyId?: string; client: string }[] = [];

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  keys = await openKeyStore({ plainKeys: [KEY, BURST_KEY], pollMs: 0 });
  const app = createApp({
    acquire: acquirer(db),
    links: { trustProxy: false },
    observe: { accessLog: (line) => log.push(JSON.parse(line)) },
    access: {
      keys,
      corsOrigins: [APP_ORIGIN],
      // The defaults main.ts passes (docs/api.md), with no holding back so a burst beyond the budget is refused at once.
      rateLimit: { rps: 2, burst: BURST, minRows: 1 },
      discoveryRateLimit: { rps: 10, burst: 60 },
      maxWaitMs: 0,
      maxConcurrentPerKey: 2,
      queryGate: createQueryGate({ maxConcurrent: 8, maxQueue: 64, maxWaitMs: 30_000 }),
    },
  });
  server = await listen(app);
});
afterAll(async () => {
  await server?.close();
  keys?.close();
  await db?.close();
});

const initialize = (headers: Record<string, string>) =>
  fetch(`${server.origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });

async function connect(key = KEY): Promise<Client> {
  const client = new Client({ name: 'tributary-access-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  return client;
}

describe('MCP behind keys and limits', () => {
  it('refuses a request without a key (401) or with a wrong one (403), in the API\'s words', async () => {
    const none = await initialize({});
    expect(none.status).toBe(401);
    expect(((await none.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('missing_api_key');
    const wrong = await initialize({ 'x-api-key': 'not-a-key' });
    expect(wrong.status).toBe(403);
    expect((await initialize({ 'x-api-key': KEY })).status).toBe(200);
  });

  it('follows the CORS rule: a listed origin may call without a key (its preflight allows MCP\'s header), another may not', async () => {
    const preflight = await fetch(`${server.origin}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/mcp-protocol-version/);
    const browser = new Client({ name: 'browser', version: '1' });
    await browser.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { requestInit: { headers: { origin: APP_ORIGIN } } }));
    const result = (await browser.callTool({ name: 'count', arguments: { resource: 'Locations' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    await browser.close();
    const other = await initialize({ origin: 'https://elsewhere.example.org' });
    expect(other.status).toBe(401);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a tool call\'s reads are the caller\'s requests: its key, its address', async () => {
    const client = await connect();
    log.length = 0;
    const result = (await client.callTool({ name: 'count', arguments: { resource: 'Records' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const read = log.find((l) => l.path.startsWith('/v1/odata/v4/Records'));
    expect(read).toMatchObject({ status: 200, client: '127.0.0.1' });
    expect(read!.keyId).toBeDefined();
    expect(read!.keyId).toBe(log.find((l) => l.path === '/mcp')!.keyId);
    await client.close();
  });

  it('a burst beyond the key\'s budget is refused tool by tool with the API\'s message, never a 5xx', async () => {
    const client = await connect(BURST_KEY);
    log.length = 0;
    const calls = 12;
    const results = (await Promise.all(
      Array.from({ length: calls }, () => client.callTool({ name: 'count', arguments: { resource: 'Observations', filter: "CharacteristicName eq 'pH'" } })),
    )) as CallToolResult[];
    const ok = results.filter((r) => !r.isError);
    const refused = results.filter((r) => r.isError);
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.length).toBeLessThanOrEqual(BURST);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect((r.content[0] as { text: string }).text).toMatch(/rate|at once|in flight|Retry/i);
    const counts = new Set(ok.map((r) => r.structuredContent!.count));
    expect(counts.size).toBe(1);
    expect(log.filter((l) => l.status >= 500)).toEqual([]);
    // Each call's read is one /v1 request: the served ones are the calls that answered. Refusals are sampled in the
    // access log (middleware/refusal-sampler.ts), so the 429s are counted from the tools' answers, not the lines.
    const reads = log.filter((l) => l.path.startsWith('/v1/'));
    expect(reads.filter((l) => l.status === 200)).toHaveLength(ok.length);
    expect(reads.every((l) => l.status === 200 || l.status === 429)).toBe(true);
    await client.close();
  });
});
