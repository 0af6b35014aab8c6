/**
 * `X-Request-Id`: the id that ties a response, its error body and its access-log line together. A proxy in front
 * (HAProxy's `unique-id-header`, nginx's `$request_id`) may send one, which is kept so its logs and ours match; a
 * missing or unfit one (too long, or with characters a log line or header should not carry) is replaced by a
 * fresh UUID rather than refused: the request itself is fine. Always echoed in the response. Only a trusted proxy's
 * id is kept (TRUST_PROXY): from a client, an id is whatever it wants the log to say, e.g. another request's id
 * (issue 47 item 10), so without a trusted proxy every request gets a fresh one.
 */
import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';

declare module 'hono' {
  interface ContextVariableMap {
    requestId: string;
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Letters, digits and the punctuation of UUIDs, ULIDs, base64 and proxies' ids; at most 128 characters. */
const FIT = /^[A-Za-z0-9._:+/=@-]{1,128}$/;

/**
 * @example acceptedRequestId('3f0c9a1e-…') // kept as sent
 * @example acceptedRequestId('a b<script>') // undefined: a fresh id is made
 */
export function acceptedRequestId(sent: string | undefined): string | undefined {
  return sent !== undefined && FIT.test(sent) ? sent : undefined;
}

export function requestId(opts: { readonly trustProxy?: boolean | number; readonly make?: () => string } = {}): MiddlewareHandler {
  const make = opts.make ?? randomUUID;
  const trusted = opts.trustProxy === true || (typeof opts.trustProxy === 'number' && opts.trustProxy > 0);
  return async function tagRequest(c, next) {
    const id = (trusted ? acceptedRequestId(c.req.header(REQUEST_ID_HEADER)) : undefined) ?? make();
    c.set('requestId', id);
    await next();
    c.header(REQUEST_ID_HEADER, id);
  };
}

/** The request's id (set by `requestId`), for error bodies and log lines; undefined outside that middleware. */
export function requestIdOf(c: Context): string | undefined {
  return c.get('requestId') as string | undefined;
}
