/**
 * `x-api-key`: every non-browser request carries one. Missing → 401, unknown or revoked → 403, each saying how
 * to get or send a key. Browsers from an allowed origin may omit it (see cors.ts). The middleware also names
 * the client the limits count against:
 *
 * - keys on: a valid key's id; a keyless browser call is `browser`, counted by its address (the `Origin` and
 *   `Sec-Fetch-Site` it names are the sender's word, so one listed origin is not one client);
 * - no keys at all (open): the address, whatever `x-api-key` says, since an unchecked key is any string a
 *   client makes up, and one per request would be a fresh bucket each time.
 *
 * Keys themselves are never logged: only their id, a prefix of their hash. Addresses count by their IPv6 /64
 * (client-network.ts).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import type { KeyStore } from '../keys/key-store.js';
import { allowedOrigin } from './cors.js';
import { budgetAddress } from './client-network.js';
import { KEY_QUERY_PARAMS } from './log-target.js';
import { trustedEntry, trustedHops, type TrustProxy } from '../http/forwarded-header.js';

export interface ApiClient {
  /** `browser`: no key, from an allowed origin, while keys are required (its own budget: middleware/access.ts). */
  readonly kind: 'key' | 'browser' | 'address';
  /** Key id (hash prefix), `browser:<address>` or address: what rate limits count against. */
  readonly id: string;
}

declare module 'hono' {
  interface ContextVariableMap {
    apiClient: ApiClient | undefined;
  }
}

export interface ApiKeyOptions {
  /** Undefined: no keys anywhere (open, e.g. a fresh checkout); clients are then told apart by address. */
  readonly store: KeyStore | undefined;
  /** TRUST_PROXY: the hops whose X-Forwarded-For entries are believed; the client is the right-most untrusted one. */
  readonly trustProxy?: boolean | number;
  readonly log?: (msg: string) => void;
}

const SEND = "send it in the x-api-key request header (curl -H 'x-api-key: YOUR_KEY' …)";
const GET = 'Keys are issued one per user by the operators of this API (make key-issue OWNER=you@example.org); the documentation is at /.';

export function apiKey(opts: ApiKeyOptions): MiddlewareHandler {
  const log = opts.log ?? (() => {});
  return async function requireApiKey(c, next) {
    const misplaced = keyInQuery(c.req.url);
    if (misplaced !== undefined) {
      // Refused even where keys are off: a URL is logged, cached, kept in browser history and sent as Referer.
      throw new ApiError('invalid_parameter', `${misplaced}= in the URL looks like an API key, and a key in a URL leaks (logs, caches, history, Referer): remove it and ${SEND}. If it was a real key, ask for a new one.`, { parameter: misplaced });
    }
    const key = c.req.header('x-api-key');
    if (!opts.store?.required) {
      c.set('apiClient', { kind: 'address', id: budgetAddress(clientAddress(c, opts.trustProxy)) });
      return next();
    }
    if (!key) {
      if (!allowedOrigin(c)) throw new ApiError('missing_api_key', `An API key is required: ${SEND}. ${GET}`);
      c.set('apiClient', { kind: 'browser', id: `browser:${budgetAddress(clientAddress(c, opts.trustProxy))}` });
      return next();
    }
    const check = opts.store.verify(key);
    if (check.status !== 'valid') {
      log(`rejected ${check.status} API key ${check.id} from ${clientAddress(c, opts.trustProxy)}`);
      const why = check.status === 'revoked' ? 'This API key was revoked' : 'This API key is not valid';
      throw new ApiError('invalid_api_key', `${why}. ${GET} Then ${SEND}.`);
    }
    c.set('apiClient', { kind: 'key', id: check.id });
    return next();
  };
}

/** The name of a query parameter that holds what looks like a key (log-target.ts KEY_QUERY_PARAMS), if any. */
export function keyInQuery(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  for (const part of url.slice(q + 1).split('&')) {
    const name = part.split('=')[0]!;
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      // A malformed escape is the query parser's 400; this name is then no key's.
    }
    if (KEY_QUERY_PARAMS.includes(decoded.toLowerCase())) return decoded;
  }
  return undefined;
}

/** The client this request counts against (set by apiKey; the address when that middleware is not in use). */
export function apiClient(c: Context, trustProxy: TrustProxy = false): ApiClient {
  return c.get('apiClient') ?? { kind: 'address', id: budgetAddress(clientAddress(c, trustProxy)) };
}

/**
 * The address a request counts against. Behind trusted proxies (TRUST_PROXY hops) it is the right-most untrusted
 * `X-Forwarded-For` entry: the left-most is whatever the client wrote, and a new one per request made a new client
 * per request (issue 47 item 5).
 */
export function clientAddress(c: Context, trustProxy: TrustProxy = false): string {
  const hops = trustedHops(trustProxy);
  if (hops > 0) {
    const chain = (c.req.header('x-forwarded-for') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
    const forwarded = trustedEntry(chain, hops);
    if (forwarded) return forwarded;
  }
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}

/**
 * A path only a key may reach (whole-result exports, dataset files): a keyless browser call gets 401 saying how
 * to get a key. Runs after `apiKey`, which named the client.
 */
export function keyOnly(what: string): MiddlewareHandler {
  return async function requireKeyForBulk(c, next) {
    if (c.get('apiClient')?.kind === 'browser') {
      throw new ApiError('missing_api_key', `${what} need an API key (calls from a browser without one may page through results, at a smaller rate): ${SEND}. ${GET}`);
    }
    return next();
  };
}
