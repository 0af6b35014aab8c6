/**
 * Faults of the replicated topology (`make replicas`), survived and proved: two API replicas behind a real HAProxy,
 * a redis-server of this test's own on a free port (stopping it disturbs nobody), and the publication store on a
 * bind mount the test can switch read-only. Clients are of the official kind: sequential pages following
 * `@odata.nextLink`, gzip, 2 requests/s, asking again for a page they could not read whole and waiting out a 429.
 */
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishToStore } from '../../../ingest/publish-store.js';
import { copyPublished, REPO_ROOT } from '../../../services/api/testing/fixture-db.js';
import { exited, freePort, startRedisServer, startTopology, type Topology } from '../replicas/topology.js';
import { mountUnavailable, mountVolume, type Volume } from './mounts.js';
import { retryAfterMs, sleep, wholeGet, type WholeGet } from './whole-get.js';

const KEYS = ['ref', 'exp-ref', 'x1', 'x2', 'x3', 'x4', 'x5', 'p1', 'p2', 'r1', 'r2', 'r3', 'r4', 'burst-out', 'burst-back', 's1'];
const RECORDS = '/v1/odata/v4/Records';
// NDJSON asked for uncompressed (as curl without --compressed does): far more than the sockets between client and
// replica hold, so a kill while it is read always finds it unfinished.
const EXPORT = '/v1/export/Records?$format=ndjson';
const unavailable = await mountUnavailable();
let dir: string;
let volume: Volume | undefined;
let store: string;
let redisPort: number;
let redisServer: ChildProcess | undefined;
let topology: Topology | undefined;
const lines: string[] = [];

const startRedis = () => startRedisServer(redisPort);

async function waitForLines(pattern: RegExp, count: number, ms: number): Promise<void> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) if (lines.filter((l) => pattern.test(l)).length >= count) return;
  throw new Error(`fewer than ${count} log lines match ${pattern} after ${ms} ms`);
}

/** A client of the official kind: follows next links at 2 requests/s; a cut page or a 429 is asked for again. */
async function pageThrough(first: string, key: string, opts: { onFirstChunk?: (page: number, servedBy?: string) => Promise<void> | void; identity?: boolean } = {}) {
  const rows: string[] = [];
  const statuses: number[] = [];
  let cuts = 0;
  let next: string | undefined = first;
  for (let page = 0, attempts = 0; next && attempts < 40; attempts++) {
    const p = page;
    const res: WholeGet = await wholeGet(next, { headers: { 'x-api-key': key, ...(opts.identity ? { 'accept-encoding': 'identity' } : {}) }, onFirstChunk: opts.onFirstChunk && ((by) => opts.onFirstChunk!(p, by)) });
    statuses.push(res.status);
    if (res.status === 429) {
      await sleep(retryAfterMs(res));
      continue;
    }
    if (res.cut || !res.body) {
      cuts++;
      await sleep(500);
      continue;
    }
    if (res.status !== 200) {
      await sleep(500); // kept in `statuses`, which the tests check
      continue;
    }
    const body = JSON.parse(res.body.toString()) as { value: unknown[]; '@odata.nextLink'?: string };
    rows.push(...body.value.map((r) => JSON.stringify(r)));
    next = body['@odata.nextLink'];
    page++;
    await sleep(500);
  }
  expect(next, `${key} stopped at ${next} after ${statuses.join(',')} (${cuts} cut)`).toBeUndefined();
  return { rows, statuses, cuts };
}

/** A whole-result export read to its end; a cut one or a 429 asked for again. */
async function exportWhole(base: string, key: string, onFirstChunk?: (servedBy?: string) => Promise<void> | void) {
  const attempts: WholeGet[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await wholeGet(`${base}${EXPORT}`, { headers: { 'x-api-key': key, 'accept-encoding': 'identity' }, onFirstChunk: i === 0 ? onFirstChunk : undefined });
    attempts.push(res);
    if (res.status === 200 && !res.cut) return { body: res.body!, attempts };
    await sleep(res.status === 429 ? retryAfterMs(res) : 500);
  }
  throw new Error(`no whole export after 20 attempts: ${attempts.map((a) => `${a.status}${a.cut ? ' cut' : ''}`).join(', ')}`);
}

/** What HAProxy said of the replicas (taken out, back), for the message of a failed check. */
const balancerLog = () => lines.filter((l) => l.startsWith('haproxy:')).join('\n');

const readyzPublication = async (url: string) => (JSON.parse((await wholeGet(`${url}/readyz`)).body?.toString() ?? '{}') as { publication?: string }).publication;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-faults-'));
  mkdirSync(join(dir, 'store'));
  volume = unavailable ? undefined : await mountVolume(join(dir, 'store'), join(dir, 'volume'));
  store = volume?.path ?? join(dir, 'store');
  copyPublished(inject('apiFixtureDb'), join(dir, 'first.duckdb'));
  await publishToStore(store, join(dir, 'first.duckdb'));
  redisPort = await freePort();
  redisServer = await startRedis();
  topology = await startTopology({
    replicas: 2,
    redisUrl: `redis://127.0.0.1:${redisPort}`,
    store,
    // The limits the tests reason about, whatever the defaults become.
    env: { API_KEYS: KEYS.join(','), PAGE_ROWS_PER_SECOND: '20000', PAGE_ROWS_BURST: '40000', PAGE_MIN_ROWS: '10000', MAX_CONCURRENT_PER_KEY: '2', MAX_CONCURRENT_EXPORTS: '1' },
    log: (l) => lines.push(l),
  });
}, 120_000);

afterAll(async () => {
  await topology?.stop();
  if (redisServer) {
    redisServer.kill('SIGKILL');
    await exited(redisServer);
  }
  await volume?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('faults of the replicated topology', () => {
  it('a replica killed with SIGKILL mid-page and mid-export: each paging client gets exactly its rows by asking for its next link again; the export is seen cut and a retry is whole', async () => {
    const replica = topology!.replicas[0]!.url;
    // Pages of 10,000 whole rows, as the official clients ask for: the first bytes of one go out long before its
    // last rows are rendered, so a kill at those first bytes finds it unfinished (pages of 3,000 could be whole by then).
    const walk = `${RECORDS}?$top=10000`;
    const expected = (await pageThrough(`${replica}${walk}`, 'ref')).rows;
    expect(expected.length).toBeGreaterThan(20_000);
    const expectedExport = (await exportWhole(replica, 'exp-ref')).body;

    // The export's key is one the balancer sends to p1's replica, so an export and a paging client share the victim.
    // (One key's page and export at once would be refused by the query gate's share per client.)
    const servedBy = async (key: string) => (await wholeGet(`${topology!.url}${RECORDS}?$top=1&$select=Id`, { headers: { 'x-api-key': key } })).servedBy;
    const victimName = await servedBy('p1');
    let exportKey: string | undefined;
    for (const key of ['x1', 'x2', 'x3', 'x4', 'x5']) if (!exportKey && (await servedBy(key)) === victimName) exportKey = key;
    expect(exportKey).toBeDefined();
    const victim = topology!.replicas.findIndex((r) => r.name === victimName);

    // The export starts and pauses at its first bytes; the paging clients start, and when p1 has the first bytes of
    // its second page, the replica is killed: the export and that page are both unfinished.
    let kill!: () => void;
    const killed = new Promise<void>((r) => (kill = r));
    let exportStarted!: () => void;
    const started = new Promise<void>((r) => (exportStarted = r));
    const exporting = exportWhole(topology!.url, exportKey!, (by) => {
      expect(by).toBe(victimName);
      exportStarted();
      return killed;
    });
    await started;
    let victimKilled = false;
    const killVictim = async () => {
      if (victimKilled) return; // p1 asking for its cut page again
      victimKilled = true;
      topology!.replicas[victim]!.process.kill('SIGKILL');
      await exited(topology!.replicas[victim]!.process);
      kill();
    };
    const clients = ['p1', 'p2'].map((key) =>
      // p1 uncompressed, so that what its replica still has to send exceeds what the sockets hold while it pauses.
      pageThrough(`${topology!.url}${walk}`, key, { identity: key === 'p1', onFirstChunk: (page) => (key === 'p1' && page === 1 ? killVictim() : undefined) }),
    );
    const results = await Promise.all(clients).finally(() => topology!.restart(victim));
    for (const r of results) {
      expect(r.rows).toEqual(expected);
      expect(r.statuses.filter((s) => s >= 500), balancerLog()).toEqual([]);
    }
    expect(results[0]!.cuts).toBeGreaterThanOrEqual(1); // p1 was reading a page of the victim
    const exported = await exporting;
    expect(exported.attempts[0]!.cut).toBe(true);
    expect(exported.attempts.map((a) => a.status).filter((s) => s >= 500), balancerLog()).toEqual([]);
    expect(exported.body.equals(expectedExport)).toBe(true);
    // It streams tens of MB through two replicas and restarts one: on a 2-core machine shared with other test files
    // it has taken more than the default minute.
  }, 120_000);

  it('Redis stopped and started mid-run: nothing answers 5xx; limits fall back to each replica alone, then are kept in Redis again', async () => {
    const statuses: number[] = [];
    let running = true;
    // Paging clients through the balancer for the whole run, each request's status kept.
    const clients = ['r1', 'r2', 'r3', 'r4'].map(async (key) => {
      let next: string | undefined;
      while (running) {
        const res = await wholeGet(next ?? `${topology!.url}${RECORDS}?$top=2000&$select=Id,DOI`, { headers: { 'x-api-key': key } });
        statuses.push(res.cut ? -1 : res.status);
        if (res.status === 200 && res.body) next = (JSON.parse(res.body.toString()) as { '@odata.nextLink'?: string })['@odata.nextLink'];
        await sleep(res.status === 429 ? retryAfterMs(res) : 500);
      }
    });
    const served = async (key: string) => {
      const out: number[] = [];
      for (let i = 0; i < 6; i++) out.push((await wholeGet(`${topology!.replicas[i % 2]!.url}${RECORDS}?$top=1&$select=Id`, { headers: { 'x-api-key': key } })).status);
      return out;
    };
    await sleep(1000);
    redisServer!.kill('SIGTERM');
    await exited(redisServer!);
    redisServer = undefined;
    // Each replica limits alone, failing open: a key is served by both without Redis, and each says so once.
    expect(await served('burst-out')).toEqual([200, 200, 200, 200, 200, 200]);
    await waitForLines(/WARNING: Redis .* unreachable/, 2, 10_000);
    const exportDuringOutage = await exportWhole(topology!.url, 's1');
    expect(exportDuringOutage.body.length).toBeGreaterThan(0);

    redisServer = await startRedis(); // empty: no persistence
    await waitForLines(/reachable again/, 2, 15_000);
    // Shared again: the buckets of the requests since are in the new Redis.
    expect((await served('burst-back')).filter((s) => s !== 200 && s !== 429)).toEqual([]);
    const redis = new Redis({ port: redisPort, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    try {
      expect((await redis.keys('*rate:*')).length).toBeGreaterThanOrEqual(1);
    } finally {
      redis.disconnect();
    }
    running = false;
    await Promise.all(clients);
    expect(statuses.length).toBeGreaterThan(8);
    expect(statuses.filter((s) => s !== 200 && s !== 429), balancerLog()).toEqual([]);
  });

  it.skipIf(unavailable !== undefined)(`the store's volume read-only during a publish: the publish fails naming it, the replicas keep serving${unavailable ? ` (skipped: ${unavailable})` : ''}`, async () => {
    const current = readFileSync(join(store, 'CURRENT'), 'utf8').trim();
    const working = join(dir, 'ingest', 'tributary.duckdb');
    const env = { ...process.env, DUCKDB_PATH: working, PUBLICATION_STORE: store };
    const remove = () =>
      promisify(execFile)(process.execPath, [inject('ingestCli'), 'remove', '10.25976/231z-py15'], { cwd: REPO_ROOT, env }).then(
        ({ stderr }) => ({ code: 0, stderr }),
        (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
      );
    await volume!.readOnly();
    let failed: { code: number; stderr: string };
    try {
      failed = await remove();
    } finally {
      await volume!.writable();
    }
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toMatch(/Read-only file system/);
    expect(failed.stderr).toContain(`the publication store ${store} is read-only: remount its volume read-write, then run the same command again`);
    expect(readFileSync(join(store, 'CURRENT'), 'utf8').trim()).toBe(current);
    for (const r of topology!.replicas) {
      expect(await readyzPublication(r.url)).toBe(current);
      const page = await wholeGet(`${r.url}${RECORDS}?$top=10&$select=Id`, { headers: { 'x-api-key': 'p1' } });
      expect(page.status).toBe(200);
    }

    // Writable again, the same command publishes and both replicas switch to it.
    const done = await remove();
    expect(done.code, done.stderr).toBe(0);
    const published = readFileSync(join(store, 'CURRENT'), 'utf8').trim();
    expect(published).not.toBe(current);
    for (let i = 0; i < 100; i++) {
      const seen = await Promise.all(topology!.replicas.map((r) => readyzPublication(r.url)));
      if (seen.every((p) => p === published)) return;
      await sleep(100);
    }
    throw new Error(`the replicas did not switch to ${published}`);
  });
});
