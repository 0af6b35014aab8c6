// Load test of the message board, on loopback and bounded in time and size.
//
//   node --import tsx scripts/load/board-load.ts [--posts 1000] [--concurrency 50] [--rows 100000]
//
// Starts a board in this process on 127.0.0.1 with the write rate limit lifted: embedded PGlite in a temporary
// directory, or, when DB_SERVICE is set, a scratch database on that server (created from DB_*, dropped after).
// 1. `--posts` JSON posts with `--concurrency` in flight while listings run back to back: every post must get 201,
//    the ids must be exactly `--posts` new distinct ids, and every listing must be a complete JSON array.
// 2. The table is filled to `--rows` rows with one INSERT … SELECT, then the full streamed listing and a page of
//    100 are timed. The client and the board share one process and event loop, so figures are conservative.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startBoard, type RunningBoard } from '../../services/board/board.js';
import { loadConfig, type BoardConfig } from '../../services/board/config.js';
import { applySchema } from '../../services/board/schema.js';

const { values: args } = parseArgs({
  options: {
    posts: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '50' },
    rows: { type: 'string', default: '100000' },
  },
});
const POSTS = Number(args.posts);
const CONCURRENCY = Number(args.concurrency);
const ROWS = Number(args.rows);
const DEADLINE_MS = 10 * 60_000;

const deadline = setTimeout(() => {
  console.error(`board-load: gave up after ${DEADLINE_MS / 1000} s`);
  process.exit(2);
}, DEADLINE_MS);
deadline.unref();

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const ms = (x: number): string => `${x.toFixed(1)} ms`;

interface Target {
  readonly board: RunningBoard;
  readonly label: string;
  cleanup(): Promise<void>;
}

async function startTarget(): Promise<Target> {
  const base = loadConfig(process.env);
  const lifted: Partial<BoardConfig> = { port: 0, postRatePerMin: 1_000_000_000, postBurst: 1_000_000_000 };
  if (base.dbService === '') {
    const dir = await mkdtemp(join(tmpdir(), 'board-load-'));
    const board = await startBoard({ ...base, ...lifted, dataDir: dir }, { log: () => {}, hostname: '127.0.0.1' });
    return { board, label: 'embedded PGlite', cleanup: async () => (await board.close(), await rm(dir, { recursive: true, force: true })) };
  }
  const scratch = `board_load_${process.pid}`;
  const admin = new pg.Client({ host: base.dbService, port: base.dbPort, user: base.dbUser, password: base.dbPass, database: base.dbName });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${scratch}`);
  const board = await startBoard({ ...base, ...lifted, dbName: scratch }, { log: () => {}, hostname: '127.0.0.1' });
  await applySchema(board.db.pool);
  return {
    board,
    label: `PostgreSQL at ${base.dbService}:${base.dbPort}`,
    async cleanup() {
      await board.close();
      await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function timedList(url: string): Promise<{ ms: number; rows: number; bytes: number }> {
  const t = performance.now();
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url} → ${res.status}`);
  const text = await res.text();
  const rows = (JSON.parse(text) as unknown[]).length;
  return { ms: performance.now() - t, rows, bytes: Buffer.byteLength(text) };
}

async function postPhase(base: string) {
  const ids: number[] = [];
  const latencies: number[] = [];
  const failures: string[] = [];
  let next = 0;
  let done = false;
  const listings: number[] = [];

  const lister = (async () => {
    while (!done) listings.push((await timedList(`${base}/api/message`)).ms);
  })();
  const worker = async () => {
    while (next < POSTS) {
      const i = next++;
      const t = performance.now();
      const res = await fetch(`${base}/api/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: `load ${i} Grüße 😀` }),
      });
      latencies.push(performance.now() - t);
      if (res.status === 201) ids.push(((await res.json()) as { id: number }).id);
      else failures.push(`${res.status} ${await res.text()}`);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = performance.now() - t0;
  done = true;
  await lister;
  return { ids, latencies, failures, elapsed, listings };
}

const target = await startTarget();
let exitCode = 0;
try {
  const base = target.board.url;
  console.log(`board-load: ${target.label}, node ${process.version}`);

  const p = await postPhase(base);
  const distinct = new Set(p.ids).size;
  const listed = new Set(((await (await fetch(`${base}/api/message`)).json()) as { id: number }[]).map((m) => m.id));
  const allListed = p.ids.every((id) => listed.has(id));
  const ok = p.failures.length === 0 && p.ids.length === POSTS && distinct === POSTS && allListed;
  if (!ok) exitCode = 1;
  console.log(
    `posts: ${p.ids.length}/${POSTS} created, ${distinct} distinct ids, all listed: ${allListed}, failures: ${p.failures.length}` +
      (p.failures.length ? ` (first: ${p.failures[0]})` : ''),
  );
  console.log(
    `posts: ${(POSTS / (p.elapsed / 1000)).toFixed(0)} posts/s with ${CONCURRENCY} in flight; ` +
      `latency p50 ${ms(quantile(p.latencies, 0.5))}, p95 ${ms(quantile(p.latencies, 0.95))}, max ${ms(Math.max(...p.latencies))}; ` +
      `${p.listings.length} concurrent full listings, p50 ${ms(quantile(p.listings, 0.5))}`,
  );

  const have = listed.size;
  if (ROWS > have) {
    const t = performance.now();
    await target.board.db.pool.query(
      `INSERT INTO posts (text, date_posted)
       SELECT 'seeded message ' || g || ' with some typical length of text, Grüße', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       FROM generate_series(1, $1::int) g`,
      [ROWS - have],
    );
    console.log(`seeded ${ROWS - have} rows in ${ms(performance.now() - t)}`);
  }
  const runs: { ms: number; rows: number; bytes: number }[] = [];
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const rssBefore = process.memoryUsage().rss;
  for (let i = 0; i < 5; i++) runs.push(await timedList(`${base}/api/message`));
  clearInterval(sampler);
  const full = runs.map((r) => r.ms);
  console.log(
    `list ${runs[0]!.rows} rows (${(runs[0]!.bytes / 1e6).toFixed(1)} MB): median ${ms(quantile(full, 0.5))}, ` +
      `min ${ms(Math.min(...full))}, max ${ms(Math.max(...full))} over ${runs.length} runs; ` +
      `RSS ${(rssBefore / 2 ** 20).toFixed(0)} → peak ${(peakRss / 2 ** 20).toFixed(0)} MiB (client buffers each body whole)`,
  );
  const pages: number[] = [];
  for (let i = 0; i < 50; i++) {
    const after = Math.floor((i / 50) * ROWS);
    pages.push((await timedList(`${base}/api/message?after=${after}&limit=100`)).ms);
  }
  console.log(`page of 100 (?after=&limit=100) at ${ROWS} rows: p50 ${ms(quantile(pages, 0.5))}, p95 ${ms(quantile(pages, 0.95))}`);
  if (runs.some((r) => r.rows < ROWS)) exitCode = 1;
} catch (err) {
  console.error(`board-load: ${err instanceof Error ? err.message : String(err)}`);
  exitCode = 1;
} finally {
  await target.cleanup();
}
console.log(exitCode === 0 ? 'board-load: OK' : 'board-load: FAILED');
process.exit(exitCode);
