/** The public origin from proxy headers: every combination, several proxies, and hostile values. */
import { describe, expect, it } from 'vitest';
import { publicOrigin } from './public-origin.js';

/** The API's own listening address, as a request reaching it through a proxy carries it. */
const INTERNAL = 'http://127.0.0.1:52089/v1/odata/v4/Records?$top=1';

const origin = (headers: Record<string, string>, trust: boolean | number = true, url = INTERNAL) => publicOrigin(url, new Headers(headers), trust);

describe('publicOrigin with TRUST_PROXY=1: X-Forwarded-*', () => {
  it.each<[string, Record<string, string>, string]>([
    ['nothing forwarded: the request', {}, 'http://127.0.0.1:52089'],
    ["nginx's $host: no port, so the scheme's default (never the internal port)", { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org' }, 'https://api.example.org'],
    ['host alone keeps the request scheme and drops the internal port', { 'X-Forwarded-Host': 'api.example.org' }, 'http://api.example.org'],
    ['a port inside the host', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org:8443' }, 'https://api.example.org:8443'],
    ['X-Forwarded-Port', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org', 'X-Forwarded-Port': '8443' }, 'https://api.example.org:8443'],
    ['X-Forwarded-Port wins over a port inside the host', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org:9000', 'X-Forwarded-Port': '8443' }, 'https://api.example.org:8443'],
    ["the scheme's default port is omitted (443)", { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org', 'X-Forwarded-Port': '443' }, 'https://api.example.org'],
    ["the scheme's default port is omitted (80)", { 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'api.example.org:80' }, 'http://api.example.org'],
    ['upper-case scheme and host', { 'X-Forwarded-Proto': 'HTTPS', 'X-Forwarded-Host': 'API.Example.ORG' }, 'https://api.example.org'],
    ['an IPv6 host in brackets, with a port', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': '[2001:db8::1]:8443' }, 'https://[2001:db8::1]:8443'],
    ['an IPv4 host', { 'X-Forwarded-Host': '192.0.2.7' }, 'http://192.0.2.7'],
    ['a container service name with an underscore', { 'X-Forwarded-Host': 'tributary_api:3000' }, 'http://tributary_api:3000'],
    ['proto alone: the Host header the proxy passed on, its port kept', { 'X-Forwarded-Proto': 'https' }, 'https://127.0.0.1:52089'],
    ['proto and port without a host', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Port': '8443' }, 'https://127.0.0.1:8443'],
    ['empty headers count as absent', { 'X-Forwarded-Proto': '', 'X-Forwarded-Host': ' ' }, 'http://127.0.0.1:52089'],
  ])('%s', (_name, headers, expected) => {
    expect(origin(headers)).toBe(expected);
  });

  it('a proxy that passes the public Host on and says only https', () => {
    expect(origin({ 'X-Forwarded-Proto': 'https' }, true, 'http://api.example.org/v1/odata/v4/Records')).toBe('https://api.example.org');
  });
});

describe('publicOrigin with TRUST_PROXY=1: Forwarded (RFC 7239)', () => {
  it.each<[string, Record<string, string>, string]>([
    ['for, proto and host', { Forwarded: 'for=192.0.2.60;proto=https;host=data.example.org' }, 'https://data.example.org'],
    ['a port inside host', { Forwarded: 'proto=https;host=data.example.org:8443' }, 'https://data.example.org:8443'],
    ['quoted values', { Forwarded: 'for="192.0.2.60";proto="https";host="data.example.org"' }, 'https://data.example.org'],
    ['a quoted IPv6 host with a port', { Forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https;host="[2001:db8::1]:8443"' }, 'https://[2001:db8::1]:8443'],
    ['parameter names in any case, spaces around elements', { Forwarded: 'For=192.0.2.60;PROTO=https;Host=data.example.org ' }, 'https://data.example.org'],
    ['host alone: the request scheme, no internal port', { Forwarded: 'host=data.example.org' }, 'http://data.example.org'],
    ['proto alone: the request host', { Forwarded: 'proto=https' }, 'https://127.0.0.1:52089'],
    ['Forwarded wins over X-Forwarded-* (all of them)', { Forwarded: 'proto=https;host=data.example.org', 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'other.example.org', 'X-Forwarded-Port': '8080' }, 'https://data.example.org'],
    ['Forwarded with only for= leaves the URL to X-Forwarded-*', { Forwarded: 'for=192.0.2.60', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org' }, 'https://api.example.org'],
  ])('%s', (_name, headers, expected) => {
    expect(origin(headers)).toBe(expected);
  });

  it('joins repeated Forwarded header lines as one list, first element first', () => {
    const headers = new Headers();
    headers.append('Forwarded', 'proto=https;host=data.example.org');
    headers.append('Forwarded', 'proto=http;host=lb.internal');
    expect(publicOrigin(INTERNAL, headers, 2)).toBe('https://data.example.org');
  });
});

// Issue 47 item 5: the left-most entry is the client's own words; only the trusted hops' entries are believed.
describe('publicOrigin with several proxies: the entry of the TRUST_PROXY hops, counted from the right', () => {
  it.each<[string, Record<string, string>, number, string]>([
    ['two trusted hops: the entry the outer proxy wrote', { 'X-Forwarded-Proto': 'https, http', 'X-Forwarded-Host': 'api.example.org, lb.internal:8080', 'X-Forwarded-Port': '443,8080' }, 2, 'https://api.example.org'],
    ["one trusted hop: a client's forged host before it is not believed", { 'X-Forwarded-Host': 'evil.example, api.example.org' }, 1, 'http://api.example.org'],
    ['Forwarded, two trusted hops', { Forwarded: 'for=192.0.2.60;proto=https;host=data.example.org, for=10.0.0.2;proto=http;host=lb.internal:8080' }, 2, 'https://data.example.org'],
    ["Forwarded, one trusted hop: the client's element is not believed", { Forwarded: 'proto=https;host=evil.example, proto=http;host=data.example.org' }, 1, 'http://data.example.org'],
    ['fewer entries than hops: the first', { 'X-Forwarded-Host': 'api.example.org' }, 3, 'http://api.example.org'],
  ])('%s', (_name, headers, hops, expected) => {
    expect(origin(headers, hops)).toBe(expected);
  });
});

describe('publicOrigin: hostile or malformed values fall back to the request', () => {
  it.each<[string, Record<string, string>]>([
    ['a host with a path', { 'X-Forwarded-Host': 'evil.example/phish' }],
    ['a host with a query', { 'X-Forwarded-Host': 'evil.example?x=1' }],
    ['a host with a fragment', { 'X-Forwarded-Host': 'evil.example#x' }],
    ['userinfo', { 'X-Forwarded-Host': 'api.example.org@evil.example' }],
    ['a space inside the host', { 'X-Forwarded-Host': 'api.example.org evil.example' }],
    ['markup', { 'X-Forwarded-Host': '"><script>alert(1)</script>' }],
    ['a link-header breakout', { 'X-Forwarded-Host': 'a>; rel="next", <https://evil.example' }],
    ['a backslash', { 'X-Forwarded-Host': 'evil.example\\api.example.org' }],
    ['percent-encoding', { 'X-Forwarded-Host': 'evil%2eexample' }],
    ['empty labels', { 'X-Forwarded-Host': 'api..example.org' }],
    ['a port out of range', { 'X-Forwarded-Host': 'api.example.org:70000' }],
    ['port zero', { 'X-Forwarded-Host': 'api.example.org:0' }],
    ['a port that is not a number', { 'X-Forwarded-Host': 'api.example.org:https' }],
    ['an empty port', { 'X-Forwarded-Host': 'api.example.org:' }],
    ['X-Forwarded-Port not a number', { 'X-Forwarded-Host': 'api.example.org', 'X-Forwarded-Port': '80; evil' }],
    ['X-Forwarded-Port out of range', { 'X-Forwarded-Host': 'api.example.org', 'X-Forwarded-Port': '65536' }],
    ['a scheme other than http/https', { 'X-Forwarded-Proto': 'javascript', 'X-Forwarded-Host': 'api.example.org' }],
    ['a scheme with a host smuggled in', { 'X-Forwarded-Proto': 'https://evil.example/', 'X-Forwarded-Host': 'api.example.org' }],
    ['a bad IPv6 literal', { 'X-Forwarded-Host': '[2001:db8::zz]' }],
    ['an unclosed IPv6 bracket', { 'X-Forwarded-Host': '[2001:db8::1' }],
    ['an overlong host', { 'X-Forwarded-Host': `${'a'.repeat(63)}.`.repeat(5) }],
    ['Forwarded that is not RFC 7239 (unquoted space)', { Forwarded: 'host=data example.org;proto=https' }],
    ['Forwarded with an unterminated quote', { Forwarded: 'host="data.example.org;proto=https' }],
    ['Forwarded with a quoted path', { Forwarded: 'proto=https;host="evil.example/x"' }],
    ['Forwarded with a bad scheme', { Forwarded: 'proto=ftp;host=data.example.org' }],
    ['malformed Forwarded does not fall through to X-Forwarded-*', { Forwarded: 'host=;;', 'X-Forwarded-Host': 'api.example.org' }],
  ])('%s', (_name, headers) => {
    expect(origin(headers)).toBe('http://127.0.0.1:52089');
  });
});

describe('publicOrigin with TRUST_PROXY=0', () => {
  it.each<Record<string, string>>([
    { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org', 'X-Forwarded-Port': '8443' },
    { Forwarded: 'for=192.0.2.60;proto=https;host=data.example.org' },
  ])('ignores %o', (headers) => {
    expect(origin(headers, false)).toBe('http://127.0.0.1:52089');
  });
});
