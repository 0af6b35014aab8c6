/**
 * The public base URL of a request (links.ts's `baseUrl`: PUBLIC_BASE_URL, else the forwarded headers when
 * TRUST_PROXY says so, else the request's own origin), computed once per request for every handler and writer that
 * builds a link: `c.get('base')`.
 */
import type { MiddlewareHandler } from 'hono';
import { baseUrl, type BaseUrlOptions } from './links.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** `https://host[:port]`, no trailing slash: where this request's links point. */
    base: string;
  }
}

export function requestBase(opts: BaseUrlOptions): MiddlewareHandler {
  return async function setBase(c, next) {
    c.set('base', baseUrl(c.req.url, c.req.raw.headers, opts));
    await next();
  };
}
