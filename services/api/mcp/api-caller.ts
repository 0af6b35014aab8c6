/**
 * A tool's reads are the API's own HTTP requests, answered in-process by the same app: each passes through the same
 * keys, CORS rule, budgets, query gate, lease and errors as the request a client would send itself, so a tool call
 * costs what its query costs and can do nothing the caller's key could not. The caller's identity goes with it: its
 * `x-api-key`, `Origin`, the proxy headers and the address its connection came from.
 *
 * One caller serves one tool call and pins it to one publication: the first answer names the publication it was
 * read from (`Tributary-Publication`), and every later request of the call carries `publication=<id>`, so a page,
 * its total and its citation describe the same rows whatever is published meanwhile.
 */
import type { Context } from 'hono';
import { encodeValue } from '../http/links.js';
import { PIN_PARAM, PUBLICATION_HEADER } from '../http/paths.js';

/** The request headers that say who is asking and where the answer's links must point. */
const FORWARDED = ['x-api-key', 'origin', 'sec-fetch-site', 'host', 'forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'user-agent'] as const;

/** What the API answered with a status other than 2xx: its own message, given to the assistant as the tool's error. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export type Params = Readonly<Record<string, string | undefined>>;

export interface ApiCaller {
  /** GET `path?params` (pinned once a publication is known); rejects with ApiRefusal when the API refuses. */
  get(path: string, params: Params, accept?: string): Promise<ApiReply>;
  /** GET and parse the JSON body. */
  json<T>(path: string, params: Params): Promise<T>;
  /** The public, pinned URL of `path?params`: what the caller would send to get the same answer. */
  url(path: string, params: Params): string;
  /** The public origin the answers' URLs name (PUBLIC_BASE_URL, or the proxy's headers, or the request's). */
  readonly base: string;
  /** The publication this call reads, once its first answer named it. */
  readonly publication: string | undefined;
}

/** The app's fetch with its bindings: how a request reaches the same middleware and routes as one from a socket. */
export type AppFetch = (request: Request, env: unknown) => Response | Promise<Response>;

/** `$filter=…&$top=…`: values encoded as the API's own links encode them, unset values left out. */
export function queryString(params: Params): string {
  return Object.entries(params)
    .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')
    .map(([k, v]) => `${k}=${encodeValue(v)}`)
    .join('&');
}

/** A caller for one tool call of the MCP request `c`; `base` is the public origin the answers' URLs name. */
export function apiCaller(c: Context, fetch: AppFetch, base: string): ApiCaller {
  const headers = new Headers();
  for (const name of FORWARDED) {
    const value = c.req.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  // The client address the limits count (middleware/api-key.ts reads it from the socket): the MCP request's own.
  const remoteAddress = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
  const env = { incoming: { socket: { remoteAddress } } };
  const origin = new URL(c.req.url).origin;
  let publication: string | undefined;
  const target = (path: string, params: Params) => {
    // A next link an assistant hands back carries its publication already: it is kept until an answer names one.
    const query = queryString({ ...params, [PIN_PARAM]: publication ?? params[PIN_PARAM] });
    return query ? `${path}?${query}` : path;
  };

  const get = async (path: string, params: Params, accept = 'application/json'): Promise<ApiReply> => {
    const h = new Headers(headers);
    h.set('accept', accept);
    const res = await fetch(new Request(`${origin}${target(path, params)}`, { headers: h, signal: c.req.raw.signal }), env);
    const text = await res.text();
    publication ??= res.headers.get(PUBLICATION_HEADER) ?? undefined;
    if (res.status < 200 || res.status > 299) throw new ApiRefusal(res.status, errorMessage(res.status, text));
    return { status: res.status, headers: res.headers, text };
  };
  return {
    get,
    json: async <T>(path: string, params: Params) => JSON.parse((await get(path, params)).text) as T,
    url: (path, params) => `${base}${target(path, params)}`,
    base,
    get publication() {
      return publication;
    },
  };
}

/** The API's error body's `message` (errors.ts), or the status when a body is not the API's. */
function errorMessage(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: fall through
  }
  return `The API answered ${status}.`;
}
