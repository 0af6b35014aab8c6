/**
 * §P publish: what one change costs against the hub's size (issue 19), on copies of the bench's hub.
 *
 * - add a 10,000-row dataset, replace a 100,000-row one, remove one: each the ingest CLI as `make ingest` /
 *   `make remove` runs it (process start included), with its peak RSS;
 * - no decay: BENCH_PUBLISHES (default 200) seeded random adds, replaces and removes of small datasets, then the
 *   file, pages and counts against the same content compacted (`make compact`, which lays the file out as a first
 *   ingest does), both served at once and measured interleaved.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runIngest } from '../../ingest/pipeline.js';
import { runRemove } from '../../ingest/remove.js';
import { BENCH_API_KEY, startApi } from './api-process.js';
import { GUIDELINES_RATIO_TARGET, REGIONS_FILE, runPeakMB } from './cache.js';
import { ingestCommand } from './ingest-command.js';
import { oneDataset, poolDataset, poolDois } from './change-sets.js';
import { summary, type Context } from './context.js';
import { verdict } from './table.js';

/** What §P shares with the API sections (no API: it starts its own, on copies). */
export interface PublishContext extends Pick<Context, 'figures' | 'details' | 'log'> {
  readonly rows: number;
  readonly runs: number;
  /** The bench's hub (never written: every measurement works on a copy). */
  readonly hub: string;
  readonly dir: string;
}

interface Timed {
  readonly ms: number;
  readonly peakRssMB: number;
  /** The files stage of the run's report (its datasets' Parquet and CSV files), when it has one. */
  readonly filesMs?: number;
  /** The guidelines stage of the run's report (its comparisons and water quality index). */
  readonly guidelinesMs?: number;
}

/** Runs the ingest CLI as make does and returns its wall time and peak RSS. */
async function timeCli(args: readonly string[], env: Record<string, string>, dir: string): Promise<Timed> {
  const rssFile = join(dir, `peak-rss-${process.pid}`);
  const reportFile = join(dir, `report-${process.pid}.json`);
  const t0 = performance.now();
  let stderr = '';
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ingestCommand(args, { peakRss: true }), {
      env: { ...process.env, ...env, PEAK_RSS_FILE: rssFile, REGIONS_FILE, REPORT: reportFile },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('exit', resolve);
  });
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`ingest ${args.join(' ')} exited with ${code}: ${stderr}`);
  const exitPeakMB = Number(await readFile(rssFile, 'utf8')) / 2 ** 20;
  await rm(rssFile);
  const report = JSON.parse(await readFile(reportFile, 'utf8')) as { timingsMs?: Record<string, number>; peakRssMB?: Record<string, number> };
  await rm(reportFile);
  const peakRssMB = runPeakMB(exitPeakMB, report.peakRssMB);
  return { ms, peakRssMB, filesMs: report.timingsMs?.['files'], guidelinesMs: report.timingsMs?.['guidelines'] };
}

const seconds = (xs: readonly Timed[]) => summary(xs.map((x) => x.ms / 1000));
const megabytes = (xs: readonly Timed[]) => summary(xs.map((x) => x.peakRssMB));

export async function publishSection(ctx: PublishContext): Promise<void> {
  const { rows, hub, log, figures } = ctx;
  const work = join(ctx.dir, 'publish');
  const changes = join(ctx.dir, 'changes');
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  const db = join(work, 'tributary.duckdb');
  const env = { DUCKDB_PATH: db };
  const big = rows >= 50_000_000;
  const hubName = `${(rows / 1e6).toLocaleString('en-US')}M-row hub`;

  log('§P change sets');
  const add = await oneDataset(changes, join(work, 'add'), '10.25976/bnch-ad10', 10_000, 1001);
  const replaceV1 = await oneDataset(changes, join(work, 'replace-v1'), '10.25976/bnch-rp10', 100_000, 1002);
  const replaceV2 = await oneDataset(changes, join(work, 'replace-v2'), '10.25976/bnch-rp10', 100_000, 1002, 1);

  // Each run starts from the bench's hub: add, then remove what was added; replace on a hub holding version 1.
  const adds: Timed[] = [];
  const removes: Timed[] = [];
  const replaces: Timed[] = [];
  const runs = Math.min(ctx.runs, 3);
  for (let i = 0; i < runs; i++) {
    log(`§P run ${i + 1}/${runs}: add 10k, remove it, replace 100k`);
    await copyFile(hub, db);
    adds.push(await timeCli(['ingest'], { ...env, SRC: add.src }, work));
    removes.push(await timeCli(['remove', '10.25976/bnch-ad10'], env, work));
    await timeCli(['ingest'], { ...env, SRC: replaceV1.src }, work);
    replaces.push(await timeCli(['ingest'], { ...env, SRC: replaceV2.src }, work));
  }
  const addTarget = big ? 5 : 2;
  figures.push(
    { section: 'P', name: `add a ${add.rows.toLocaleString('en-US')}-row dataset to the ${hubName} (make ingest, end to end)`, unit: 's', value: seconds(adds), target: `≤ ${addTarget} s`, verdict: verdict(seconds(adds).median <= addTarget), note: `peak RSS ${megabytes(adds).median.toFixed(0)} MB` },
    { section: 'P', name: `add that dataset: peak RSS`, unit: 'MB', value: megabytes(adds), target: '≤ 500 MB', verdict: verdict(megabytes(adds).median <= 500) },
    // Issue 29: a publish still costs what changed; the add's own Parquet and CSV are its only extra.
    { section: 'P', name: `add that dataset: writing its Parquet and CSV files (the files stage, within the add)`, unit: 'ms', value: summary(adds.map((a) => a.filesMs ?? NaN)), verdict: 'info' as const },
    // Issue 45: the add's guideline comparisons and water quality index (computed for the added dataset alone).
    { section: 'P', name: `add that dataset: comparing it with the guidelines (the guidelines stage, within the add)`, unit: 'ms', value: summary(adds.map((a) => a.guidelinesMs ?? NaN)), verdict: 'info' as const },
    {
      section: 'P', name: `add that dataset with guideline comparisons ÷ without (the add less the guidelines stage)`, unit: '×',
      value: summary(adds.map((a) => a.ms / (a.ms - (a.guidelinesMs ?? NaN)))), target: `≤ ${GUIDELINES_RATIO_TARGET}×`,
      verdict: verdict(summary(adds.map((a) => a.ms / (a.ms - (a.guidelinesMs ?? NaN)))).median <= GUIDELINES_RATIO_TARGET),
    },
    { section: 'P', name: `replace a ${replaceV1.rows.toLocaleString('en-US')}-row dataset in the ${hubName} by one of ${replaceV2.rows.toLocaleString('en-US')} rows`, unit: 's', value: seconds(replaces), target: '≤ 5 s', verdict: verdict(seconds(replaces).median <= 5), note: `peak RSS ${megabytes(replaces).median.toFixed(0)} MB` },
    { section: 'P', name: `remove a dataset from the ${hubName} (make remove)`, unit: 's', value: seconds(removes), target: '≤ 2 s', verdict: verdict(seconds(removes).median <= 2), note: `peak RSS ${megabytes(removes).median.toFixed(0)} MB` },
  );
  ctx.details['publish'] = { adds, removes, replaces };

  if (publishes() > 0) await noDecay(ctx, work, db, changes);
}

/** BENCH_PUBLISHES: the no-decay run's length; 0 skips it (each publish copies the whole published file). */
const publishes = () => Number(process.env.BENCH_PUBLISHES ?? 200);

/** A seeded sequence of small publishes, then the file, pages and counts against the same content compacted. */
async function noDecay(ctx: PublishContext, work: string, db: string, changes: string): Promise<void> {
  const { log, figures, hub } = ctx;
  const count = publishes();
  const POOL_ROWS = 200_000;
  const POOL_SEED = 1003;
  const dois = await poolDois(changes, POOL_ROWS, POOL_SEED);
  const size = dois.length;

  await copyFile(hub, db);
  let seed = 19;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const published = new Map<number, number>(); // pool index → version served
  const versions = new Map<number, number>(); // pool index → last version used
  const took: number[] = [];
  const counts = { add: 0, replace: 0, remove: 0 };
  log(`§P no decay: ${count} publishes of a ${size}-dataset pool`);
  const publish = async (index: number) => {
    const version = (versions.get(index) ?? -1) + 1;
    versions.set(index, version);
    const src = await poolDataset(changes, join(work, 'src'), POOL_ROWS, POOL_SEED, index, version);
    const report = await runIngest({ src, duckdbPath: db, regionsFile: REGIONS_FILE });
    if (!report.published || report.datasets.some((d) => d.status !== 'loaded')) throw new Error(`publish of pool dataset ${index} v${version}: ${JSON.stringify(report.datasets.map((d) => d.error ?? d.status))}`);
    published.set(index, version);
  };
  for (let i = 0; i < count; i++) {
    const out = [...Array(size).keys()].filter((k) => !published.has(k));
    const inn = [...published.keys()];
    const roll = random();
    const t0 = performance.now();
    if (inn.length > 0 && (roll < 0.6 || out.length === 0)) {
      const index = inn[Math.floor(random() * inn.length)]!;
      if (random() < 0.5) {
        const doi = dois[index]!;
        if (!(await runRemove({ duckdbPath: db, doi })).published) throw new Error(`remove of ${doi} published nothing`);
        published.delete(index);
        counts.remove++;
      } else {
        await publish(index);
        counts.replace++;
      }
    } else {
      await publish(out[Math.floor(random() * out.length)]!);
      counts.add++;
    }
    took.push(performance.now() - t0);
  }
  const compacted = join(work, 'compacted', 'tributary.duckdb');
  await mkdir(join(work, 'compacted'), { recursive: true });
  await copyFile(db, compacted);
  const compact = await timeCli(['compact'], { DUCKDB_PATH: compacted }, work);
  const sizeOf = async (p: string) => (await stat(p)).size;
  const [decayedBytes, compactBytes, hubBytes] = [await sizeOf(db), await sizeOf(compacted), await sizeOf(hub)];
  figures.push(
    { section: 'P', name: `one small publish (in process), over ${count} seeded ones (${counts.add} adds, ${counts.replace} replaces, ${counts.remove} removes)`, unit: 's', value: summary(took.map((t) => t / 1000)), verdict: 'info' },
    {
      section: 'P',
      name: `file after ${count} publishes ÷ the same content compacted`,
      unit: 'MB',
      value: summary([decayedBytes / 1e6]),
      ratio: decayedBytes / compactBytes,
      ratioOf: 'compacted',
      target: '≤ 1.3×',
      verdict: verdict(decayedBytes / compactBytes <= 1.3),
      note: `compacted ${(compactBytes / 1e6).toFixed(0)} MB; the hub before the publishes ${(hubBytes / 1e6).toFixed(0)} MB`,
    },
    { section: 'P', name: 'make compact of that file', unit: 's', value: summary([compact.ms / 1000]), verdict: 'info', note: `peak RSS ${compact.peakRssMB.toFixed(0)} MB` },
  );
  await servedSideBySide(ctx, db, compacted, count);
}

/** Pages at three offsets and two counts on both files, each request alternating between the two APIs. */
async function servedSideBySide(ctx: PublishContext, decayed: string, compacted: string, publishes: number): Promise<void> {
  const apis = await Promise.all([startApi(decayed), startApi(compacted)]);
  try {
    const get = async (base: string, path: string) => {
      const t0 = performance.now();
      const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': BENCH_API_KEY } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
      return { ms: performance.now() - t0, text };
    };
    const idAt = await idsAtRanks(compacted, [0.5, 0.95]);
    const cases: { name: string; path: string }[] = [
      { name: 'first page', path: '/v1/odata/v4/Records?$top=10000' },
      ...idAt.map(({ fraction, after }) => ({ name: `page at ${fraction * 100}%`, path: `/v1/odata/v4/Records?$top=10000&$skiptoken=Id:${after}` })),
      { name: 'count, no filter', path: '/v1/odata/v4/Observations?$count=true' },
      { name: "count, CharacteristicName eq 'pH'", path: "/v1/odata/v4/Observations?$count=true&$filter=CharacteristicName%20eq%20'pH'" },
    ];
    for (const c of cases) {
      const [a, b] = [await get(apis[0]!.base, c.path), await get(apis[1]!.base, c.path)];
      const value = (text: string) => JSON.stringify((JSON.parse(text) as { value: unknown }).value);
      if (value(a.text) !== value(b.text)) throw new Error(`${c.path}: the decayed and the compacted file answer differently`);
      const decayedMs: number[] = [];
      const compactMs: number[] = [];
      for (let i = 0; i < ctx.runs; i++) {
        decayedMs.push((await get(apis[0]!.base, c.path)).ms);
        compactMs.push((await get(apis[1]!.base, c.path)).ms);
      }
      const ratio = summary(decayedMs).median / summary(compactMs).median;
      ctx.figures.push({
        section: 'P',
        name: `${c.name} after ${publishes} publishes ÷ compacted`,
        unit: 'ms',
        value: summary(decayedMs),
        ratio,
        ratioOf: 'compacted',
        target: '≤ 1.2×',
        verdict: verdict(ratio <= 1.2),
        note: `compacted ${summary(compactMs).median.toFixed(1)} ms`,
      });
    }
  } finally {
    await Promise.all(apis.map((a) => a.stop()));
  }
}

/** The Id just before the row at each fraction of the rows (in Id order): where a page at that rank starts. */
async function idsAtRanks(path: string, fractions: readonly number[]): Promise<{ fraction: number; after: number }[]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const out: { fraction: number; after: number }[] = [];
    for (const fraction of fractions) {
      const reader = await conn.runAndReadAll(`SELECT quantile_disc("Id", ${fraction}) - 1 AS after FROM observations`);
      out.push({ fraction, after: Number(reader.getRowObjectsJS()[0]!['after']) });
    }
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}
