/**
 * The origin (`https://host[:port]`) clients reached the API at, from the request and, when the proxy in front is
 * trusted, the headers it adds. Every absolute URL the API hands out starts with it, so a wrong port here sends
 * clients following `@odata.nextLink` to a port nothing listens on.
 *
 * Precedence (TRUST_PROXY=1 or more hops): an RFC 7239 `Forwarded` header whose trusted element names `host` or
 * `proto` is used alone, and the `X-Forwarded-*` headers are then ignored: the standard header wins, and mixing two
 * proxies' views of one request could pair one proxy's host with another's scheme. Otherwise `X-Forwarded-Proto`,
 * `X-Forwarded-Host` and `X-Forwarded-Port`. Each header may list several proxies; the entry believed is the one
 * the trusted hops vouch for, counted from the right (forwarded-header.ts `trustedEntry`): entries further left
 * are the client's own words. PUBLIC_BASE_URL, when set, overrides all of this (http/links.ts), and is what a
 * deployment whose answers are cached publicly sets: no header can then change a link. With a forwarded host the port is `X-Forwarded-Port`, else the host's own, else
 * the scheme's default: the request's (internal) port is never kept. A header that cannot be read (a host with a
 * path, spaces, userinfo; a scheme other than http/https; a port outside 1-65535; a `Forwarded` value that is
 * not RFC 7239) makes the whole forwarded view untrusted, and the request's own origin is used.
 */
import { parseForwarded, trustedEntry, trustedHops, type TrustProxy } from './forwarded-header.js';

/** What the proxy says the client used; undefined parts were not forwarded. */
interface ForwardedView {
  readonly proto?: string | undefined;
  readonly host?: string | undefined;
  readonly port?: string | undefined;
}

/** A DNS name (underscores allowed: container service names), IPv4, or a bracketed IPv6 literal; then an optional port. */
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?)(?::(\d{1,5}))?$/;
const PROTO = /^https?$/i;

/**
 * Whether a Host (or forwarded host) value is a host name, an IPv4 address or a bracketed IPv6 literal, with an
 * optional port in 1-65535: what a link may be built on.
 * @example isHostName('api.example.org:8443') // true
 * @example isHostName('a)b') // false
 */
export function isHostName(value: string): boolean {
  const m = value.length <= 260 ? HOST.exec(value) : null;
  return m !== null && (m[2] === undefined || validPort(m[2]));
}
const PORT = /^\d{1,5}$/;

/**
 * The public origin of a request.
 *
 * @example
 * publicOrigin('http://10.0.0.5:52089/v1/odata/v4/Records', new Headers({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' }), true)
 * // → 'https://api.example.org'
 */
export function publicOrigin(requestUrl: string, headers: Headers, trustProxy: TrustProxy): string {
  const request = new URL(requestUrl);
  const hops = trustedHops(trustProxy);
  if (hops === 0) return request.origin;
  const view = forwardedView(headers, hops);
  return (view && originOf(request, view)) ?? request.origin;
}

/** The proxy's view, `{}` when it forwarded nothing, undefined when a header is malformed. */
export function forwardedView(headers: Headers, hops = 1): ForwardedView | undefined {
  const standard = headers.get('forwarded');
  if (standard !== null && standard.trim() !== '') {
    const elements = parseForwarded(standard);
    if (!elements) return undefined;
    const first = trustedEntry(elements, hops);
    // `Forwarded: for=…` alone (a proxy that records only the client address) says nothing about the URL.
    if (first && (first['host'] !== undefined || first['proto'] !== undefined)) return { proto: first['proto'], host: first['host'] };
  }
  return { proto: entry(headers, 'x-forwarded-proto', hops), host: entry(headers, 'x-forwarded-host', hops), port: entry(headers, 'x-forwarded-port', hops) };
}

/** The entry of a comma-separated header the trusted hops vouch for (forwarded-header.ts trustedEntry). */
function entry(headers: Headers, name: string, hops: number): string | undefined {
  const value = headers.get(name);
  if (value === null) return undefined;
  const chosen = trustedEntry(value.split(',').map((s) => s.trim()), hops);
  return chosen === '' ? undefined : chosen;
}

/** The origin a view describes, relative to the request; undefined when any part of it is malformed. */
function originOf(request: URL, view: ForwardedView): string | undefined {
  if (view.proto !== undefined && !PROTO.test(view.proto)) return undefined;
  if (view.port !== undefined && !validPort(view.port)) return undefined;
  const scheme = view.proto?.toLowerCase() ?? request.protocol.slice(0, -1);
  let hostname = request.hostname;
  // Without a forwarded host the Host header is the client's (the proxy passed it on), port included.
  let port = view.port ?? request.port;
  if (view.host !== undefined) {
    if (!isHostName(view.host)) return undefined;
    const m = HOST.exec(view.host)!;
    hostname = m[1]!;
    port = view.port ?? m[2] ?? '';
  }
  try {
    const url = new URL(`${scheme}://${hostname}`);
    // Setting the scheme's default port leaves the origin without one (`https://h:443` → `https://h`).
    url.port = port;
    return url.origin;
  } catch {
    return undefined;
  }
}

function validPort(port: string): boolean {
  return PORT.test(port) && Number(port) >= 1 && Number(port) <= 65535;
}
