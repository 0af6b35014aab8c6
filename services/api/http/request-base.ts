/**
 * The public base URL of a request (links.ts's `baseUrl`: PUBLIC_BASE_URL, else the forwarded headers when
 * TRUST_PROXY says so, else the request's own origin), computed once per request for every handler and writer that
 * builds a link: `c.get('base')`.
 *
 * A Host header that is not a host name is refused here, before any link is built (issue 56 item 5): Node's parser
 * and @hono/node-server refuse a Host with spaces, `@` or `/`, but let RFC 3986's other sub-delimiters through
 * (`a)b`, `a"b`), which the request's own origin then reflected into every link. RFC 9112 §3.2 answers a request
 * whose Host is invalid with 400; we do so whatever PUBLIC_BASE_URL says, as the request is malformed either way.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { baseUrl, type BaseUrlOptions } from './links.js';
import { isHostName } from './public-origin.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** `https://host[:port]`, no trailing slash: where this request's links point. */
    base: string;
  }
}

export function requestBase(opts: BaseUrlOptions): MiddlewareHandler {
  return async function setBase(c, next) {
    const host = c.req.header('host');
    if (host !== undefined && host !== '' && !isHostName(host)) {
      throw new ApiError('invalid_host', `The Host header ${JSON.stringify(host.slice(0, 100))} is not a host name: send the name (or IPv4 address, or bracketed IPv6 address) of this server, with its port if it is not the scheme's default, as every HTTP client does.`);
    }
    c.set('base', baseUrl(c.req.url, c.req.raw.headers, opts));
    await next();
  };
}
