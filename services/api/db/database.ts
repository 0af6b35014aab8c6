/**
 * The published database as the API sees it: the current snapshot, swapped when ingest publishes a new file.
 * Ingest renames a complete file over DUCKDB_PATH, so a change of the path's inode means a new publication.
 * Requests hold the snapshot they started on until their response is done, so a page never mixes two
 * publications; the old file is closed once its last reader releases it.
 */
import { stat } from 'node:fs/promises';
import { openSnapshot, type Snapshot, type SnapshotOptions } from './snapshot.js';

export interface Database {
  /**
   * `publication`: the id of the publication the snapshot belongs to: with a store, the id its CURRENT names (ingest
   * gives it the file's own); at a plain path, the file's `tributary_meta.publication_id`, or its identity for a file
   * published before ingest wrote one.
   */
  acquire(): { snapshot: Snapshot; release: () => void; publication: string };
  /** Checks the file now and switches if it changed; resolves true when it switched. */
  refresh(): Promise<boolean>;
  /**
   * Closes the file once its last reader has released it, waiting up to `waitMs` for that: a page cut at shutdown
   * first has to stop its COPY (which may sit in a blocking write) before the process can exit cleanly.
   */
  close(waitMs?: number): Promise<void>;
}

export interface DatabaseOptions extends SnapshotOptions {
  /** How often to look for a newly published file; 0 disables polling (tests call refresh()). */
  readonly pollMs?: number;
  readonly log?: (msg: string) => void;
  /**
   * Where the publication to serve is now: by default the file at `path`, identified by its inode (ingest renames
   * a new file over it); publication/store-source.ts reads the publication store instead.
   */
  readonly locate?: () => Promise<{ readonly id: string; readonly path: string }>;
}

interface Entry {
  readonly snapshot: Snapshot;
  readonly identity: string;
  users: number;
  retired: boolean;
  /** Set once the snapshot is closing. */
  closing?: Promise<void>;
}

async function identityOf(path: string): Promise<string> {
  const s = await stat(path);
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
}

export async function openDatabase(path: string, opts: DatabaseOptions = {}): Promise<Database> {
  const log = opts.log ?? (() => {});
  const locate = opts.locate ?? (async () => ({ id: await identityOf(path), path }));
  const first = await locate();
  let current: Entry = { snapshot: await openSnapshot(first.path, opts), identity: first.id, users: 0, retired: false };
  let refreshing: Promise<boolean> | undefined;

  function closeIfIdle(e: Entry): void {
    if (e.retired && e.users === 0) e.closing ??= e.snapshot.close();
  }

  async function doRefresh(): Promise<boolean> {
    let found: { id: string; path: string };
    try {
      found = await locate();
    } catch {
      return false; // mid-rename or removed: keep serving what we have
    }
    if (found.id === current.identity) return false;
    const snapshot = await openSnapshot(found.path, opts);
    const old = current;
    current = { snapshot, identity: found.id, users: 0, retired: false };
    old.retired = true;
    closeIfIdle(old);
    log(opts.locate ? `switched to publication ${found.id}` : `switched to newly published ${path}`);
    return true;
  }

  const refresh = () => (refreshing ??= doRefresh().finally(() => (refreshing = undefined)));
  const timer = opts.pollMs ? setInterval(() => void refresh().catch((err) => log(`publish check failed: ${String(err)}`)), opts.pollMs) : undefined;
  timer?.unref();

  return {
    acquire() {
      const entry = current;
      entry.users++;
      let released = false;
      return {
        snapshot: entry.snapshot,
        publication: opts.locate ? entry.identity : (entry.snapshot.publication ?? entry.identity),
        release() {
          if (released) return;
          released = true;
          entry.users--;
          closeIfIdle(entry);
        },
      };
    },
    refresh,
    async close(waitMs = 0) {
      if (timer) clearInterval(timer);
      await refreshing?.catch(() => false);
      current.retired = true;
      closeIfIdle(current);
      const until = Date.now() + waitMs;
      while (current.users > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      // A cursor's COPY blocked on a full pipe must be interrupted before the process exits: exit waits for it.
      if (current.closing) await Promise.race([current.closing, new Promise((r) => setTimeout(r, Math.max(until - Date.now(), 1000)).unref())]);
    },
  };
}
