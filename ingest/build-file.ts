import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { constants, existsSync } from 'node:fs';
import { copyFile, mkdir, open, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { run } from './db.js';
import { literal } from './sql.js';

/**
 * The build file's life, from open to abandon: a new DuckDB file is built beside the target
 * (`<DUCKDB_PATH>.tmp-<pid>`, or `…-delta` beside the copy a merge writes), and published (publish.ts, merge.ts) or
 * deleted. Every temp file ingest writes carries its pid, so a run killed meanwhile leaves files the next run removes
 * once that process is gone (`alive`).
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

/** Whether the process that named a temp file still runs: its file is then in use, not stale. */
export function alive(pid: number): boolean {
  if (!Number.isInteger(pid)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
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
  // The delta's name leaves `<target>.tmp-<pid>` to the merge (mergePath); both are removed as stale by pid.
  const path = `${target}.tmp-${process.pid}${delta ? '-delta' : ''}`;
  // preserve_insertion_order is DuckDB's default; the Id order of observations depends on it, so say it.
  // DuckDB still writes the v0.10.2 storage format by default; v1.3.0's (readable by DuckDB 1.3 and later,
  // the API pins 1.5) adds DICT_FSST string compression: a smaller file, written faster (docs/performance.md §7).
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

/** fsync of a file or a directory (a rename is durable once its directory is synced). */
export async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The merge's temp file; `<target>.tmp-<pid>` like a full build, so a killed merge is cleaned up the same way. */
export const mergePath = (target: string) => `${target}.tmp-${process.pid}`;

/** The published file being copied for a merge, started while the delta is built. */
export interface Copy {
  readonly path: string;
  readonly done: Promise<void>;
  /** Waits for the copy and deletes it unless a merge renamed it into place. */
  discard(): Promise<void>;
}

/**
 * Starts copying the published file for the merge and fsyncs the copy, on libuv's threads while stages 1–5 build
 * the delta: the copy is the whole published file's I/O, and flushed now, the merge's own fsync writes only what
 * the merge changed. FICLONE: a reflink on filesystems that share blocks (btrfs, XFS), a plain copy elsewhere.
 */
export function startCopy(target: string): Copy {
  const path = mergePath(target);
  const done = copyFile(target, path, constants.COPYFILE_FICLONE).then(() => fsyncPath(path));
  done.catch(() => {}); // observed by the merge or by discard()
  return {
    path,
    done,
    async discard() {
      await done.catch(() => {});
      await removeBuildFiles(path);
    },
  };
}
