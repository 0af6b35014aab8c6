/**
 * Headers every response carries. The data is public and changes only when ingest publishes, so successful
 * GETs may be cached (shortly, by anyone); errors and health answers never are: a 429 or a 503 cached by a
 * proxy would refuse clients that are within their limits. Node and Hono send no `Server` or `X-Powered-By`
 * banner, and nothing here adds one.
 */
import type { MiddlewareHandler } from 'hono';

export interface SecurityHeadersOptions {
  /** `max-age` of successful GET responses, in seconds (a route's row may say `no-store`: http/mount.ts). */
  readonly maxAge?: number;
}

export function securityHeaders(opts: SecurityHeadersOptions = {}): MiddlewareHandler {
  const maxAge = opts.maxAge ?? 60;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new Error(`maxAge must be a whole number of seconds, got ${maxAge}`);
  const cacheable = `public, max-age=${maxAge}`;
  return async function setSecurityHeaders(c, next) {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    // A 304 (If-None-Match on the publication's ETag) carries what its 200 would: RFC 9110 §15.4.5.
    const ok = ((c.res.status >= 200 && c.res.status < 300) || c.res.status === 304) && (c.req.method === 'GET' || c.req.method === 'HEAD');
    if (!ok) c.header('Cache-Control', 'no-store');
    else if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', cacheable);
    // A cached page must not answer a request with another key (or none): caches key on it.
    if (ok) c.header('Vary', 'Accept, x-api-key', { append: true });
    c.header('Server', undefined);
    c.header('X-Powered-By', undefined);
  };
}
