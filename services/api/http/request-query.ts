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

/** A query string (from the URL or a POSTed body), its errors as the API answers them; `parse`: a route's own reading (`/$count`'s). */
export function parseQueryString(raw: string, parse: (raw: string) => Query = parseQuery): Query {
  try {
    return parse(raw);
  } catch (err) {
    if (err instanceof ODataError) throw ApiError.from(err);
    throw err;
  }
}

/**
 * One option taken out of a raw query string before the OData parser reads the rest: a route's own `$format`
 * (exports, citations), whose values are not the pages' formats. `names` match case-insensitively; two of them
 * given is a duplicate.
 */
export function takeOption(queryString: string, names: readonly string[]): { query: string; value: string | undefined } {
  const wanted = names.map((n) => n.toLowerCase());
  let value: string | undefined;
  const rest: string[] = [];
  for (const part of queryString.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = safeDecode(eq < 0 ? part : part.slice(0, eq));
    if (!wanted.includes(key.toLowerCase())) {
      rest.push(part);
      continue;
    }
    if (value !== undefined) throw new ApiError('duplicate_option', `${names.join(' or ')} is given more than once: give it once.`, { parameter: names[0] });
    value = safeDecode(eq < 0 ? '' : part.slice(eq + 1));
  }
  return { query: rest.join('&'), value };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
