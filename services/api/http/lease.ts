/**
 * The lease: how every data request holds its snapshot. One middleware, mounted on each route of
 * route-table.ts's rows (by mount.ts) with that route's rule, takes the snapshot (after the next-link guard, when the request
 * continues a next link), answers If-None-Match with 304, runs the deadline, sends the stages the handler marked as
 * Server-Timing, and releases the snapshot exactly once: when the rows the body streams end, fail or are cancelled
 * (`lease.hold`), or as soon as the handler is done when nothing streams from it. Handlers read it as
 * `c.get('lease')` and never take a snapshot themselves.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { PublicationGone } from '../db/database.js';
import type { Snapshot } from '../db/snapshot.js';
import { ApiError } from '../errors.js';
import { queryDeadline, type QueryDeadline } from '../limits/query-deadline.js';
import { PATHS, PIN_PARAM, PUBLICATION_HEADER, type LeaseRule } from './paths.js';
import { matchesIfNoneMatch, publicationETag } from './publication-etag.js';
import { stageTimer, type StageTimer } from './server-timing.js';

export interface Acquired {
  readonly snapshot: Snapshot;
  release(): void;
  /** The publication the snapshot belongs to (db/database.ts); its weak ETag validates every answer. */
  readonly publication?: string;
}

export interface Lease {
  readonly snapshot: Snapshot;
  /** The route's deadline rule: `first-row` marks a page (middleware/cut-on-error.ts cuts its stalled reader sooner). */
  readonly deadline: LeaseRule['deadline'];
  readonly publication: string | undefined;
  /** Pass to every snapshot call: aborted by the client's disconnect and by the route's deadline. */
  readonly signal: AbortSignal;
  /** The request's stages; what the handler marks is sent as Server-Timing. */
  readonly timing: StageTimer;
  /** The rows the body streams: the snapshot (and a whole-body deadline) is held until they end, fail or are cancelled. */
  hold<T, R>(rows: AsyncGenerator<T, R>): AsyncGenerator<T, R>;
  /** For a `content` validator: the 304 to answer when If-None-Match names `etag`; a 2xx answer carries it. */
  notModified(etag: string): Response | undefined;
  /** The error to render: the route's 504 when its deadline stopped the query (app.ts's onError asks). */
  explain(err: unknown): unknown;
}

declare module 'hono' {
  interface ContextVariableMap {
    lease: Lease;
  }
}

export interface LeaseDeps {
  /** The current publication's snapshot, or the one `publication` names (rejecting with PublicationGone). */
  readonly acquire: (publication?: string) => Acquired | Promise<Acquired>;
  /** PUBLICATION_RETENTION_MS, for the 410's message. */
  readonly retentionMs?: number | undefined;
  /** QUERY_TIMEOUT_MS and EXPORT_TIMEOUT_MS; each unlimited when left out. */
  readonly queryTimeoutMs?: number | undefined;
  readonly exportTimeoutMs?: number | undefined;
  /** Before the snapshot of a request that continues a next link is taken (publication/follow-current.ts). */
  readonly beforeNextLink?: (() => Promise<void>) | undefined;
}

const EXPORT_TIMEOUT = (seconds: number) =>
  `The export did not start within ${seconds} s (EXPORT_TIMEOUT_MS) and was stopped. Narrow $filter (a DOI, a LocationId, a date range) or export in parts.`;

/**
 * A publication id as ingest writes it (`20261123T112900123Z-1a2b3c4d`, schemas/publication.ts), or a plain file's
 * identity (device, inode, size and time: db/database.ts): anything else names no publication there could be.
 */
const PUBLICATION_ID = /^(?:\d{8}T\d{9}Z-[0-9a-f]{8}|\d{1,20}:\d{1,20}:\d{1,20}:\d{1,20}(?:\.\d{1,10})?)$/;
const STORE_ID = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;

/**
 * The publication the request names (`?publication=<id>`), if any: every next link carries one, and any read URL may.
 * An id of another shape is a 400 (issue 47 item 10: any word was a 410); one that is not served is the acquire's
 * PublicationGone: a 410 when it may have been served and is past its retention, a 404 when it is newer than the
 * current one (ids sort by time), so no publication of that id has been made yet.
 */
export function pinnedPublication(url: string): string | undefined {
  const pin = new URL(url).searchParams.get(PIN_PARAM);
  if (pin === null) return undefined;
  if (!PUBLICATION_ID.test(pin)) {
    throw new ApiError(
      'invalid_parameter',
      `${PIN_PARAM}=${pin.slice(0, 80)} is not a publication id: give the id a response named (its ${PUBLICATION_HEADER} header, or ${PATHS.publications}), or leave ${PIN_PARAM} out to read the current publication.`,
      { parameter: PIN_PARAM },
    );
  }
  return pin;
}

function gone(err: PublicationGone, retentionMs: number | undefined): ApiError {
  if (STORE_ID.test(err.publication) && STORE_ID.test(err.current) && err.publication > err.current) {
    return new ApiError(
      'not_found',
      `No publication ${err.publication}: it is newer than the current one, ${err.current}. Give an id a response named (its ${PUBLICATION_HEADER} header, or ${PATHS.publications}), or leave ${PIN_PARAM} out to read the current publication.`,
      { parameter: PIN_PARAM },
      { [PUBLICATION_HEADER]: err.current },
    );
  }
  const kept = retentionMs === undefined ? 'for a while' : `for ${formatDuration(retentionMs)}`;
  return new ApiError(
    'publication_gone',
    `Publication ${err.publication} is no longer served: a publication stays readable ${kept} after a newer one replaces it (PUBLICATION_RETENTION_MS), and the three newest always. ` +
      `The current publication is ${err.current}: start again from the first page (the same URL without ${PIN_PARAM} and without $skiptoken or cursor), or pin it with ${PIN_PARAM}=${err.current}.`,
    { parameter: PIN_PARAM },
    { [PUBLICATION_HEADER]: err.current },
  );
}

function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

/** A request carries its route's next-link parameter: it continues a response of an earlier request. */
export function continuesNextLink(url: string, rule: LeaseRule): boolean {
  return rule.continuation !== undefined && new URL(url).searchParams.has(rule.continuation);
}

export function lease(rule: LeaseRule, deps: LeaseDeps): MiddlewareHandler {
  return async function leaseSnapshot(c, next) {
    const pin = pinnedPublication(c.req.url);
    // A pinned request reads its own publication; an unpinned next link (from before links were pinned) must not
    // go back to an older one than its previous page came from.
    if (pin === undefined && deps.beforeNextLink && continuesNextLink(c.req.url, rule)) await deps.beforeNextLink();
    const acquired = await (async () => deps.acquire(pin))().catch((err: unknown) => Promise.reject(err instanceof PublicationGone ? gone(err, deps.retentionMs) : err));
    if (acquired.publication) c.header(PUBLICATION_HEADER, acquired.publication);
    const release = once(() => acquired.release());
    let etag = rule.etag === 'publication' && acquired.publication ? publicationETag(acquired.publication) : undefined;
    if (etag && matchesIfNoneMatch(c.req.header('if-none-match'), etag)) {
      release();
      return c.body(null, 304, validators(rule, etag));
    }
    const deadline = startDeadline(c, rule, deps);
    const done = () => (release(), deadline.stop());
    const timing = stageTimer();
    let held = false;
    const notModified = (tag: string) => {
      etag = contentTag(rule, tag);
      return matchesIfNoneMatch(c.req.header('if-none-match'), tag) ? c.body(null, 304, validators(rule, tag)) : undefined;
    };
    const hold = <T, R>(rows: AsyncGenerator<T, R>) => ((held = true), whileOpen(rows, done));
    c.set('lease', { snapshot: acquired.snapshot, deadline: rule.deadline, publication: acquired.publication, signal: deadline.signal, timing, hold, notModified, explain: deadline.explain });
    try {
      await next();
    } finally {
      // Nothing streams from the snapshot (a document, an error): done now. Rows stream: a page's clock stops at
      // its first row, which the handler waited for; the rest ends with the rows.
      if (!held || c.error) done();
      else if (rule.deadline === 'first-row') deadline.stop();
    }
    if (c.error || c.res.status >= 300) return;
    for (const [name, value] of Object.entries(validators(rule, etag))) c.header(name, value);
    if (acquired.publication) c.header(PUBLICATION_HEADER, acquired.publication);
    if (timing.header()) c.header('Server-Timing', timing.header());
  };
}

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (!called) fn();
    called = true;
  };
}

function startDeadline(c: Context, rule: LeaseRule, deps: LeaseDeps): QueryDeadline {
  switch (rule.deadline) {
    case 'first-row':
      return queryDeadline(c.req.raw.signal, deps.queryTimeoutMs);
    case 'whole-body':
      return queryDeadline(c.req.raw.signal, deps.exportTimeoutMs, EXPORT_TIMEOUT);
    case 'none':
      return queryDeadline(c.req.raw.signal, undefined);
  }
}

/** The headers a 2xx and its 304 share (RFC 9110 §15.4.5). */
function validators(rule: LeaseRule, etag: string | undefined): Record<string, string> {
  return { ...(etag ? { ETag: etag } : {}), ...(rule.cacheControl ? { 'Cache-Control': rule.cacheControl } : {}) };
}

function contentTag(rule: LeaseRule, etag: string): string {
  if (rule.etag !== 'content') throw new Error(`a route whose validator is the ${rule.etag} named its own ETag`);
  return etag;
}

/** Runs `done` once the generator has finished, failed or been abandoned. */
async function* whileOpen<T, R>(source: AsyncGenerator<T, R>, done: () => void): AsyncGenerator<T, R> {
  try {
    return yield* source;
  } finally {
    done();
  }
}
