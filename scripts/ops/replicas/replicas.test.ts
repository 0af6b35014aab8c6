/**
 * Three API replicas behind a real HAProxy on loopback, sharing a real Redis (a redis-server of this test's own on
 * a free port, so that stopping it disturbs nobody) and a publication store in a temporary directory.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishToStore } from '../../../ingest/publish-store.js';
import { issueKeyInRedis, revokeKeyInRedis } from '../../../services/api/keys/redis-keys.js';
import { copyPublished } from '../../../services/api/testing/fixture-db.js';
import { exited, freePort, REPO_ROOT, startRedisServer, startTopology, waitForOk, type Topology } from './topology.js';

const PREFIX = 'tributary:';
const RECORDS = '/v1/odata/v4/Records';
let dir: string;
let store: string;
let redisPort: number;
let redisServer: ChildProcess | undefined;
let redis: Redis;
let topology: Topology | undefined;
const keys: Record<string, { key: string; id: string }> = {};
const lines: string[] = [];

const startRedis = () => startRedisServer(redisPort);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function get(url: string, key?: string): Promise<{ status: number; body: string; servedBy: string | null }> {
  const res = await fetch(url, { headers: key ? { 'x-api-key': key } : {}, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, body: await res.text(), servedBy: res.headers.get('x-served-by') };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-replicas-'));
  store = join(dir, 'store');
  copyPublished(inject('apiFixtureDb'), join(dir, 'first.duckdb'));
  await publishToStore(store, join(dir, 'first.duckdb'));
  redisPort = await freePort();
  redisServer = await startRedis();
  redis = new Redis({ port: redisPort, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  for (const name of ['rate', 'parallel', 'revoked', 'extract', 'partition', 'outage', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6']) {
    const { key, record } = await issueKeyInRedis(redis, PREFIX, `${name}@example.org`);
    keys[name] = { key, id: record.id };
  }
  topology = await startTopology({
    replicas: 3,
    redisUrl: `redis://127.0.0.1:${redisPort}`,
    store,
    // Refused, not held back (RATE_LIMIT_MAX_WAIT_MS): the shared bucket shows in the refusals it counts.
    // Each request costs the floor (its pages are smaller): the budget of rows is then 2 requests/s in bursts of 4.
    env: { CURSOR_CACHE_SIZE: '2', RATE_LIMIT_MAX_WAIT_MS: '0', PAGE_ROWS_PER_SECOND: '20000', PAGE_ROWS_BURST: '40000', PAGE_MIN_ROWS: '10000' },
    log: (l) => lines.push(l),
  });
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

const replicaUrls = () => topology!.replicas.map((r) => r.url);

describe('replicas behind HAProxy', () => {
  it('a key is limited to 2 req/s with bursts of 4 across all three replicas, not three times that', async () => {
    const { key } = keys['rate']!;
    const statuses: number[] = [];
    // Round robin straight onto the replicas, without pause, for 3 s (bounded: at most 300 requests).
    const started = Date.now();
    for (let i = 0; i < 300 && Date.now() - started < 3000; i++) statuses.push((await get(`${replicaUrls()[i % 3]}${RECORDS}?$top=1&$select=Id`, key)).status);
    const seconds = (Date.now() - started) / 1000;
    const allowed = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // One bucket: the burst of 4 plus 2 per second elapsed (one more for a token refilled during the last request).
    expect(allowed).toBeLessThanOrEqual(4 + Math.ceil(2 * seconds) + 1);
    expect(allowed).toBeGreaterThanOrEqual(4 + Math.floor(2 * seconds) - 1);
    expect(statuses.length).toBeGreaterThan(3 * allowed); // every replica was asked many times
    const refused = await fetch(`${replicaUrls()[1]}${RECORDS}?$top=1`, { headers: { 'x-api-key': key } });
    if (refused.status === 429) {
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      // The bucket's size in rows (PAGE_ROWS_BURST): four requests at the floor.
      expect(refused.headers.get('ratelimit-limit')).toBe('40000');
    }
  });

  it('MAX_CONCURRENT_PER_KEY (2) holds across replicas: two pages streaming on two replicas, a third request on the third is 429', async () => {
    const { key } = keys['parallel']!;
    const open: { destroy: () => void }[] = [];
    const startPage = (base: string) =>
      new Promise<void>((resolve, reject) => {
        // A connection of its own per page in flight: the keep-alive global agent would share or reuse sockets.
        const req = request(`${base}${RECORDS}?$top=10000`, { headers: { 'x-api-key': key }, agent: false }, (res) => {
          expect(res.statusCode).toBe(200);
          res.pause(); // a slow client: the response stays in flight
          open.push({ destroy: () => res.destroy() });
          resolve();
        });
        req.on('error', reject);
        req.end();
      });
    await startPage(replicaUrls()[0]!);
    await startPage(replicaUrls()[1]!);
    const third = await get(`${replicaUrls()[2]}${RECORDS}?$top=1`, key);
    expect(third.status).toBe(429);
    expect(third.body).toMatch(/at most 2 per key at once/);
    for (const o of open) o.destroy();
    // The places are released when the pages end (here: cut), on whichever replica held them.
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      await sleep(100);
      status = (await get(`${replicaUrls()[2]}${RECORDS}?$top=1`, key)).status;
    }
    expect(status).toBe(200);
  });

  it('a key revoked once is refused by every replica within a second', async () => {
    const { key, id } = keys['revoked']!;
    for (const url of replicaUrls()) expect((await get(`${url}${RECORDS}?$top=1&$select=Id`, key)).status).toBe(200);
    await sleep(1500); // the bucket refills: a 429 must not stand in for the 403
    const revokedAt = Date.now();
    await revokeKeyInRedis(redis, PREFIX, id);
    const refusedAfter: number[] = [];
    for (const url of replicaUrls()) {
      for (let i = 0; i < 60; i++) {
        const { status, body } = await get(`${url}${RECORDS}?$top=1&$select=Id`, key);
        if (status === 403) {
          expect(body).toMatch(/revoked/);
          refusedAfter.push(Date.now() - revokedAt);
          break;
        }
        await sleep(50);
      }
    }
    expect(refusedAfter).toHaveLength(3);
    expect(Math.max(...refusedAfter)).toBeLessThan(1000);
  });

  it('one publish reaches all three replicas within 5 s; /readyz names it', async () => {
    const second = join(dir, 'second.duckdb');
    copyPublished(join(dir, 'first.duckdb'), second);
    await promisify(execFile)(process.execPath, [inject('ingestCli'), 'remove', '10.25976/231z-py15'], { cwd: REPO_ROOT, env: { ...process.env, DUCKDB_PATH: second } });
    const published = await publishToStore(store, second);
    const at = Date.now();
    const seen = new Set<string>();
    for (let i = 0; i < 100 && seen.size < 3; i++) {
      for (const url of replicaUrls()) {
        const body = JSON.parse((await get(`${url}/readyz`)).body) as { publication?: string };
        if (body.publication === published.id) seen.add(url);
      }
      if (seen.size < 3) await sleep(100);
    }
    expect(seen.size).toBe(3);
    expect(Date.now() - at).toBeLessThan(5000);
  });

  it("the official clients' partitioned extract through the balancer returns exactly the rows one replica returns", async () => {
    const { key } = keys['partition']!;
    const filter = "RegionId eq 'admin.4.ca.ab'";
    /** Lists the matching locations, then pages each location's observations, as the Python and R clients do. */
    async function partitioned(base: string): Promise<string[]> {
      const rows: string[] = [];
      const follow = async (first: string, each: (row: Record<string, unknown>) => void) => {
        let next: string | undefined = first;
        for (let i = 0; i < 50 && next; i++) {
          const res = await get(next, key);
          expect(res.status).toBe(200);
          const page = JSON.parse(res.body) as { value: Record<string, unknown>[]; '@odata.nextLink'?: string };
          page.value.forEach(each);
          next = page['@odata.nextLink'];
          await sleep(550);
        }
        expect(next).toBeUndefined();
      };
      const locations: unknown[] = [];
      await follow(`${base}/v1/odata/v4/Locations?$select=Id&$filter=${encodeURIComponent(filter)}`, (l) => locations.push(l['Id']));
      for (const id of locations) {
        await follow(`${base}/v1/odata/v4/Observations?$top=5000&$filter=${encodeURIComponent(`LocationId eq ${String(id)} and ${filter}`)}`, (r) => rows.push(JSON.stringify(r)));
      }
      expect(locations.length).toBeGreaterThan(1);
      return rows;
    }
    const direct = await partitioned(replicaUrls()[2]!);
    const balanced = await partitioned(topology!.url);
    expect(direct.length).toBeGreaterThan(1000);
    expect(balanced).toEqual(direct);
  });

  it('kill -9 of the replica serving a client between two pages: following next links through the balancer, every row comes exactly once', async () => {
    const { key } = keys['extract']!;
    // What one replica alone returns, straight from it.
    const expected: number[] = [];
    let next: string | undefined = `${replicaUrls()[0]}${RECORDS}?$top=10000&$select=Id`;
    for (let i = 0; i < 20 && next; i++) {
      const page = JSON.parse((await get(next, key)).body) as { value: { Id: number }[]; '@odata.nextLink'?: string };
      expected.push(...page.value.map((r) => r.Id));
      next = page['@odata.nextLink'];
      await sleep(600);
    }
    expect(expected.length).toBeGreaterThan(20_000);

    const ids: number[] = [];
    const servers: string[] = [];
    let killed: number | undefined;
    next = `${topology!.url}${RECORDS}?$top=2500&$select=Id`;
    for (let i = 0; i < 40 && next; i++) {
      const res = await get(next, key);
      expect(res.status).toBe(200);
      expect(next.startsWith(topology!.url)).toBe(true); // next links point at the balancer
      const page = JSON.parse(res.body) as { value: { Id: number }[]; '@odata.nextLink'?: string };
      ids.push(...page.value.map((r) => r.Id));
      servers.push(res.servedBy!);
      next = page['@odata.nextLink'];
      if (i === 2) {
        killed = topology!.replicas.findIndex((r) => r.name === res.servedBy);
        topology!.replicas[killed]!.process.kill('SIGKILL');
        await exited(topology!.replicas[killed]!.process);
      }
      await sleep(500); // the official clients' pace
    }
    expect(ids).toEqual(expected);
    expect(new Set(servers.slice(0, 3)).size).toBe(1); // one key stays on one replica
    expect(servers.slice(3)).not.toContain(servers[0]);
    await topology!.restart(killed!);
  });

  it('SIGTERM: the draining replica leaves the rotation without a failed request', async () => {
    const clientKeys = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'].map((k) => keys[k]!.key);
    const statuses: number[] = [];
    const servedBy = new Set<string>();
    let stop = false;
    const clients = clientKeys.map(async (key) => {
      for (let i = 0; i < 40 && !stop; i++) {
        const res = await get(`${topology!.url}${RECORDS}?$top=100&$select=Id`, key).catch((err: Error) => ({ status: -1, body: err.message, servedBy: null }));
        statuses.push(res.status);
        if (res.servedBy) servedBy.add(res.servedBy);
        await sleep(550);
      }
    });
    await sleep(1000);
    const victim = topology!.replicas[1]!;
    victim.process.kill('SIGTERM');
    await exited(victim.process);
    await sleep(1000);
    stop = true;
    await Promise.all(clients);
    expect(victim.process.exitCode).toBe(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(statuses.length).toBeGreaterThan(20);
    await topology!.restart(1);
  });

  it('Redis stopped mid-run: every replica keeps serving (each limiting alone, logged) and issued keys stay valid; restarted, the limit is shared again', async () => {
    const { key } = keys['outage']!;
    redisServer!.kill('SIGKILL');
    await exited(redisServer!);
    redisServer = undefined;
    for (const url of replicaUrls()) {
      const started = Date.now();
      const res = await get(`${url}${RECORDS}?$top=1&$select=Id`, key);
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2000);
    }
    // Each replica alone: a burst of 4 each, so more than the shared 4 get through.
    let allowed = 0;
    for (let i = 0; i < 15; i++) if ((await get(`${replicaUrls()[i % 3]}${RECORDS}?$top=1&$select=Id`, key)).status === 200) allowed++;
    expect(allowed).toBeGreaterThan(4);
    expect(lines.filter((l) => /WARNING: Redis .* unreachable/.test(l)).length).toBeGreaterThanOrEqual(3);
    expect(lines.join('\n')).not.toContain(key);

    redisServer = await startRedis(); // empty: no persistence
    for (let i = 0; i < 100 && lines.filter((l) => l.includes('reachable again')).length < 3; i++) await sleep(100);
    expect(lines.filter((l) => l.includes('reachable again')).length).toBeGreaterThanOrEqual(3);
    await sleep(2500); // the replicas' own buckets refill, so what follows measures Redis's
    let shared = 0;
    for (let i = 0; i < 12; i++) if ((await get(`${replicaUrls()[i % 3]}${RECORDS}?$top=1&$select=Id`, key)).status === 200) shared++;
    expect(shared).toBeGreaterThanOrEqual(4);
    expect(shared).toBeLessThanOrEqual(5);
    // Redis came back without the keys: the replicas keep the keys they had rather than refuse every client.
    expect(lines.some((l) => l.includes('is gone from Redis'))).toBe(true);
  });
});
