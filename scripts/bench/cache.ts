/**
 * The benchmark's sample and database, cached under `data/bench/<rows>-seed<seed>-v<generator>-s<storage>-gz/`:
 * `sample/` (the generator's output, every file gzipped: scripts/sample/generate.ts `gzipAll`),
 * `tributary.duckdb` (its ingest), `ingest-report.json` and `ingest-wall.json` (how long that ingest took, its
 * peak RSS, and when). Anything that does not match the key is rebuilt.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateSample, SAMPLE_GENERATOR_VERSION } from '../sample/generate.js';
import { STORAGE_SCHEMA_VERSION } from '../../schemas/index.js';
import { sampleRss } from './api-process.js';
import { bareLoadCommand, ingestCommand } from './ingest-command.js';

export const REGIONS_FILE = 'scripts/sample/hubs.geojson';

export interface IngestTiming {
  readonly rows: number;
  readonly wallMs: number;
  /** Rows ÷ wall time of the whole `ingest/main.ts ingest` process (end to end, as `make ingest`). */
  readonly rowsPerSecond: number;
  /** What the ingest's own report says (its pipeline, without process start). */
  readonly reportRowsPerSecond?: number;
  readonly timingsMs?: Record<string, number>;
  /** The report's CPU time per stage (DuckDB's threads included). */
  readonly cpuMs?: Record<string, number>;
  /** Peak RSS of the ingest process (VmHWM, DuckDB included), when measured. */
  readonly peakRssMB?: number;
  /** The report's peak RSS per stage (ingest/stage-memory.ts): which stage holds the memory. */
  readonly stagePeakRssMB?: Record<string, number>;
  /** §7's reference, measured right after the ingest on the same files: DuckDB's bare load (bare-load.ts), wall ms. */
  readonly bareLoadMs?: number;
  readonly measuredAt: string;
  /** True when measured in this run; false when read from the cache. */
  readonly fresh: boolean;
}

/** Issue 55: a full ingest's throughput ≥ half DuckDB's bare load of the same files, in a peak RSS that follows a batch. */
export const BARE_LOAD_RATIO_TARGET = 0.5;
export const INGEST_PEAK_RSS_TARGET = { mb: 1024, rows: 2_000_000, growth: 1.2 } as const;

/** The ingest's rows/s ÷ the bare load's (equally, the bare load's time ÷ the ingest's). */
export function bareLoadRatio(ingest: IngestTiming): number | undefined {
  return ingest.bareLoadMs === undefined ? undefined : ingest.bareLoadMs / ingest.wallMs;
}

/** A full ingest with dataset files ÷ one without (issue 29's ≤ 1.3×): its wall time over that time less the files stage. */
export const FILES_RATIO_TARGET = 1.3;
export function filesRatio(ingest: IngestTiming): number | undefined {
  return stageRatio(ingest, 'files');
}

/** The same ratio in CPU time over the pipeline's stages: steadier than wall time on a machine others share. */
export function filesCpuRatio(ingest: IngestTiming): number | undefined {
  return stageCpuRatio(ingest, 'files');
}

/** A publish with guideline comparisons ÷ one without (issue 45's ≤ 1.2×): the same, less the guidelines stage. */
export const GUIDELINES_RATIO_TARGET = 1.2;

/** Issue 54's trends stage: ≤ 1.15× a publish without it, and at most 30 s of its own on the 10M-row hub. */
export const TRENDS_RATIO_TARGET = 1.15;
export const TRENDS_STAGE_TARGET = { ms: 30_000, rows: 10_000_000 } as const;

/** The trends stage's own target applies to the hub it names; at another size its time is information. */
export function trendsStageVerdict(ingest: IngestTiming): boolean | undefined {
  const ms = ingest.timingsMs?.['trends'];
  return ms === undefined || ingest.rows !== TRENDS_STAGE_TARGET.rows ? undefined : ms <= TRENDS_STAGE_TARGET.ms;
}

/** An ingest's wall time over that time less one stage's (the cost of a publish without that stage's work). */
export function stageRatio(ingest: IngestTiming, stage: string): number | undefined {
  const ms = ingest.timingsMs?.[stage];
  return ms === undefined ? undefined : ingest.wallMs / (ingest.wallMs - ms);
}

export function stageCpuRatio(ingest: IngestTiming, stage: string): number | undefined {
  const ms = ingest.cpuMs?.[stage];
  if (ms === undefined) return undefined;
  const total = Object.values(ingest.cpuMs!).reduce((a, b) => a + b, 0);
  return total / (total - ms);
}

export interface BenchCache {
  readonly dir: string;
  readonly key: string;
  readonly duckdbPath: string;
  readonly ingest: IngestTiming;
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function sampleMatches(dir: string, rows: number, seed: number): boolean {
  const m = readJson<{ version: string; seed: number; rows: number; gzipAll?: boolean }>(join(dir, '.sample-manifest.json'));
  return m?.version === SAMPLE_GENERATOR_VERSION && m.seed === seed && m.rows === rows && m.gzipAll === true;
}

/** Runs the ingest CLI as `make ingest` does, times the whole process and samples its RSS every 100 ms. */
export async function timeIngest(src: string, duckdbPath: string, reportPath: string, rows: number): Promise<IngestTiming> {
  const env = { ...process.env, SRC: src, DUCKDB_PATH: duckdbPath, REGIONS_FILE, REPORT: reportPath };
  const started = performance.now();
  const child = spawn(process.execPath, ingestCommand(['ingest']), { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const rss = sampleRss(child.pid!);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const wallMs = performance.now() - started;
  const peakRssMB = Math.round(rss.stop().peakMB);
  if (code !== 0) throw new Error(`ingest exited with ${code}`);
  const bareLoadMs = await timeBareLoad(src, `${duckdbPath}.bare`);
  const measuredAt = new Date().toISOString();
  const wall = { exitCode: code, wallMs: Math.round(wallMs), peakRssMB, bareLoadMs: Math.round(bareLoadMs), measuredAt };
  await writeFile(`${reportPath.replace(/-report\.json$/, '')}-wall.json`, `${JSON.stringify(wall)}\n`);
  return { ...readTiming(reportPath, wall, rows), fresh: true };
}

/** DuckDB's bare load of `src` into `target` as a process of its own, timed as a whole as the ingest is; the file is removed after. */
async function timeBareLoad(src: string, target: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, bareLoadCommand([src, target]), { stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const ms = performance.now() - started;
  await rm(target, { force: true });
  await rm(`${target}.wal`, { force: true });
  if (code !== 0) throw new Error(`DuckDB's bare load of ${src} exited with ${code}`);
  return ms;
}

/**
 * A run's peak RSS: the ingest resets its high-water mark before each stage (ingest/stage-memory.ts), so the mark
 * measured from outside (sampled, or at exit) may be one stage's; the peak is the largest of it and the report's
 * stages' own (`make remove` and `make compact` report none).
 */
export function runPeakMB(measuredMB: number | undefined, stagePeaks: Record<string, number> | undefined): number {
  return Math.max(measuredMB ?? 0, ...Object.values(stagePeaks ?? {}));
}

function readTiming(reportPath: string, wall: { wallMs: number; peakRssMB?: number; bareLoadMs?: number; measuredAt: string }, rows: number): Omit<IngestTiming, 'fresh'> {
  const report = readJson<{ rowsPerSecond?: number; timingsMs?: Record<string, number>; cpuMs?: Record<string, number>; peakRssMB?: Record<string, number> }>(reportPath);
  const peak = runPeakMB(wall.peakRssMB, report?.peakRssMB);
  return {
    rows,
    wallMs: wall.wallMs,
    rowsPerSecond: rows / (wall.wallMs / 1000),
    reportRowsPerSecond: report?.rowsPerSecond,
    timingsMs: report?.timingsMs,
    cpuMs: report?.cpuMs,
    ...(peak > 0 ? { peakRssMB: peak } : {}),
    ...(report?.peakRssMB ? { stagePeakRssMB: report.peakRssMB } : {}),
    ...(wall.bareLoadMs ? { bareLoadMs: wall.bareLoadMs } : {}),
    measuredAt: wall.measuredAt,
  };
}

/** Builds (or reuses) the cache for `rows` and `seed`; `remeasureIngest` re-runs ingest into a temporary file. */
export async function ensureCache(rows: number, seed: number, remeasureIngest: boolean, log: (s: string) => void): Promise<BenchCache> {
  const key = `${rows}-seed${seed}-v${SAMPLE_GENERATOR_VERSION}-s${STORAGE_SCHEMA_VERSION}-gz`;
  const dir = join('data', 'bench', key);
  const sample = join(dir, 'sample');
  const duckdbPath = join(dir, 'tributary.duckdb');
  const reportPath = join(dir, 'ingest-report.json');
  await mkdir(dir, { recursive: true });

  let sampleBuilt = false;
  if (!sampleMatches(sample, rows, seed)) {
    log(`generating ${rows} rows (seed ${seed}) into ${sample}`);
    await rm(sample, { recursive: true, force: true });
    await generateSample({ rows, seed, out: sample, gzipAll: true });
    sampleBuilt = true;
  }
  const wall = readJson<{ exitCode: number; wallMs: number; peakRssMB?: number; bareLoadMs?: number; measuredAt: string }>(join(dir, 'ingest-wall.json'));
  if (sampleBuilt || !existsSync(duckdbPath) || wall?.exitCode !== 0) {
    log(`ingesting ${sample} into ${duckdbPath} (timed: §7)`);
    await rm(duckdbPath, { force: true });
    const ingest = await timeIngest(sample, duckdbPath, reportPath, rows);
    return { dir, key, duckdbPath, ingest };
  }
  if (remeasureIngest) {
    const tmp = join(dir, 'remeasure');
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp, { recursive: true });
    log(`BENCH_INGEST=1: re-running ingest into ${tmp} (timed: §7)`);
    try {
      const ingest = await timeIngest(sample, join(tmp, 'tributary.duckdb'), join(tmp, 'ingest-report.json'), rows);
      return { dir, key, duckdbPath, ingest };
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
  return { dir, key, duckdbPath, ingest: { ...readTiming(reportPath, wall, rows), fresh: false } };
}
