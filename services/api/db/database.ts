/**
 * The published database as the API sees it: the current snapshot, swapped when ingest publishes a new file, and
 * the publications before it that pinned requests still read (issue 38).
 * Ingest renames a complete file over DUCKDB_PATH, so a change of the path's inode means a new publication.
 * Requests hold the snapshot they started on until their response is done, so a page never mixes two
 * publications; a request that names a publication (a next link always does) is answered from that one, so an
 * extract of many pages is one publication's rows whatever is published meanwhile.
 *
 * Which older publications stay open follows schemas/publication-retention.ts: at a plain path the old file lives
 * on only through the snapshot this process keeps open (its inode outlives the rename), so a restart forgets it;
 * with a publication store an old publication is reopened from the store on demand, by any replica, and closed
 * again once idle.
 */
import { stat } from 'node:fs/promises';
import { DEFAULT_RETENTION_MS, retainedPublications } from '../../../schemas/publication-retention.js';
import { openSnapshot, type Snapshot, type SnapshotOptions } from './snapshot.js';

export interface Acquisition {
  readonly snapshot: Snapshot;
  release(): void;
  /**
   * The id of the publication the snapshot belongs to: with a store, the id its CURRENT names (ingest gives it the
   * file's own); at a plain path, the file's `tributary_meta.publication_id`, or its identity for a file published
   * before ingest wrote one.
   */
  readonly publication: string;
}

export interface Database {
  /** The current publication. */
  acquire(): Acquisition;
  /**
   * The publication `publication` names (the current one or an older one still served; with a store, a newer one
   * this replica has not switched to yet); rejects with PublicationGone when it is not served.
   */
  acquirePinned(publication: string): Promise<Acquisition>;
  /** The current publication's id. */
  readonly current: string;
  /** Checks the file now and switches if it changed; resolves true when it switched. */
  refresh(): Promise<boolean>;
  /** Publications open now, the current one included (for tests and the bench's retention figures). */
  readonly open: readonly string[];
  /**
   * Closes the files once their last readers have released them, waiting up to `waitMs` for that: a page cut at
   * shutdown first has to stop its COPY (which may sit in a blocking write) before the process can exit cleanly.
   */
  close(waitMs?: number): Promise<void>;
}

/** A publication that is not (or no longer) served: the lease answers 410 naming the current one. */
export class PublicationGone extends Error {
  override readonly name = 'PublicationGone';
  constructor(
    readonly publication: string,
    readonly current: string,
  ) {
    super(`publication ${publication} is not served`);
  }
}

/** The app's `acquire` (app.ts): the current publication, or the one a request pins. */
export function acquirer(db: Database): (publication?: string) => Acquisition | Promise<Acquisition> {
  return (publication) => (publication === undefined ? db.acquire() : db.acquirePinned(publication));
}

export interface Located {
  readonly id: string;
  readonly path: string;
}

export interface DatabaseOptions extends SnapshotOptions {
  /** How often to look for a newly published file; 0 disables polling (tests call refresh()). */
  readonly pollMs?: number;
  readonly log?: (msg: string) => void;
  /**
   * Where the publication to serve is now: by default the file at `path`, identified by its inode (ingest renames
   * a new file over it); publication/store-source.ts reads the publication store instead.
   */
  readonly locate?: () => Promise<Located>;
  /** With a store: where publication `id` is, when the store still holds it within the retention. */
  readonly locateOne?: (id: string) => Promise<Located | undefined>;
  /** PUBLICATION_RETENTION_MS: how long a publication stays servable after it stopped being current. */
  readonly retentionMs?: number;
  /** A reopenable (store) publication nobody has read for this long is closed. */
  readonly idleCloseMs?: number;
  readonly now?: () => number;
}

interface Entry {
  readonly snapshot: Snapshot;
  /** What `locate` names it by: the store's id, or the plain file's identity. */
  readonly identity: string;
  /** The id requests name it by. */
  readonly publication: string;
  users: number;
  lastUsed: number;
  /** When it stopped being current. */
  retiredAt?: number;
  /** Past the retention (or shutting down): no new reader; closed once the last one releases it. */
  expired: boolean;
  closing?: Promise<void>;
}

async function identityOf(path: string): Promise<string> {
  const s = await stat(path);
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
}

const IDLE_CLOSE_MS = 5 * 60 * 1000;

export async function openDatabase(path: string, opts: DatabaseOptions = {}): Promise<Database> {
  const log = opts.log ?? (() => {});
  const now = opts.now ?? Date.now;
  const retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_MS;
  const locate = opts.locate ?? (async () => ({ id: await identityOf(path), path }));
  // With a store, an old publication can be opened again from it; at a plain path, only what is held exists.
  const reopenable = opts.locateOne !== undefined;

  async function openEntry(found: Located): Promise<Entry> {
    const snapshot = await openSnapshot(found.path, opts);
    const publication = opts.locate ? found.id : (snapshot.publication ?? found.id);
    return { snapshot, identity: found.id, publication, users: 0, lastUsed: now(), expired: false };
  }

  let current = await openEntry(await locate());
  /** The publications before the current one that are still open, by the id requests name them by. */
  const older = new Map<string, Entry>();
  const opening = new Map<string, Promise<Entry | undefined>>();
  let refreshing: Promise<boolean> | undefined;

  function closeIfIdle(e: Entry): void {
    if (e.expired && e.users === 0) e.closing ??= e.snapshot.close();
  }

  /** Expires what the retention no longer covers, and (with a store) what nobody has read for a while. */
  function sweep(): void {
    const t = now();
    const byAge = [...older.values()].sort((a, b) => (a.retiredAt ?? t) - (b.retiredAt ?? t));
    const kept = retainedPublications(
      [...byAge.map((e) => ({ id: e.publication, stoppedAt: new Date(e.retiredAt ?? t) })), { id: current.publication }],
      new Date(t),
      retentionMs,
    );
    for (const e of byAge) {
      const idle = reopenable && e.users === 0 && t - e.lastUsed > (opts.idleCloseMs ?? IDLE_CLOSE_MS);
      if (kept.has(e.publication) && !idle) continue;
      older.delete(e.publication);
      e.expired = true;
      closeIfIdle(e);
    }
  }

  function retire(e: Entry): void {
    e.retiredAt = now();
    older.set(e.publication, e);
    sweep();
  }

  async function doRefresh(): Promise<boolean> {
    let found: Located;
    try {
      found = await locate();
    } catch {
      return false; // mid-rename or removed: keep serving what we have
    }
    if (found.id === current.identity) return false;
    // A pinned request may already have opened it from the store (a replica behind its poll).
    const held = [...older.values()].find((e) => e.identity === found.id);
    const next = held ?? (await openEntry(found));
    if (held) older.delete(held.publication);
    const old = current;
    current = next;
    delete current.retiredAt;
    retire(old);
    log(opts.locate ? `switched to publication ${found.id}` : `switched to newly published ${path}`);
    return true;
  }

  /** An older publication by id: held, or (with a store) opened again while the store still holds it. */
  async function olderEntry(publication: string): Promise<Entry | undefined> {
    const held = older.get(publication);
    if (held) return held;
    if (!opts.locateOne) return undefined;
    let pending = opening.get(publication);
    if (!pending) {
      pending = (async () => {
        const found = await opts.locateOne!(publication);
        if (!found) return undefined;
        const e = await openEntry(found).catch((err: unknown) => {
          // Its objects removed by a publish between the listing and the open: gone as well.
          log(`cannot open publication ${publication}: ${String(err)}`);
          return undefined;
        });
        if (!e) return undefined;
        // A newer one than the current (this replica has not switched yet) is retired only once it is replaced.
        e.retiredAt = publication < current.publication ? now() : undefined;
        older.set(publication, e);
        return e;
      })().finally(() => opening.delete(publication));
      opening.set(publication, pending);
    }
    return pending;
  }

  function take(e: Entry): Acquisition {
    e.users++;
    e.lastUsed = now();
    let released = false;
    return {
      snapshot: e.snapshot,
      publication: e.publication,
      release() {
        if (released) return;
        released = true;
        e.users--;
        e.lastUsed = now();
        closeIfIdle(e);
      },
    };
  }

  const refresh = () => (refreshing ??= doRefresh().finally(() => (refreshing = undefined)));
  const timer = opts.pollMs
    ? setInterval(() => {
        sweep();
        void refresh().catch((err) => log(`publish check failed: ${String(err)}`));
      }, opts.pollMs)
    : undefined;
  timer?.unref();

  return {
    acquire() {
      sweep();
      return take(current);
    },
    async acquirePinned(publication) {
      sweep();
      if (publication === current.publication) return take(current);
      const e = await olderEntry(publication);
      if (!e || e.expired) throw new PublicationGone(publication, current.publication);
      return take(e);
    },
    get current() {
      return current.publication;
    },
    get open() {
      return [...older.keys(), current.publication];
    },
    refresh,
    async close(waitMs = 0) {
      if (timer) clearInterval(timer);
      await refreshing?.catch(() => false);
      const all = [current, ...older.values()];
      for (const e of all) {
        e.expired = true;
        closeIfIdle(e);
      }
      const until = Date.now() + waitMs;
      while (all.some((e) => e.users > 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      // A cursor's COPY blocked on a full pipe must be interrupted before the process exits: exit waits for it.
      const closing = all.flatMap((e) => (e.closing ? [e.closing] : []));
      if (closing.length) await Promise.race([Promise.all(closing), new Promise((r) => setTimeout(r, Math.max(until - Date.now(), 1000)).unref())]);
    },
  };
}
