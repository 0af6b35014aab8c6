/**
 * Browsers: origins on `CORS_ORIGINS` may call the API, and (the public API's rule for browser clients) may do
 * so without a key. Their responses name the origin, vary on it, and expose `Link` so browser code can page.
 * Other origins get no CORS headers at all, so the browser withholds the response.
 *
 * The API's own pages (`/explore`) call it from its own origin, and browsers send no `Origin` on a same-origin
 * GET. They do send `Sec-Fetch-Site: same-origin` (a header page scripts cannot set), and the `Host` they
 * addressed: such a request counts as coming from the listed origin with that host, so listing the API's own
 * public origin in `CORS_ORIGINS` lets its pages call it without a key. Like `Origin`, both headers are only
 * as trustworthy as the browser sending them: the rule is the public API's, not an authentication.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { trustedEntry, trustedHops } from '../http/forwarded-header.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The request's Origin, when it is on the allow-list. */
    allowedOrigin: string | undefined;
  }
}

export interface CorsOptions {
  /** Exact origins, e.g. `https://app.example.org`. */
  readonly origins: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds. */
  readonly maxAge?: number;
  /** Read the host a same-origin request addressed from `X-Forwarded-Host` (behind a trusted load balancer). */
  readonly trustProxy?: boolean | number;
}

const ORIGIN = /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

export function cors(opts: CorsOptions): MiddlewareHandler {
  for (const o of opts.origins) if (!ORIGIN.test(o)) throw new Error(`not an origin: ${JSON.stringify(o)} (expected e.g. https://app.example.org)`);
  // Browsers send the origin in lower case; compare the same way.
  const allowed = new Set(opts.origins.map((o) => o.toLowerCase()));
  const maxAge = String(opts.maxAge ?? 86_400);
  const byHost = new Map(opts.origins.map((o) => [new URL(o).host.toLowerCase(), o]));

  return async function corsHeaders(c, next) {
    const origin = c.req.header('origin');
    const ok = origin !== undefined && allowed.has(origin.toLowerCase()) ? origin : undefined;
    c.set('allowedOrigin', ok ?? (origin === undefined ? sameOrigin(c, byHost, opts.trustProxy ?? false) : undefined));
    if (c.req.method === 'OPTIONS' && ok && c.req.header('access-control-request-method')) {
      // Preflight: answered here, before the key check (browsers never send credentials on it). GET, and POST for
      // the queries too long for a URL (OData's $query, OGC items with CQL2-JSON), which read and change nothing;
      // HEAD is a simple method that needs no preflight.
      return c.body(null, 204, {
        ...corsResponseHeaders(ok),
        'Access-Control-Allow-Methods': 'GET, POST',
        // mcp-protocol-version: what an MCP client sends with every message after the first (/mcp).
        'Access-Control-Allow-Headers': 'x-api-key, accept, range, if-range, if-none-match, content-type, mcp-protocol-version',
        'Access-Control-Max-Age': maxAge,
        Vary: 'Origin',
      });
    }
    await next();
    // Vary even when the origin is not allowed: a shared cache must not hand one origin's answer to another.
    if (allowed.size) c.header('Vary', 'Origin', { append: true });
    if (ok) for (const [name, value] of Object.entries(corsResponseHeaders(ok))) c.header(name, value);
  };
}

/** The listed origin a browser's same-origin request came from, if any (see the module comment). */
function sameOrigin(c: Context, byHost: ReadonlyMap<string, string>, trustProxy: boolean | number): string | undefined {
  if (c.req.header('sec-fetch-site') !== 'same-origin') return undefined;
  // The entry the trusted hops wrote (right-most), as links read it: one further left is the client's own word.
  const forwarded = trustedEntry((c.req.header('x-forwarded-host') ?? '').split(',').map((h) => h.trim()).filter(Boolean), trustedHops(trustProxy));
  const host = forwarded ?? c.req.header('host');
  return host ? byHost.get(host.toLowerCase()) : undefined;
}

function corsResponseHeaders(origin: string): Record<string, string> {
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': 'Link, ETag, Tributary-Publication, Server-Timing, X-Total-Count, Content-Disposition, Content-Range, Accept-Ranges, Content-Length', 'Timing-Allow-Origin': origin };
}

/** For other middleware: the allowed origin of this request, if any. */
export const allowedOrigin = (c: Context): string | undefined => c.get('allowedOrigin');
