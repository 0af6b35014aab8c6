/** The query string as the client sent it, and the OData query it holds. */
import type { Context } from 'hono';
import { ApiError } from '../errors.js';
import { ODataError, parseQuery } from '../odata/index.js';
import type { Query } from '../odata/ast.js';

/** The raw query string as the client sent it: Node gives the undecoded request target. */
export function rawQueryString(c: Context): string {
  const target: string = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url ?? c.req.url;
  const q = target.indexOf('?');
  return q < 0 ? '' : target.slice(q + 1);
}

export function parseRequestQuery(c: Context): Query {
  return parseQueryString(rawQueryString(c));
}

/** A query string (from the URL or a POSTed body), its errors as the API answers them. */
export function parseQueryString(raw: string): Query {
  try {
    return parseQuery(raw);
  } catch (err) {
    if (err instanceof ODataError) throw ApiError.from(err);
    throw err;
  }
}
