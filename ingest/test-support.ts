import { DuckDBInstance } from '@duckdb/node-api';
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

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

/** Rows of a query against a DuckDB file opened read-only (BIGINT as number, dates as strings). */
export async function query(path: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const reader = await conn.runAndReadAll(sql);
    return reader.getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Every table of the published contract, each in its physical order, for comparing two files. */
export async function dumpTables(path: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of ['datasets', 'locations', 'location_regions', 'observations', 'observation_stats']) {
    out[t] = await query(path, `SELECT * FROM ${t}`);
  }
  out.tributary_meta = await query(path, `SELECT * FROM tributary_meta WHERE key NOT IN ('published_at', 'publication_id') ORDER BY key`);
  return out;
}

export interface CliRun {
  readonly pid: number;
  /** Exit code (null when killed) and everything written to stderr. */
  readonly exit: Promise<{ readonly code: number | null; readonly stderr: string }>;
  /** Resolves once stderr matches `pattern` (an event to wait for, not a time); rejects if the process exits first. */
  until(pattern: RegExp): Promise<void>;
  kill(signal: NodeJS.Signals): void;
}

/** Starts the ingest CLI (`ingest/main.ts <args>`) as a real process. */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv): CliRun {
  const child = spawn(process.execPath, ['--import', 'tsx', 'ingest/main.ts', ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
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
    const path = join(`${db}.files`, `sha256-${String(f.Sha256)}.${String(f.Format)}`);
    const size = await stat(path).then((s) => s.size, () => undefined);
    if (size !== Number(f.Bytes)) missing.push(path);
  }
  return missing;
}
