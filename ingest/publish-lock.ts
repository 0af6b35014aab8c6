/**
 * One publish at a time: every `make ingest`, `make remove` and `make compact` holds `<DUCKDB_PATH>.lock` from before
 * it reads the published file until after it has renamed the new one into place (and, with a publication store,
 * `<PUBLICATION_STORE>/publish.lock` until CURRENT names its publication), so a second publish builds on the first's
 * result instead of on the same base, and neither change is lost to the other's rename.
 *
 * The lock is the operating system's (an fcntl lock on the lock file), so it ends with its process, however that
 * process ends: a publish killed with SIGKILL blocks nobody, and there is no staleness to guess. Node has no fcntl
 * without a native addon; DuckDB takes exactly this lock on every database file it opens for writing, so the lock
 * file is a small, empty DuckDB file that the holder keeps open. A lock directory refreshed by mtime
 * (proper-lockfile) would block for its stale period after a SIGKILL, and its stale takeover can let two waiters hold
 * it at once (moxystudio/node-proper-lockfile#121).
 *
 * fcntl locks belong to the process: a second open in the same process succeeds, and closing it would drop the
 * lock. So the lock file is opened by nothing else, and a second acquire in one process is a programming error.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A publish that did not happen because another one held the lock or moved the store's CURRENT (exit code 3). */
export class PublishRefused extends Error {}

export interface PublishLock {
  readonly path: string;
  release(): Promise<void>;
}

export interface LockOptions {
  /** How long to wait for the holder (INGEST_LOCK_TIMEOUT_MS); 0 tries once. */
  readonly timeoutMs: number;
  /** What this process does, shown to the ones waiting for it, e.g. `remove 10.25976/abcd-ef12`. */
  readonly command: string;
  /** Told once, when the lock is held by another process and this one starts waiting. */
  readonly onWait?: (line: string) => void;
  readonly pollMs?: number;
}

/** Who holds a lock, written beside it by the holder (`<lock>.json`) for the messages of those waiting. */
interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  readonly command: string;
}

const held = new Set<string>();
const LOCKED = /Could not set lock on file/;

export async function acquirePublishLock(lockPath: string, opts: LockOptions): Promise<PublishLock> {
  const path = resolve(lockPath);
  if (held.has(path)) throw new Error(`${path} is held by this process already`);
  await mkdir(dirname(path), { recursive: true });
  const deadline = performance.now() + opts.timeoutMs;
  for (let waiting = false; ; waiting = true) {
    const attempt = await tryLock(path);
    if (attempt instanceof DuckDBInstance) return hold(path, attempt, opts.command);
    const holder = await describeHolder(path, attempt.pid);
    const left = deadline - performance.now();
    if (left <= 0) throw new PublishRefused(refusal(path, holder, opts.timeoutMs));
    if (!waiting) opts.onWait?.(`waiting for ${path}, held by ${holder} (for at most ${opts.timeoutMs} ms: INGEST_LOCK_TIMEOUT_MS)`);
    await sleep(Math.min(opts.pollMs ?? 500, left));
  }
}

async function tryLock(path: string): Promise<DuckDBInstance | { readonly pid?: number }> {
  try {
    return await DuckDBInstance.create(path, { threads: '1' });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!LOCKED.test(message)) throw new Error(`cannot open the publish lock ${path}: ${message}`);
    // DuckDB names the process holding the conflicting lock, as the kernel reports it (F_GETLK).
    const pid = /\(PID (\d+)\)/.exec(message)?.[1];
    return { pid: pid === undefined ? undefined : Number(pid) };
  }
}

async function hold(path: string, instance: DuckDBInstance, command: string): Promise<PublishLock> {
  const holder: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command };
  try {
    // Written in place, not renamed: it is only read for messages, and a killed holder's copy is overwritten next time.
    await writeFile(`${path}.json`, `${JSON.stringify(holder)}\n`);
  } catch (err) {
    instance.closeSync();
    throw err;
  }
  held.add(path);
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      await rm(`${path}.json`, { force: true });
      instance.closeSync();
      held.delete(path);
    },
  };
}

/** `pid 123 on host h since <time> (ingest)`; the kernel's pid wins over a note left by a killed holder. */
async function describeHolder(path: string, pid: number | undefined): Promise<string> {
  let note: Holder | undefined;
  try {
    note = JSON.parse(await readFile(`${path}.json`, 'utf8')) as Holder;
  } catch {
    // Not written yet, or being written: the kernel's pid is all there is.
  }
  if (note && (pid === undefined || pid === note.pid)) return `pid ${note.pid} on ${note.host} since ${note.since} (${note.command})`;
  return pid === undefined ? 'another process' : `pid ${pid}`;
}

function refusal(path: string, holder: string, timeoutMs: number): string {
  return (
    `another publish holds ${path}: ${holder}. Gave up after ${timeoutMs} ms (INGEST_LOCK_TIMEOUT_MS); nothing was published. ` +
    'Run again once it has finished, or with a larger INGEST_LOCK_TIMEOUT_MS to wait for it. The lock ends with its process; ' +
    `only if that process is gone and the lock stays (a network volume whose machine died) remove ${path}.`
  );
}
