/**
 * 414 for request targets (path and query) longer than the limit. Node refuses request heads over its
 * `maxHeaderSize` with a bare 431 before the app sees them, so the server is started with a larger head limit
 * (NODE_SERVER_OPTIONS) and long URLs get our error body and advice instead.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';

/** For `serve({ serverOptions })`: request heads up to 64 KiB reach the app, which answers 414 above its limit. */
export const NODE_SERVER_OPTIONS = { maxHeaderSize: 64 * 1024 } as const;

export interface UrlLengthOptions {
  /** Longest request target in bytes. */
  readonly maxBytes: number;
}

export function urlLength(opts: UrlLengthOptions): MiddlewareHandler {
  if (!Number.isInteger(opts.maxBytes) || opts.maxBytes < 1) throw new Error(`maxBytes must be a positive integer, got ${opts.maxBytes}`);
  return async function limitUrlLength(c, next) {
    // Node's req.url is the request target exactly as sent; app.request() only has the parsed URL.
    const incoming = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
    const target = incoming ?? c.req.url.slice(new URL(c.req.url).origin.length);
    const bytes = Buffer.byteLength(target, 'utf8');
    if (bytes > opts.maxBytes) {
      throw new ApiError(
        'uri_too_long',
        `The URL is ${bytes} bytes long; the limit is ${opts.maxBytes}. Shorten $filter (e.g. split a long 'in (…)' list over several requests) or $select fewer fields.`,
      );
    }
    return next();
  };
}
