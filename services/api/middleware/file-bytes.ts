/**
 * Dataset files (`/v1/downloads/files/…`) are metered by the bytes they send, not by requests: an engine reading
 * Parquet over HTTP (polars, DuckDB, pyarrow) sends a HEAD and many small range requests (a footer, then column
 * chunks), several at once, and a request count would throttle exactly the reads the files were published for.
 *
 * Each client has a bucket of bytes (`bytesPerSecond` sustained, `burst` at once; rate-limit.ts's arithmetic): a
 * response costs the bytes it sends (its Content-Length; a HEAD, a 304 or a small range at least
 * FILE_REQUEST_MIN_BYTES, so a flood of tiny requests is still bounded), drawn once its handler has answered. A
 * response larger than the bucket is sent once the bucket is full and leaves it in debt; a client over its budget
 * is held back up to `maxWaitMs` (reads slow down to the budget), beyond that 429 with Retry-After.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { apiClient } from './api-key.js';
import { holdBack, tokenBuckets, type Take } from './rate-limit.js';

/** What a request costs at least: headers, a HEAD, a 304, a range of a few bytes. */
export const FILE_REQUEST_MIN_BYTES = 16 * 1024;

export interface FileBytesOptions {
  readonly bytesPerSecond: number;
  /** Bytes a client may take at once before the sustained rate applies. */
  readonly burst: number;
  readonly maxWaitMs?: number;
  /** Where the buckets live (redis/redis-rate-limit.ts for replicas); this process by default. */
  readonly take?: Take;
  readonly now?: () => number;
  readonly trustProxy?: boolean | number;
}

export function fileBytes(opts: FileBytesOptions): MiddlewareHandler {
  const local = tokenBuckets({ rps: opts.bytesPerSecond, burst: opts.burst, maxWaitMs: opts.maxWaitMs });
  const now = opts.now ?? Date.now;
  const take: Take = opts.take ?? ((id, cost) => local(id, now(), cost));
  return async function meterFileBytes(c, next) {
    await next();
    const d = await take(apiClient(c, opts.trustProxy).id, Math.max(FILE_REQUEST_MIN_BYTES, bytesToSend(c)));
    if (!d.allowed) {
      // The handler has opened the file: closing the body closes it and ends the request's lease.
      await c.res.body?.cancel();
      throw new ApiError(
        'rate_limited',
        `Too many bytes of dataset files: this API sends each key ${size(opts.bytesPerSecond)} per second of dataset files (bursts of ${size(opts.burst)}). Wait ${d.retryAfter} s (Retry-After), then read on; reading in fewer parallel streams does not make it faster.`,
        {},
        { 'Retry-After': String(d.retryAfter) },
      );
    }
    try {
      await holdBack(c, d.waitMs ?? 0);
    } catch (err) {
      await c.res.body?.cancel();
      throw err;
    }
  };
}

/** The body's length as the handler set it (a file or a range of it); nothing for HEAD, 304 or an error. */
function bytesToSend(c: Context): number {
  if (c.req.method === 'HEAD' || (c.res.status !== 200 && c.res.status !== 206)) return 0;
  return Number(c.res.headers.get('content-length')) || 0;
}

const size = (bytes: number) => (bytes >= 2 ** 20 ? `${Math.round((bytes / 2 ** 20) * 100) / 100} MiB` : `${Math.round((bytes / 1024) * 100) / 100} KiB`);
