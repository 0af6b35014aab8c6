/**
 * Hostile clients, round three, at the assistants' door (issue 56 items 3 and 5), on a real loopback socket: a
 * JSON-RPC batch is refused whole, `tools/list` is built once per process, a malformed `arguments` is the tool's
 * error naming it, an `Origin` that is neither listed nor the instance's own is 403, and an answer's text is a
 * summary, not every row again.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { acquirer, openDatabase, type Database } from '../db/database.js';
import { listen, type TestServer } from '../testing/test-server.js';
import { toolList } from './tool-list.js';

const LISTED = 'https://app.example.org';
let db: Database;
let server: TestServer;

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  server = await listen(createApp({ acquire: acquirer(db), links: { trustProxy: false }, access: { corsOrigins: [LISTED] } }));
});
afterAll(async () => {
  await server?.close();
  await db?.close();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
async function post(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.origin}/mcp`, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
const request = (id: number, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const call = (id: number, name: string, args: unknown) => request(id, 'tools/call', { name, arguments: args });

describe('JSON-RPC batches (issue 56 item 3)', () => {
  it('refuses an array with -32600 whatever it holds, answering none of its messages', async () => {
    for (const batch of [
      Array.from({ length: 100 }, (_, i) => request(i + 1, 'tools/list')),
      [call(1, 'count', { resource: 'Observations' }), call(2, 'count', { resource: 'Records' })],
      [request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } })],
      [],
    ]) {
      const res = await post(batch);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(res.body.error.message).toMatch(/batch.*not accepted.*one message per POST/);
    }
  });

  it('any array is refused the same way, whatever its messages (fast-check)', async () => {
    const message = fc.oneof(
      fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constantFrom('tools/list', 'tools/call', 'initialize', 'ping'), params: fc.object() }),
      fc.record({ jsonrpc: fc.constant('2.0'), method: fc.constant('notifications/initialized') }),
      fc.jsonValue(),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 20 }), async (batch) => {
        const res = await post(batch);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe(-32600);
      }),
      { numRuns: 40 },
    );
  });

  it('one message is answered as before', async () => {
    const res = await post(request(7, 'tools/list'));
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(7);
    expect(res.body.result.tools).toHaveLength(7);
  });
});

describe('tools/list built once per process', () => {
  it('every POST answers the list built once, which is the SDK’s own conversion of the tools', async () => {
    const built = toolList();
    expect(toolList()).toBe(built);
    const [a, b] = await Promise.all([post(request(1, 'tools/list')), post(request(2, 'tools/list'))]);
    expect(a.body.result).toEqual(await built);
    expect(b.body.result).toEqual(a.body.result);
    // What the official client reads from it: every tool with its input and output schema.
    const client = new Client({ name: 'once', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual((await built).tools.map((t) => t.name));
      for (const t of tools) expect(t.outputSchema?.type, t.name).toBe('object');
    } finally {
      await client.close();
    }
  });
});

describe('a malformed tools/call (issue 56 item 5)', () => {
  it('arguments that are not an object: the tool’s error naming "arguments", never -32603 with a zod dump', async () => {
    for (const [args, kind] of [['Records', 'a string'], [[1, 2], 'an array'], [7, 'a number'], [null, 'null']] as const) {
      const res = await post(call(3, 'query', args));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 3, result: { isError: true } });
      const text = res.body.result.content[0].text as string;
      expect(text).toBe(`The argument "arguments" of query must be an object of its named arguments, e.g. {"resource": "Records"}; got ${kind}.`);
    }
  });

  it('an argument of the wrong type is the tool’s error naming that argument', async () => {
    const res = await post(call(4, 'query', { resource: 'Records', top: 'ten' }));
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toMatch(/at top$/);
    expect(JSON.stringify(res.body)).not.toMatch(/"code":\s*"invalid_type"/);
  });

  it('params that are not an object, or no tool name: a tool error saying what tools/call takes', async () => {
    for (const params of ['query', { arguments: {} }]) {
      const res = await post(request(5, 'tools/call', params));
      expect(res.body.result.isError).toBe(true);
      expect(res.body.result.content[0].text).toMatch(/^tools\/call (takes|needs) params/);
    }
  });
});

describe('Origin (issue 56 item 5: DNS rebinding)', () => {
  it('an Origin neither on CORS_ORIGINS nor the instance’s own is 403; those two and none are served', async () => {
    const refused = await post(request(1, 'tools/list'), { origin: 'http://rebound.example' });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: 'origin_not_allowed' });
    expect(refused.body.message).toContain('CORS_ORIGINS');
    expect((await post(request(1, 'tools/list'), { origin: 'null' })).status).toBe(403);
    for (const origin of [LISTED, server.origin, server.origin.toUpperCase().replace('HTTP', 'http')]) {
      expect([origin, (await post(request(1, 'tools/list'), { origin })).status]).toEqual([origin, 200]);
    }
    expect((await post(request(1, 'tools/list'))).status).toBe(200);
  });
});

describe('an answer carries its rows once (issue 56 item 5)', () => {
  it('1,000 rows in structured content, a summary line and its links as text', async () => {
    const client = new Client({ name: 'rows-once', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
    try {
      const result = (await client.callTool({ name: 'query', arguments: { resource: 'Records', top: 1000 } })) as CallToolResult;
      const answer = result.structuredContent as { rows: unknown[]; url: string; next: string; total: number };
      expect(answer.rows).toHaveLength(1000);
      const [text, ...others] = result.content;
      expect(others).toEqual([]);
      const summary = text?.type === 'text' ? text.text : '';
      expect(summary.length).toBeLessThan(2048);
      expect(JSON.stringify(answer).length).toBeGreaterThan(100 * summary.length);
      expect(summary).toContain(answer.next);
      expect(summary).toContain(answer.url);
      expect(summary).toMatch(/^1,000 of [\d,]+ Records rows returned/);
    } finally {
      await client.close();
    }
  });
});
