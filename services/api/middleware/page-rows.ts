/**
 * Pages are metered by the rows they return (issue 46): a page's cost is what it sends, not one request whatever
 * its size. So QGIS, which pages 1,000 features at a time, reads as fast as a DataStream client asking 10,000, and a
 * client asking 10 rows at a time is not held to 2 pages a second.
 *
 * Each client has a bucket of rows (`rps` rows per second, `burst` at once; rate-limit.ts's arithmetic, or the
 * shared one in Redis). A request first draws `minRows` (the floor, so tiny pages cannot flood: with the defaults,
 * at most PAGE_ROWS_PER_SECOND / PAGE_MIN_ROWS requests a second), before any query runs; once its handler has named
 * the rows it carries (http/served-rows.ts, known before the body streams), it draws the rest: for an `$apply`, the
 * rows it read (limits/apply-cost.ts), which may leave the bucket in debt, paid back before the client's next request. Either draw beyond
 * the bucket is held back up to `maxWaitMs` (a client paging without pause is slowed to the rate, never refused),
 * beyond that 429 with Retry-After and the `RateLimit-*` headers, in rows.
 *
 * `perRequest` draws the floor alone: a whole-result export is one request to this budget however many rows it
 * streams (its own limit is MAX_CONCURRENT_EXPORTS).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { chargedRows } from '../http/served-rows.js';
import { amount, BUDGET_UNITS } from '../limits/budgets.js';
import { apiClient } from './api-key.js';
import { holdBack, tokenBuckets, type Decision, type Take } from './rate-limit.js';

export interface PageRowsOptions {
  /** Sustained rows per second. */
  readonly rps: number;
  /** Rows a client may take at once before the sustained rate applies. */
  readonly burst: number;
  /** What a request costs at least, in rows (default 1). */
  readonly minRows?: number;
  readonly maxWaitMs?: number;
  /** Where the buckets live (redis/redis-rate-limit.ts for replicas); this process by default. */
  readonly take?: Take;
  readonly now?: () => number;
  readonly trustProxy?: boolean | number;
  /** Whose bucket this is, for the 429's message: `each key` unless said. */
  readonly per?: string;
  /** Draw the floor alone (exports). */
  readonly perRequest?: boolean;
}

export function pageRows(opts: PageRowsOptions): MiddlewareHandler {
  const minRows = opts.minRows ?? 1;
  if (!Number.isInteger(minRows) || minRows < 1) throw new Error(`the rows a request costs at least must be an integer ≥ 1, got ${minRows}`);
  const local = tokenBuckets({ rps: opts.rps, burst: opts.burst, maxWaitMs: opts.maxWaitMs });
  const now = opts.now ?? Date.now;
  const take: Take = opts.take ?? ((id, cost) => local(id, now(), cost));
  const limit = String(opts.burst);
  const headers = (d: Decision) => ({ 'RateLimit-Limit': limit, 'RateLimit-Remaining': String(d.remaining), 'RateLimit-Reset': String(d.reset) });
  const refuse = (d: Decision) =>
    new ApiError(
      'rate_limited',
      `Too many rows: this API sends ${opts.per ?? 'each key'} ${amount(opts.rps, BUDGET_UNITS.rows)} per second (bursts of ${opts.burst}), each request counting at least ${minRows}. Wait ${d.retryAfter} s (Retry-After), then read on; fewer, larger pages ($top, limit) are as fast as many small ones.`,
      {},
      { ...headers(d), 'Retry-After': String(d.retryAfter) },
    );
  return async function meterPageRows(c, next) {
    const id = apiClient(c, opts.trustProxy).id;
    let d = await take(id, minRows);
    if (!d.allowed) throw refuse(d);
    await holdBack(c, d.waitMs ?? 0);
    await next();
    const rest = opts.perRequest ? 0 : rowsSent(c) - minRows;
    if (rest > 0) {
      d = await take(id, rest);
      if (!d.allowed) {
        // The handler has started the page: cancelling its body ends the query and the request's lease.
        await c.res.body?.cancel();
        throw refuse(d);
      }
      try {
        await holdBack(c, d.waitMs ?? 0);
      } catch (err) {
        await c.res.body?.cancel();
        throw err;
      }
    }
    for (const [name, value] of Object.entries(headers(d))) c.header(name, value);
  };
}

/** The rows the handler said its body carries (or what it said the request costs: an `$apply`'s rows read); none for HEAD, a 304 or an error. */
function rowsSent(c: Context): number {
  if (c.req.method === 'HEAD' || c.error || c.res.status >= 300) return 0;
  return chargedRows(c) ?? 0;
}
