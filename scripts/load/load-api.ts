/**
 * Load test of the data API as deployed (services/api/main.ts in its own process, default limits), on loopback
 * only, bounded in time and in requests:
 *
 *   - CLIENTS keys (default 50) page through Records at once, each as the official clients do (one request at a
 *     time, started 0.5 s apart), restarting at the first page when they reach the end; GREEDY of them (default
 *     2) run three loops each without pause (honouring Retry-After), so the 429s they get are the intended ones;
 *   - meanwhile the ingest CLI publishes three changes over the served file, each incrementally (ingest/merge.ts):
 *     new datasets, a new version of a served dataset (renumbered after the maximum), and a removal;
 *   - every page must be complete JSON, Ids ascending within it and across a client's pages, full unless last,
 *     and equal to the page computed on the publication its ETag names, one of the four (no mix, no gap, no
 *     duplicate).
 *
 * Env: LOAD_SECONDS (default 60, max 600), MAX_REQUESTS (default 50000), CLIENTS (50), GREEDY (2), ROWS (100000).
 * Exit 1 on any error other than the greedy clients' 429s, or any inconsistent page.
 *
 *   node --import tsx scripts/load/load-api.ts
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createApp } from '../../services/api/app.js';
import { openDatabase } from '../../services/api/db/database.js';

const ROOT = resolve(import.meta.dirname, '../..');
const num = (name: string, def: number, max: number) => Math.min(max, Number(process.env[name] ?? def) || def);
const SECONDS = num('LOAD_SECONDS', 60, 600);
const MAX_REQUESTS = num('MAX_REQUESTS', 50_000, 1_000_000);
const CLIENTS = num('CLIENTS', 50, 500);
const GREEDY = Math.min(num('GREEDY', 2, 500), CLIENTS);
const ROWS = String(num('ROWS', 100_000, 10_000_000));
const SPACING_MS = 500;
const QUERIES = [
  '$top=1000&$select=Id,DOI,CharacteristicName,ResultValue,ResultUnit,ActivityStartDate',
  "$top=500&$filter=CharacteristicName eq 'pH'",
  '$top=2000&$select=Id,MonitoringLocationID,ResultValue',
].map((q) => q.replace(/\$/g, '%24').replace(/ /g, '%20').replace(/'/g, '%27'));

const run = promisify(execFile);
const tsx = (script: string, args: string[], env: Record<string, string>) =>
  run(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 << 20 });

const dir = mkdtempSync(join(tmpdir(), 'tributary-load-'));
const live = join(dir, 'live.duckdb');
const regions = join(ROOT, 'scripts/sample/hubs.geojson');

console.log(`setup: ${ROWS} rows (seed 7) and three changes (seed 8's datasets, a new version of one, a removal) in ${dir}`);
await tsx('scripts/sample/main.ts', [], { ROWS, SEED: '7', OUT: join(dir, 's7') });
await tsx('scripts/sample/main.ts', [], { ROWS: '30000', SEED: '8', OUT: join(dir, 's8') });
// The change sets: `s8` adds datasets; `s9` holds a new version of one of seed 7's (its last 100 rows gone).
const [replaced, removed] = readdirSync(join(dir, 's7')).filter((n) => !n.startsWith('.')).sort();
cpSync(join(dir, 's7', replaced!), join(dir, 's9', replaced!), { recursive: true });
const replacedCsv = readdirSync(join(dir, 's9', replaced!)).map((n) => join(dir, 's9', replaced!, n)).find((f) => f.endsWith('.csv'))!;
writeFileSync(replacedCsv, `${readFileSync(replacedCsv, 'utf8').trimEnd().split('\n').slice(0, -100).join('\n')}\n`);
const removedDoi = (JSON.parse(readFileSync(join(dir, 's7', removed!, 'metadata.json'), 'utf8')) as { DOI: string }).DOI;
await tsx('ingest/main.ts', ['ingest'], { SRC: join(dir, 's7'), DUCKDB_PATH: live, REGIONS_FILE: regions });
copyFileSync(live, join(dir, 'pub0.duckdb'));

const keys = Array.from({ length: CLIENTS }, (_, i) => `load-key-${i}-${createHash('sha256').update(String(i)).digest('hex').slice(0, 16)}`);
const api = spawn(process.execPath, ['--import', 'tsx', 'services/api/main.ts'], {
  cwd: ROOT,
  env: { ...process.env, API_HOST: '127.0.0.1', API_PORT: '0', DUCKDB_PATH: live, API_KEYS: keys.join(','), API_KEYS_FILE: join(dir, 'none.json') },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let apiLog = '';
api.stdout!.on('data', (d: Buffer) => (apiLog += d.toString()));
const apiExit = new Promise<number | null>((r) => api.on('exit', (code) => r(code)));
// Whatever happens to this script, the API it started goes with it.
process.on('exit', () => api.exitCode === null && api.kill('SIGKILL'));
process.on('uncaughtException', (err) => {
  console.error(err);
  process.exit(1);
});
const started0 = Date.now();
while (!/listening on http:\/\/127\.0\.0\.1:(\d+)/.test(apiLog)) {
  if (api.exitCode !== null || Date.now() - started0 > 60_000) throw new Error(`API did not start:\n${apiLog}`);
  await new Promise((r) => setTimeout(r, 50));
}
const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(apiLog)![1]);

interface PageRecord {
  readonly path: string;
  readonly hash: string;
  readonly etag: string;
}
const pages: PageRecord[] = [];
const statuses = new Map<number, number>();
const latencies: number[] = [];
const problems: string[] = [];
let requests = 0;
let bytes = 0;
let rows = 0;
let pacedTooMany = 0;
let greedyTooMany = 0;
const deadline = Date.now() + SECONDS * 1000;
// Clients also keep going until both publications are served, but never past twice the duration.
const hardDeadline = Date.now() + 2 * SECONDS * 1000;
let published = false;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function get(path: string, key: string): Promise<{ status: number; text: string; retryAfter?: string; etag?: string }> {
  return new Promise((resolvePromise, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { 'x-api-key': key, 'accept-encoding': 'identity' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolvePromise({ status: res.statusCode!, text: Buffer.concat(parts).toString('utf8'), retryAfter: res.headers['retry-after'] as string | undefined, etag: res.headers.etag }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function client(i: number, lane = 0): Promise<void> {
  const key = keys[i]!;
  const greedy = i >= CLIENTS - GREEDY;
  const first = `/v1/odata/v4/Records?${QUERIES[i % QUERIES.length]}`;
  let next = first;
  let lastId = -1;
  while ((Date.now() < deadline || !published) && Date.now() < hardDeadline && requests < MAX_REQUESTS) {
    requests++;
    const t0 = performance.now();
    let res: Awaited<ReturnType<typeof get>>;
    try {
      res = await get(next, key);
    } catch (err) {
      problems.push(`client ${i}: ${String(err)}`);
      await sleep(SPACING_MS);
      continue;
    }
    const ms = performance.now() - t0;
    latencies.push(ms);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    bytes += res.text.length;
    if (res.status === 429) {
      if (greedy) greedyTooMany++;
      else pacedTooMany++;
      await sleep(Number(res.retryAfter ?? 1) * 1000);
      continue;
    }
    if (res.status !== 200) {
      problems.push(`client ${i}.${lane}: ${res.status} ${res.text.slice(0, 200)}`);
      await sleep(SPACING_MS);
      continue;
    }
    let body: { value: { Id: number }[]; '@odata.nextLink'?: string };
    try {
      body = JSON.parse(res.text);
    } catch {
      problems.push(`client ${i}: incomplete JSON page (${res.text.length} bytes) for ${next}`);
      continue;
    }
    const ids = body.value.map((r) => r.Id);
    const top = Number(/(?:%24|\$)top=(\d+)/.exec(next)?.[1]);
    if (ids.some((id, k) => k > 0 && !(id > ids[k - 1]!))) problems.push(`client ${i}: Ids not ascending in ${next}`);
    if (ids.length && ids[0]! <= lastId) problems.push(`client ${i}: Id ${ids[0]} after ${lastId} across pages`);
    if (body['@odata.nextLink'] && ids.length !== top) problems.push(`client ${i}: short page (${ids.length} of ${top}) with a next link`);
    rows += ids.length;
    pages.push({ path: next, hash: createHash('sha1').update(JSON.stringify(body.value)).digest('hex'), etag: res.etag ?? '' });
    const link = body['@odata.nextLink'];
    next = link ? new URL(link).pathname + new URL(link).search : first;
    lastId = link ? (ids.at(-1) ?? lastId) : -1;
    if (!greedy) await sleep(Math.max(0, SPACING_MS - ms)); // start-to-start 0.5 s, as the official clients pace
  }
}

async function publisher(): Promise<number[]> {
  const took: number[] = [];
  const changes: { k: number; at: number; what: string; args: string[]; env: Record<string, string> }[] = [
    { k: 1, at: 0.2, what: 'seed 8 added', args: ['ingest'], env: { SRC: join(dir, 's8') } },
    { k: 2, at: 0.4, what: `${replaced} replaced`, args: ['ingest'], env: { SRC: join(dir, 's9') } },
    { k: 3, at: 0.6, what: `${removedDoi} removed`, args: ['remove', removedDoi], env: {} },
  ];
  for (const { k, at, what, args, env } of changes) {
    await sleep(Math.max(0, deadline - (1 - at) * SECONDS * 1000 - Date.now()));
    const t0 = Date.now();
    await tsx('ingest/main.ts', args, { ...env, DUCKDB_PATH: live, REGIONS_FILE: regions });
    took.push(Date.now() - t0);
    copyFileSync(live, join(dir, `pub${k}.duckdb`));
    if (k === changes.length) setTimeout(() => (published = true), 2000); // the API polls for a new file every second
    console.log(`published ${k} (${what}) at ${((Date.now() - (deadline - SECONDS * 1000)) / 1000).toFixed(1)} s, ingest took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  return took;
}

console.log(`load: ${CLIENTS} keys (${GREEDY} greedy) for ${SECONDS} s, at most ${MAX_REQUESTS} requests, API on 127.0.0.1:${port}`);
// Greedy keys run three request loops at once with no pause: over the burst and over the per-key concurrency.
const loops = Array.from({ length: CLIENTS }, (_, i) => (i >= CLIENTS - GREEDY ? [0, 1, 2].map((lane) => client(i, lane)) : [client(i)])).flat();
const [publishTimes] = await Promise.all([publisher(), ...loops]);
const elapsed = (Date.now() - (deadline - SECONDS * 1000)) / 1000;

api.kill('SIGTERM');
const exitCode = await apiExit;
const switches = (apiLog.match(/switched to newly published/g) ?? []).length;

// Every page against the same page computed on each publication, and on the one its ETag names.
const refs = await Promise.all([0, 1, 2, 3].map((k) => openDatabase(join(dir, `pub${k}.duckdb`))));
const apps = refs.map((ref) => createApp({ acquire: () => ref.acquire(), links: { trustProxy: false } }));
const etags = refs.map((ref) => {
  const { publication, release } = ref.acquire();
  release();
  return `W/"${publication}"`;
});
const expected = new Map<string, string[]>();
const from = [0, 0, 0, 0];
let inconsistent = 0;
let misnamed = 0;
for (const p of pages) {
  if (!expected.has(p.path)) {
    expected.set(
      p.path,
      await Promise.all(apps.map(async (app) => createHash('sha1').update(JSON.stringify((JSON.parse(await (await app.request(p.path)).text()) as { value: unknown }).value)).digest('hex'))),
    );
  }
  const refsOf = expected.get(p.path)!;
  const named = etags.indexOf(p.etag);
  if (named < 0 || refsOf[named] !== p.hash) {
    misnamed++;
    if (misnamed <= 5) problems.push(`page's ETag ${p.etag} names ${named < 0 ? 'no publication' : `publication ${named}, whose page differs`}: ${p.path}`);
  }
  if (!refsOf.includes(p.hash)) {
    inconsistent++;
    if (inconsistent <= 5) problems.push(`page matches no publication: ${p.path}`);
  } else if (refsOf.filter((h) => h === p.hash).length === 1) from[refsOf.indexOf(p.hash)]!++;
}
await Promise.all(refs.map((r) => r.close()));
rmSync(dir, { recursive: true, force: true });

const sorted = latencies.sort((a, b) => a - b);
const q = (f: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * f))]?.toFixed(1) ?? '-';
const summary = {
  seconds: SECONDS,
  clients: CLIENTS,
  greedy: GREEDY,
  requests,
  statuses: Object.fromEntries(statuses),
  pages: pages.length,
  rows,
  megabytes: +(bytes / 1e6).toFixed(1),
  elapsedSeconds: +elapsed.toFixed(1),
  requestsPerSecond: +(requests / elapsed).toFixed(1),
  latencyMs: { p50: q(0.5), p95: q(0.95), p99: q(0.99), max: q(1) },
  publishes: publishTimes.length,
  switches,
  pagesOnlyFromPublication: from,
  inconsistentPages: inconsistent,
  pagesWithWrongETag: misnamed,
  pacedClients429: pacedTooMany,
  greedyClients429: greedyTooMany,
  errors: problems.length,
  apiExitCode: exitCode,
};
console.log(JSON.stringify(summary, null, 2));
for (const p of problems.slice(0, 20)) console.error(p);
const ok = problems.length === 0 && inconsistent === 0 && pacedTooMany === 0 && exitCode === 0 && switches === 3;
console.log(ok ? 'OK: no errors, no inconsistent pages, 429s only for the greedy clients' : 'FAILED');
process.exit(ok ? 0 : 1);
