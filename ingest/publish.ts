import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { run } from './db.js';
import { literal } from './sql.js';

/**
 * Stage 6 (publish): a new DuckDB file is built beside the target (`<DUCKDB_PATH>.tmp-<pid>`), checkpointed,
 * fsynced and renamed over DUCKDB_PATH, so readers see either the old file or the complete new one. A failed
 * or killed ingest leaves the old file untouched; its stray temp file is removed by the next run.
 */

export interface Build {
  readonly target: string;
  readonly path: string;
  readonly conn: DuckDBConnection;
  /** The published file is attached read-only as `prev` (when there is one). */
  readonly hasPrevious: boolean;
  /**
   * True when this build holds only the new datasets, numbered after the published ones, for merge.ts to append
   * to a copy of the published file; false when it is the whole new file.
   */
  readonly delta: boolean;
  /** Another connection to the build (its own temporary objects), closed with the build. */
  connect(): Promise<DuckDBConnection>;
  close(): void;
}

/** The DuckDB storage format of published files (see openBuild). */
export const STORAGE_FORMAT = 'v1.3.0';

const tempPrefix = (target: string) => `${basename(target)}.tmp-`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes temp files and spill directories of builds whose process is gone (e.g. killed with SIGKILL). */
export async function removeStaleBuilds(target: string): Promise<string[]> {
  const dir = dirname(target);
  const prefix = tempPrefix(target);
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number.parseInt(name.slice(prefix.length), 10);
    if (!Number.isInteger(pid) || (pid !== process.pid && alive(pid))) continue;
    await rm(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** `delta`: when a publication exists, build only what changes (Build.delta); otherwise the whole file is built. */
export async function openBuild(targetPath: string, opts: { readonly delta?: boolean } = {}): Promise<Build> {
  const target = resolve(targetPath);
  await mkdir(dirname(target), { recursive: true });
  await removeStaleBuilds(target);
  const delta = opts.delta === true && existsSync(target);
  // The delta's name leaves `<target>.tmp-<pid>` to the merge (merge.ts); both are removed as stale by pid.
  const path = `${target}.tmp-${process.pid}${delta ? '-delta' : ''}`;
  // preserve_insertion_order is DuckDB's default; the Id order of observations depends on it, so say it.
  // DuckDB still writes the v0.10.2 storage format by default; v1.3.0's (readable by DuckDB 1.3 and later,
  // the API pins 1.5) adds DICT_FSST string compression, which writes faster and smaller
  // (docs/performance.md, Alternatives measured and rejected).
  const instance = await DuckDBInstance.create(path, { preserve_insertion_order: 'true', storage_compatibility_version: STORAGE_FORMAT });
  const conn = await instance.connect();
  const others: DuckDBConnection[] = [];
  const connect = async () => {
    const other = await instance.connect();
    others.push(other);
    return other;
  };
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    for (const other of others) other.closeSync();
    conn.closeSync();
    instance.closeSync();
  };
  try {
    const hasPrevious = existsSync(target);
    if (hasPrevious) await run(conn, `ATTACH ${literal(target)} AS prev (READ_ONLY)`);
    return { target, path, conn, hasPrevious, delta, connect, close };
  } catch (err) {
    close();
    await rm(path, { force: true });
    throw err;
  }
}

/** fsync of a file or a directory (a rename is durable once its directory is synced). */
export async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Checkpoints, closes, fsyncs and renames the build over the target; then fsyncs the directory. */
export async function publishBuild(build: Build): Promise<void> {
  await checkpointAndClose(build);
  if (existsSync(`${build.path}.wal`)) throw new Error('the new file still has a write-ahead log after CHECKPOINT');
  await fsyncPath(build.path);
  await rename(build.path, build.target);
  await fsyncPath(dirname(build.target));
}

/** Detaches the published file, checkpoints and closes: a delta build is then read by merge.ts and deleted. */
export async function checkpointAndClose(build: Build): Promise<void> {
  if (build.hasPrevious) await run(build.conn, 'DETACH prev');
  await run(build.conn, 'CHECKPOINT');
  build.close();
}

/** Closes and deletes an unfinished build (its file, WAL and spill directory). */
export async function abandonBuild(build: Build): Promise<void> {
  try {
    build.close();
  } catch {
    // Already failing: the files are removed below either way.
  }
  await removeBuildFiles(build.path);
}

/** Deletes an unfinished DuckDB file with its WAL and spill directory. */
export async function removeBuildFiles(path: string): Promise<void> {
  for (const suffix of ['', '.wal', '.tmp']) await rm(`${path}${suffix}`, { recursive: true, force: true });
}
