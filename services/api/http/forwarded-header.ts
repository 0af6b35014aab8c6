/**
 * The RFC 7239 `Forwarded` header: `for=192.0.2.60;proto=https;host=data.example.org, for=10.0.0.2`, one element per
 * proxy, each a `;`-list of `name=value` with the value a token or a quoted-string.
 *
 * Not the `forwarded-parse` package, though it parses the grammar well: it rejects an unquoted `host=h:8443`, which
 * RFC 7239 §4 indeed requires to be quoted but which proxies write (nginx's `host=$http_host`, a common recipe).
 * Rejecting it would send clients to the API's internal address, the very fault this header is read to avoid, so
 * an unquoted value here may also hold `:`, `[` and `]`; everything else about the grammar is enforced.
 */

/**
 * TRUST_PROXY: how many proxies in front are trusted (`true` is one). Each appends to `X-Forwarded-For` (and a
 * `Forwarded` element), so of a list only the entry the nearest untrusted hop wrote may be believed: counted from the
 * right, entries further left were written by the client and can be anything.
 */
export type TrustProxy = boolean | number;

/** @example trustedHops(true) // → 1 */
export function trustedHops(trust: TrustProxy | undefined): number {
  return trust === true ? 1 : typeof trust === 'number' && trust > 0 ? Math.floor(trust) : 0;
}

/**
 * The entry of a proxies' list (nearest the client first) that the trusted hops vouch for: the right-most untrusted
 * one, or the first when the list is shorter than the hops.
 * @example trustedEntry(['6.6.6.6', '198.51.100.7'], 1) // → '198.51.100.7' (the client wrote 6.6.6.6 itself)
 */
export function trustedEntry<T>(list: readonly T[], hops: number): T | undefined {
  return hops === 0 ? undefined : list[Math.max(0, list.length - hops)];
}

/** RFC 7230 tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A token, or what an unquoted host/for with a port or an IPv6 literal looks like. */
const BARE_VALUE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z:[\]]+$/;

/**
 * The elements of a `Forwarded` header, nearest the client first, parameter names lower-cased and quoted values
 * unescaped; undefined when the header is not well-formed (then none of it should be trusted).
 *
 * @example
 * parseForwarded('for=192.0.2.60;proto=https;host="data.example.org:8443", for=10.0.0.2')
 * // → [{ for: '192.0.2.60', proto: 'https', host: 'data.example.org:8443' }, { for: '10.0.0.2' }]
 */
export function parseForwarded(header: string): Record<string, string>[] | undefined {
  const elements: Record<string, string>[] = [];
  // Without a prototype, a parameter named `__proto__` is a parameter like any other (and refused when repeated).
  let element: Record<string, string> = Object.create(null) as Record<string, string>;
  let i = 0;
  const skipSpace = () => {
    while (header[i] === ' ' || header[i] === '\t') i++;
  };
  for (;;) {
    skipSpace();
    const eq = header.indexOf('=', i);
    if (eq < 0) return undefined;
    const name = header.slice(i, eq).toLowerCase();
    // RFC 7239 §4: each parameter at most once per element.
    if (!TOKEN.test(name) || Object.hasOwn(element, name)) return undefined;
    i = eq + 1;
    let value: string;
    if (header[i] === '"') {
      const quoted = readQuoted(header, i);
      if (!quoted) return undefined;
      [value, i] = quoted;
    } else {
      const end = header.slice(i).search(/[;,\s]|$/) + i;
      value = header.slice(i, end);
      if (!BARE_VALUE.test(value)) return undefined;
      i = end;
    }
    element[name] = value;
    skipSpace();
    if (i >= header.length) break;
    const sep = header[i++];
    if (sep === ',') {
      elements.push(element);
      element = Object.create(null) as Record<string, string>;
    } else if (sep !== ';') {
      return undefined;
    }
  }
  elements.push(element);
  return elements;
}

/** A quoted-string starting at `start` (the opening quote): its unescaped text and the index after it. */
function readQuoted(header: string, start: number): [string, number] | undefined {
  let out = '';
  for (let i = start + 1; i < header.length; i++) {
    const ch = header[i]!;
    if (ch === '"') return [out, i + 1];
    if (ch === '\\') {
      i++;
      if (i >= header.length) return undefined;
      out += header[i];
    } else if (ch < ' ' && ch !== '\t') {
      return undefined;
    } else {
      out += ch;
    }
  }
  return undefined;
}
