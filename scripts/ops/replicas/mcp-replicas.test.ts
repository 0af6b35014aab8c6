/**
 * The MCP door through the replicated topology: two API replicas behind a real HAProxy on loopback, sharing a real
 * Redis (a redis-server of this test's own) and a publication store. The MCP server is stateless, so any message
 * may reach any replica; a key's budget is Redis's, so tool calls spread over the replicas spend one bucket.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishToStore } from '../../../ingest/publish-store.js';
import { issueKeyInRedis } from '../../../services/api/keys/redis-keys.js';
import { copyPublished } from '../../../services/api/testing/fixture-db.js';
import { exited, freePort, startRedisServer, startTopology, type Topology } from './topology.js';

const PH = "CharacteristicName eq 'pH'";
const BURST = 4;
let dir: string;
let redisServer: ChildProcess | undefined;
let redis: Redis;
let topology: Topology | undefined;
const keys: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-mcp-replicas-'));
  const store = join(dir, 'store');
  copyPublished(inject('apiFixtureDb'), join(dir, 'first.duckdb'));
  await publishToStore(store, join(dir, 'first.duckdb'));
  const redisPort = await freePort();
  redisServer = await startRedisServer(redisPort);
  redis = new Redis({ port: redisPort, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  for (const name of ['balanced', 'spread', 'burst']) keys[name] = (await issueKeyInRedis(redis, 'tributary:', `${name}@example.org`)).key;
  // Refused, not held back: the shared bucket shows in the refusals.
  topology = await startTopology({ replicas: 2, redisUrl: `redis://127.0.0.1:${redisPort}`, store, env: { RATE_LIMIT_MAX_WAIT_MS: '0', PAGE_ROWS_PER_SECOND: '2000', PAGE_ROWS_BURST: String(BURST * 1000), PAGE_MIN_ROWS: '1000' } });
}, 120_000);

afterAll(async () => {
  await topology?.stop();
  redis?.disconnect();
  if (redisServer) {
    redisServer.kill('SIGKILL');
    await exited(redisServer);
  }
  rmSync(dir, { recursive: true, force: true });
});

/** An SDK client whose every POST goes to the next replica in turn, skipping the balancer: what a stateless server must survive. */
async function roundRobinClient(key: string, servedBy: string[]): Promise<Client> {
  let next = 0;
  const fetchNext = async (url: string | URL, init?: RequestInit) => {
    const replica = topology!.replicas[next++ % topology!.replicas.length]!;
    const target = new URL(url);
    servedBy.push(replica.name);
    return fetch(`${replica.url}${target.pathname}${target.search}`, init);
  };
  const client = new Client({ name: 'tributary-replicas-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${topology!.url}/mcp`), { fetch: fetchNext, requestInit: { headers: { 'x-api-key': key } } }));
  return client;
}

async function httpCount(base: string, key: string, publication: string): Promise<number> {
  const res = await fetch(`${base}/v1/odata/v4/Observations?$filter=${encodeURIComponent(PH)}&$count=true&publication=${publication}`, { headers: { 'x-api-key': key } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { value: number }).value;
}

describe('MCP through the replicas and HAProxy', () => {
  it('answers through the balancer, with URLs that point at the balancer', async () => {
    const client = new Client({ name: 'tributary-replicas-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${topology!.url}/mcp`), { requestInit: { headers: { 'x-api-key': keys['balanced']! } } }));
    expect((await client.listTools()).tools).toHaveLength(7);
    const result = (await client.callTool({ name: 'count', arguments: { resource: 'Observations', filter: PH } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as { count: number; url: string; publication: string };
    expect(answer.url.startsWith(`${topology!.url}/`)).toBe(true);
    expect(answer.count).toBe(await httpCount(topology!.url, keys['balanced']!, answer.publication));
    await client.close();
  });

  it('is stateless: initialize on one replica, list and call on the others, each answer the same', async () => {
    const servedBy: string[] = [];
    const client = await roundRobinClient(keys['spread']!, servedBy);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('query');
    const answers = [];
    for (let i = 0; i < 2; i++) answers.push((await client.callTool({ name: 'query', arguments: { resource: 'Records', filter: PH, top: 3 } })) as CallToolResult);
    expect(answers.map((a) => a.isError ?? false)).toEqual([false, false]);
    // Each replica, addressed directly, names itself as the origin of its URLs; the rest is the same answer.
    const sameOrigin = (a: CallToolResult) => JSON.parse(topology!.replicas.reduce((text, r) => text.replaceAll(r.url, 'ORIGIN'), JSON.stringify(a.structuredContent)));
    expect(sameOrigin(answers[1]!)).toEqual(sameOrigin(answers[0]!));
    expect(new Set(servedBy).size).toBe(2);
    await client.close();
  });

  it('a key\'s budget is shared: tool calls spread over both replicas spend one bucket, refused in the API\'s words, never a 5xx', async () => {
    const client = await roundRobinClient(keys['burst']!, []);
    const results: CallToolResult[] = [];
    const started = Date.now();
    for (let i = 0; i < 12; i++) results.push((await client.callTool({ name: 'count', arguments: { resource: 'Observations', filter: PH } })) as CallToolResult);
    const ok = results.filter((r) => !r.isError);
    const refused = results.filter((r) => r.isError);
    const seconds = (Date.now() - started) / 1000;
    // One bucket, not one per replica: the burst plus the 2,000 rows per second elapsed (a count costs the floor, 1,000 rows) (one more refilled during the last call).
    expect(ok.length).toBeGreaterThanOrEqual(BURST);
    expect(ok.length).toBeLessThanOrEqual(BURST + Math.ceil(2 * seconds) + 1);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect((r.content[0] as { text: string }).text).toMatch(/rate|Retry|per second/i);
    await client.close();
  });
});
