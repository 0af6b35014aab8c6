/**
 * Strict decoding of a raw query string into name/value pairs.
 *
 * Input is the raw request-target after the first `?`, i.e. the part of
 * Node's `IncomingMessage.url` (with @hono/node-server: `c.env.incoming.url`)
 * after `?`. Not `URLSearchParams`: it turns bad escapes into U+FFFD or keeps
 * them literally, so `%zz` would reach the filter parser as text. Not
 * `new URL(req.url).search` either: WHATWG URL parsing percent-encodes raw
 * `"`, `<`, `>`, space and `'` in queries, so a request we must reject would
 * come out valid. (Node's HTTP server itself already answers 400 to a raw
 * space, control character or non-ASCII byte; Hono's `c.req.url` may have
 * been re-serialised through WHATWG URL. Passing either still decodes safely;
 * only the strictness differs.)
 */
import { ODataError } from './odata-error.js';

/** One `name=value` pair, decoded. */
export interface QueryParam {
  readonly name: string;
  readonly value: string;
  /** Position of the pair in the raw query string. */
  readonly offset: number;
}

// RFC 3986 `query` characters: unreserved, sub-delims, ":", "@", "/", "?", plus "%" for
// escapes. "[" and "]" are gen-delims, but browsers and PHP-style clients send them raw
// in ignored parameters (`a[]=1`), so rejecting them would break harmless requests.
const ALLOWED_RAW = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%[\]]$/;
const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * Split a raw query string on `&` and `=` and decode each part (`+` is a space,
 * percent-escapes are UTF-8). Empty segments (`a=1&&b=2`) are skipped.
 *
 * @example
 * decodeQueryString('%24top=5&$filter=Name+eq+%27a%27')
 * // → [{ name: '$top', value: '5', offset: 0 }, { name: '$filter', value: "Name eq 'a'", offset: 9 }]
 */
export function decodeQueryString(raw: string): QueryParam[] {
  checkRawCharacters(raw);
  const params: QueryParam[] = [];
  let start = 0;
  while (start <= raw.length) {
    const amp = raw.indexOf('&', start);
    const end = amp === -1 ? raw.length : amp;
    if (end > start) {
      // Search only this segment: a raw.indexOf('=', start) would rescan to the end each time.
      const eq = raw.slice(start, end).indexOf('=');
      const split = eq === -1 ? end : start + eq;
      const name = decodePart(raw, start, split);
      const value = split === end ? '' : decodePart(raw, split + 1, end);
      params.push({ name, value, offset: start });
    }
    start = end + 1;
  }
  return params;
}

// The same set over a whole string: one regex pass for the common case, the loop below only to name a bad character.
const ALL_ALLOWED = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%[\]]*$/;

function checkRawCharacters(raw: string): void {
  if (ALL_ALLOWED.test(raw)) return;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] ?? '';
    if (!ALLOWED_RAW.test(ch)) {
      const shown = ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) > 0x7e ? `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : `'${ch}'`;
      throw undecodable(`The query string contains ${shown} at position ${i}, which must be percent-encoded (e.g. space as %20, '"' as %22). Encode each parameter value with encodeURIComponent.`, i);
    }
  }
}

/**
 * A long filter (a polygon's thousands of escapes, POSTed in a body) decodes by the platform's decoder; only when it
 * refuses does the loop below find the bad escape or byte to name.
 */
function decodePart(raw: string, from: number, to: number): string {
  try {
    return decodeURIComponent(raw.slice(from, to).replaceAll('+', ' '));
  } catch {
    return decodeSlowly(raw, from, to);
  }
}

function decodeSlowly(raw: string, from: number, to: number): string {
  const bytes: number[] = [];
  const origins: number[] = [];
  for (let i = from; i < to; i++) {
    const ch = raw[i] ?? '';
    if (ch === '%') {
      const hex = raw.slice(i + 1, i + 3);
      if (i + 3 > to || !HEX.test(hex)) {
        throw undecodable(`Bad percent-escape '${raw.slice(i, Math.min(i + 3, to))}' at position ${i} of the query string: '%' must be followed by two hex digits; write a literal '%' as %25.`, i);
      }
      bytes.push(parseInt(hex, 16));
      origins.push(i);
      i += 2;
    } else {
      bytes.push(ch === '+' ? 0x20 : ch.charCodeAt(0));
      origins.push(i);
    }
  }
  return decodeUtf8(bytes, origins);
}

// A hand-written validator rather than TextDecoder({fatal}) so the error can point at the
// first bad byte's escape in the raw string.
function decodeUtf8(bytes: readonly number[], origins: readonly number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] ?? 0;
    const [length, min] = b < 0x80 ? [1, 0] : b >= 0xc2 && b <= 0xdf ? [2, 0x80] : b >= 0xe0 && b <= 0xef ? [3, 0x800] : b >= 0xf0 && b <= 0xf4 ? [4, 0x10000] : [0, 0];
    let code = length === 1 ? b : length === 2 ? b & 0x1f : length === 3 ? b & 0x0f : b & 0x07;
    let ok = length > 0 && i + length <= bytes.length;
    for (let k = 1; ok && k < length; k++) {
      const c = bytes[i + k] ?? 0;
      ok = (c & 0xc0) === 0x80;
      code = (code << 6) | (c & 0x3f);
    }
    if (!ok || code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      const at = origins[i] ?? 0;
      throw undecodable(`Invalid UTF-8 in the percent-escapes starting at position ${at} of the query string: encode text as UTF-8 before percent-encoding (encodeURIComponent does).`, at);
    }
    out += String.fromCodePoint(code);
    i += length;
  }
  return out;
}

function undecodable(message: string, offset: number): ODataError {
  return new ODataError('undecodable_query', message, { offset });
}
