/**
 * QUERY_TIMEOUT_MS: a request whose query has not produced its first row in time is interrupted in DuckDB
 * (the abort reaches `connection.interrupt()` through the snapshot) and answered 504. Once the first row is
 * there the clock stops: a large page streaming to a slow client is not a slow query. The client's own
 * disconnect aborts the same signal, before and after the first row.
 */
import { ApiError } from '../errors.js';

export interface QueryDeadline {
  /** Pass to every snapshot call of the request. */
  readonly signal: AbortSignal;
  /** The first row is there (or the request is done): stop the clock. */
  stop(): void;
  /** The error to answer with: the 504 when the deadline interrupted the query, else `err` unchanged. */
  explain(err: unknown): unknown;
}

/** What a page answers when its deadline stopped the query (an export says its own: routes/export.ts). */
const PAGE_TIMEOUT = (seconds: number) =>
  `The query did not produce its first row within ${seconds} s and was stopped. Retry once; if it times out again, lower $top or narrow $filter (e.g. a LocationId, a DOI or a date range).`;

export function queryDeadline(client: AbortSignal, timeoutMs: number | undefined, message: (seconds: number) => string = PAGE_TIMEOUT): QueryDeadline {
  const controller = new AbortController();
  if (client.aborted) controller.abort(client.reason);
  else client.addEventListener('abort', () => controller.abort(client.reason), { once: true });
  let expired = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          expired = true;
          controller.abort(new Error(`query timed out after ${timeoutMs} ms`));
        }, timeoutMs);
  return {
    signal: controller.signal,
    stop: () => clearTimeout(timer),
    explain(err) {
      if (!expired) return err;
      return new ApiError('query_timeout', message((timeoutMs ?? 0) / 1000));
    },
  };
}
