/**
 * `make bench-replicas`: what replicas cost and give on this machine, in one run on loopback.
 *
 *   1. the limiter's cost per request: the in-process token bucket against the Redis script (one round trip),
 *      and a concurrency place taken and released in Redis;
 *   2. the balancer's overhead: a one-row page straight from a replica against the same through HAProxy;
 *   3. the paged JSON extract of /Records: straight from one replica, through HAProxy to 1 replica and to 3;
 *   4. the load test's mix (48 paced keys, 0.5 s apart, pages of 500–2,000 rows; 2 greedy keys without pause) for
 *      LOAD_SECONDS through HAProxy to 1 and to 3 replicas, with the default limits shared in Redis.
 *
 * Builds a ROWS-row sample (default 200,000) in a temporary directory and starts its own redis-server on a free
 * port. Env: ROWS, LOAD_SECONDS (default 20), SMALL_REQUESTS (default 500). Prints a table; writes the figures to
 * data/bench/replicas-<time>.json.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { publishToStore } from '../../../ingest/publish-store.js';
import { tokenBuckets } from '../../../services/api/middleware/rate-limit.js';
import { createRedis, waitForRedis } from '../../../services/api/redis/redis-client.js';
import { redisRateLimit } from '../../../services/api/redis/redis-rate-limit.js';
import { redisSlots } from '../../../services/api/redis/redis-slots.js';
import { exited, freePort, REPO_ROOT, startRedisServer, startTopology, type Topology } from './topology.js';

const run = promisify(execFile);
const num = (name: string, def: number, max: number) => Math.min(max, Number(process.env[name] ?? def) || def);
const ROWS = num('ROWS', 200_000, 10_000_000);
const LOAD_SECONDS = num('LOAD_SECONDS', 20, 600);
const SMALL = num('SMALL_REQUESTS', 500, 100_000);
const CLIENTS = 50;
const GREEDY = 2;
const KEYS = Array.from({ length: CLIENTS }, (_, i) => `bench-key-${i}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quantile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(v < 1 ? 3 : 1) : '–');
const us = (msValue: number) => `${(msValue * 1000).toFixed(msValue < 0.01 ? 2 : 0)} µs`;

const otherStatuses = (x: Record<string, number>) => {
  const parts = Object.entries(x).filter(([k]) => k.startsWith('status')).map(([k, v]) => `${v}× ${k.slice(6)}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
};

async function timeGet(url: string, key: string): Promise<{ status: number; ms: number; body: string }> {
  const t = performance.now();
  const res = await fetch(url, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(60_000) });
  const body = await res.text();
  return { status: res.status, ms: performance.now() - t, body };
}

async function limiterCost(redisUrl: string): Promise<Record<string, number>> {
  const local = tokenBuckets({ rps: 1e9, burst: 1e9 });
  const n = 200_000;
  let t = performance.now();
  for (let i = 0; i < n; i++) local(`k${i % 50}`, Date.now());
  const inProcess = (performance.now() - t) / n;
  const redis = createRedis({ url: redisUrl });
  await waitForRedis(redis, redisUrl, 5000);
  const take = redisRateLimit(redis, { rps: 1e9, burst: 1e9, prefix: 'bench:' });
  const slots = redisSlots(redis, { prefix: 'bench:' });
  for (let i = 0; i < 200; i++) await take('warm'); // scripts loaded, connection warm
  const m = 2000;
  t = performance.now();
  for (let i = 0; i < m; i++) await take(`k${i % 50}`);
  const shared = (performance.now() - t) / m;
  t = performance.now();
  for (let i = 0; i < m; i++) (await slots.tryAcquire(`k${i % 50}`, 1000))?.();
  const place = (performance.now() - t) / m;
  slots.close();
  redis.disconnect();
  return { inProcessMs: inProcess, redisRateMs: shared, redisPlaceMs: place };
}

/**
 * The same request straight to the replica and through HAProxy, alternately, so that both see the same machine
 * (other work on it changes from second to second); the overhead is the median of the pairs' differences.
 */
async function paired(direct: string, balanced: string, path: string): Promise<Record<string, number>> {
  const a: number[] = [];
  const b: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < SMALL; i++) {
    const key = KEYS[i % KEYS.length]!;
    const x = (await timeGet(`${direct}${path}`, key)).ms;
    const y = (await timeGet(`${balanced}${path}`, key)).ms;
    a.push(x);
    b.push(y);
    diff.push(y - x);
  }
  for (const v of [a, b, diff]) v.sort((p, q) => p - q);
  return { directP50: quantile(a, 0.5), directP99: quantile(a, 0.99), balancedP50: quantile(b, 0.5), balancedP99: quantile(b, 0.99), overheadMedian: quantile(diff, 0.5) };
}

async function extract(url: string): Promise<{ rows: number; seconds: number; rowsPerSecond: number }> {
  let next: string | undefined = `${url}/v1/odata/v4/Records?$top=10000`;
  let rows = 0;
  const t = performance.now();
  for (let i = 0; i < 10_000 && next; i++) {
    const res = await timeGet(next, 'bench-extract');
    if (res.status !== 200) throw new Error(`extract page ${i}: status ${res.status}`);
    const page = JSON.parse(res.body) as { value: unknown[]; '@odata.nextLink'?: string };
    rows += page.value.length;
    next = page['@odata.nextLink'];
  }
  const seconds = (performance.now() - t) / 1000;
  return { rows, seconds, rowsPerSecond: rows / seconds };
}

const PAGES = ['$top=1000&$select=Id,DOI,CharacteristicName,ResultValue,ResultUnit,ActivityStartDate', "$top=500&$filter=CharacteristicName eq 'pH'", '$top=2000&$select=Id,MonitoringLocationID,ResultValue'];

async function load(url: string): Promise<Record<string, number>> {
  const until = Date.now() + LOAD_SECONDS * 1000;
  const paced: number[] = [];
  const statuses = new Map<number, number>();
  let requests = 0;
  let errors = 0;
  const client = async (i: number, greedy: boolean) => {
    const key = KEYS[i]!;
    let next: string | undefined;
    while (Date.now() < until) {
      const started = Date.now();
      next ??= `${url}/v1/odata/v4/Records?${PAGES[i % PAGES.length]}`;
      try {
        const res = await timeGet(next, key);
        requests++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 200) {
          if (!greedy) paced.push(res.ms);
          next = (JSON.parse(res.body) as { '@odata.nextLink'?: string })['@odata.nextLink'];
        } else if (res.status === 429) await sleep(greedy ? 500 : 0);
      } catch {
        errors++;
      }
      if (!greedy) await sleep(Math.max(0, 500 - (Date.now() - started)));
    }
  };
  const t = performance.now();
  await Promise.all(KEYS.map((_, i) => client(i, i < GREEDY)));
  const seconds = (performance.now() - t) / 1000;
  paced.sort((a, b) => a - b);
  return {
    seconds,
    requests,
    requestsPerSecond: requests / seconds,
    ok: statuses.get(200) ?? 0,
    tooMany: statuses.get(429) ?? 0,
    otherStatuses: requests - (statuses.get(200) ?? 0) - (statuses.get(429) ?? 0),
    ...Object.fromEntries([...statuses].filter(([k]) => k !== 200 && k !== 429).map(([k, v]) => [`status${k}`, v])),
    errors,
    pacedP50: quantile(paced, 0.5),
    pacedP99: quantile(paced, 0.99),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'tributary-bench-replicas-'));
const redisPort = await freePort();
const redisServer = await startRedisServer(redisPort);
let topology: Topology | undefined;
const results: Record<string, unknown> = { rows: ROWS, loadSeconds: LOAD_SECONDS, time: new Date().toISOString() };
try {
  const env = { ...process.env, ROWS: String(ROWS), SEED: '1', OUT: join(dir, 'sample'), SRC: join(dir, 'sample'), DUCKDB_PATH: join(dir, 'work.duckdb'), REGIONS_FILE: join(REPO_ROOT, 'scripts/sample/hubs.geojson') };
  console.log(`building a ${ROWS.toLocaleString('en-US')}-row sample…`);
  await run(process.execPath, ['--import', 'tsx', 'scripts/sample/main.ts'], { cwd: REPO_ROOT, env });
  await run(process.execPath, ['--import', 'tsx', 'ingest/main.ts', 'ingest'], { cwd: REPO_ROOT, env });
  const store = join(dir, 'store');
  await publishToStore(store, join(dir, 'work.duckdb'));
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const main = process.env['API_MAIN'];
  const start = (replicas: number, limits: Record<string, string>) =>
    startTopology({ replicas, redisUrl, store, env: { API_KEYS: [...KEYS, 'bench-extract'].join(','), ...limits }, apiMain: main ? { args: [main] } : undefined });
  const unlimited = { PAGE_ROWS_PER_SECOND: '1000000000000', PAGE_ROWS_BURST: '1000000000000', MAX_CONCURRENT_PER_KEY: '100000' };

  console.log('1. limiter cost per request');
  results['limiter'] = await limiterCost(redisUrl);

  console.log('2-3. balancer overhead and extract, 1 replica');
  topology = await start(1, unlimited);
  results['health'] = await paired(topology.replicas[0]!.url, topology.url, '/healthz');
  results['smallPage'] = await paired(topology.replicas[0]!.url, topology.url, '/v1/odata/v4/Records?$top=1&$select=Id');
  results['extractDirect'] = await extract(topology.replicas[0]!.url);
  results['extractBalanced1'] = await extract(topology.url);
  await topology.stop();
  topology = undefined;

  console.log('3. extract, 3 replicas');
  topology = await start(3, unlimited);
  results['extractBalanced3'] = await extract(topology.url);
  await topology.stop();
  topology = undefined;

  for (const n of [1, 3]) {
    console.log(`4. load, ${n} replica(s), ${LOAD_SECONDS} s`);
    topology = await start(n, {});
    results[`load${n}`] = await load(topology.url);
    await topology.stop();
    topology = undefined;
  }

  const l = results['limiter'] as Record<string, number>;
  const h = results['health'] as Record<string, number>;
  const s = results['smallPage'] as Record<string, number>;
  const e = (k: string) => results[k] as { rows: number; rowsPerSecond: number };
  const ld = (k: string) => results[k] as Record<string, number>;
  const rows: [string, string][] = [
    ['rate limit, in process (per request)', us(l['inProcessMs']!)],
    ['rate limit, Redis script (per request, one round trip)', us(l['redisRateMs']!)],
    ['concurrency place, Redis (take + release, two round trips)', us(l['redisPlaceMs']!)],
    ['/healthz straight / through HAProxy (p50)', `${ms(h['directP50']!)} / ${ms(h['balancedP50']!)} ms`],
    ['HAProxy overhead on /healthz (median of paired differences)', `${ms(h['overheadMedian']!)} ms`],
    ['one-row page (key, shared limits) straight / through HAProxy (p50; p99)', `${ms(s['directP50']!)} / ${ms(s['balancedP50']!)} ms; ${ms(s['directP99']!)} / ${ms(s['balancedP99']!)} ms`],
    ['HAProxy overhead on the one-row page (median of paired differences)', `${ms(s['overheadMedian']!)} ms`],
    ['JSON extract, straight to a replica', `${Math.round(e('extractDirect').rowsPerSecond).toLocaleString('en-US')} rows/s`],
    ['JSON extract, HAProxy → 1 replica', `${Math.round(e('extractBalanced1').rowsPerSecond).toLocaleString('en-US')} rows/s`],
    ['JSON extract, HAProxy → 3 replicas', `${Math.round(e('extractBalanced3').rowsPerSecond).toLocaleString('en-US')} rows/s`],
  ];
  for (const n of [1, 3]) {
    const x = ld(`load${n}`);
    rows.push([
      `load, HAProxy → ${n} replica(s): requests/s, 200 / 429 / other / errors, paced p50 / p99`,
      `${x['requestsPerSecond']!.toFixed(1)}/s, ${x['ok']} / ${x['tooMany']} / ${x['otherStatuses']}${otherStatuses(x)} / ${x['errors']}, ${ms(x['pacedP50']!)} / ${ms(x['pacedP99']!)} ms`,
    ]);
  }
  results['loadAverage'] = loadavg();
  console.log(`\n| figure (${ROWS.toLocaleString('en-US')} rows; load average ${loadavg().map((v) => v.toFixed(1)).join(', ')}) | value |\n| --- | --- |`);
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
  mkdirSync(join(REPO_ROOT, 'data/bench'), { recursive: true });
  const out = join(REPO_ROOT, 'data/bench', `replicas-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwritten to ${out}`);
} finally {
  await topology?.stop();
  redisServer.kill('SIGKILL');
  await exited(redisServer);
  rmSync(dir, { recursive: true, force: true });
}
