import { DuckDBInstance } from '@duckdb/node-api';
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { inject } from 'vitest';
import { datasetFileName, plainFilesDir, type DownloadFormat } from '../schemas/publication-files.js';

export const fixturesDir = new URL('./fixtures/src/', import.meta.url).pathname;
const repoRoot = new URL('..', import.meta.url).pathname;

export async function tempDir(prefix = 'tributary-ingest-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Copies fixture datasets into `dest`; beta's CSV is gzipped here so no binary is committed. */
export async function copyFixtures(dest: string, folders = ['alpha', 'beta', 'gamma', 'broken']): Promise<string> {
  for (const f of folders) await cp(join(fixturesDir, f), join(dest, f), { recursive: true });
  if (folders.includes('beta')) {
    const csv = join(dest, 'beta', 'data.csv');
    await writeFile(`${csv}.gz`, gzipSync(await readFile(csv)));
    await rm(csv);
  }
  return dest;
}

/** Runs `queries` on a DuckDB file opened read-only, once, returning each one's rows (BIGINT as number, dates as strings). */
async function readOnly(path: string, queries: readonly string[]): Promise<Record<string, unknown>[][]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const out: Record<string, unknown>[][] = [];
    for (const sql of queries) out.push((await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[]);
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Rows of a query against a DuckDB file opened read-only (BIGINT as number, dates as strings). */
export async function query(path: string, sql: string): Promise<Record<string, unknown>[]> {
  return (await readOnly(path, [sql]))[0]!;
}

const CONTRACT_TABLES = ['datasets', 'locations', 'location_regions', 'observations', 'observation_stats', 'guidelines', 'guideline_comparisons', 'guideline_comparison_stats', 'guideline_comparison_totals', 'water_quality_index', 'trends', 'dataset_search'] as const;
/** tributary_meta without what differs between two publishes of the same content. */
const META_SQL = `SELECT * FROM tributary_meta WHERE key NOT IN ('published_at', 'publication_id') ORDER BY key`;

/** Every table of the published contract, each in its physical order, for comparing two files. */
export async function dumpTables(path: string): Promise<Record<string, unknown[]>> {
  const rows = await readOnly(path, [...CONTRACT_TABLES.map((t) => `SELECT * FROM ${t}`), META_SQL]);
  return Object.fromEntries([...CONTRACT_TABLES, 'tributary_meta'].map((t, i) => [t, rows[i]!]));
}

/**
 * What dumpTables compares, for files too large to dump at each step: every table of the contract as its row count
 * and a hash of its rows in physical order, computed in DuckDB (a 30,000-row file dumps to JavaScript objects in
 * seconds; this takes a fraction of one), and tributary_meta in full.
 */
export async function tableFingerprints(path: string): Promise<Record<string, unknown>> {
  const fingerprint = (t: string) => `SELECT count(*)::INTEGER AS rows, sum(hash(n, r))::VARCHAR AS hash FROM (SELECT row_number() OVER (ORDER BY t.rowid) AS n, t AS r FROM ${t} t)`;
  const rows = await readOnly(path, [...CONTRACT_TABLES.map(fingerprint), META_SQL]);
  return Object.fromEntries([...CONTRACT_TABLES.map((t, i) => [t, rows[i]![0]]), ['tributary_meta', rows.at(-1)]]);
}

/**
 * A copy of a published file with its dataset files, which it lists (services/api/testing's copyPublished, which
 * ingest's tests may not import: the two meet only in schemas/).
 */
export async function copyPublishedFile(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  await cp(from, to);
  await cp(plainFilesDir(from), plainFilesDir(to), { recursive: true });
}

export interface CliRun {
  readonly pid: number;
  /** Exit code (null when killed) and everything written to stderr. */
  readonly exit: Promise<{ readonly code: number | null; readonly stderr: string }>;
  /** Resolves once stderr matches `pattern` (an event to wait for, not a time); rejects if the process exits first. */
  until(pattern: RegExp): Promise<void>;
  kill(signal: NodeJS.Signals): void;
}

/** The command line of the ingest CLI with `args`: ingest/main.ts as the run's globalSetup bundled it. */
export const cliArgs = (args: readonly string[]): string[] => [inject('ingestCli'), ...args];

/** Starts the ingest CLI (`ingest/main.ts <args>`) as a real process. */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv): CliRun {
  const child = spawn(process.execPath, cliArgs(args), { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let closed = false;
  const waiters: { pattern: RegExp; resolve: () => void; reject: (err: Error) => void }[] = [];
  const check = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i]!;
      if (w.pattern.test(stderr)) w.resolve();
      else if (closed) w.reject(new Error(`exited before printing ${w.pattern}:\n${stderr}`));
      else continue;
      waiters.splice(i, 1);
    }
  };
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    check();
  });
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      closed = true;
      check();
      resolve({ code, stderr });
    });
  });
  return {
    pid: child.pid!,
    exit,
    until: (pattern) =>
      new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve, reject });
        check();
      }),
    kill: (signal) => child.kill(signal),
  };
}

/** The DOIs a published DuckDB file holds, sorted. */
export async function publishedDois(path: string): Promise<string[]> {
  return (await query(path, 'SELECT "DOI" FROM datasets ORDER BY "DOI"')).map((r) => String(r.DOI));
}

/** The dataset files a published file lists that are not complete in its files folder (missing, or another size). */
export async function listedFilesMissing(db: string): Promise<string[]> {
  const missing: string[] = [];
  for (const f of await query(db, 'SELECT "Sha256", "Format", "Bytes" FROM dataset_files')) {
    const path = join(`${db}.files`, datasetFileName(String(f.Sha256), f.Format as DownloadFormat));
    const size = await stat(path).then((s) => s.size, () => undefined);
    if (size !== Number(f.Bytes)) missing.push(path);
  }
  return missing;
}
