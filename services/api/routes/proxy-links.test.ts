/**
 * Absolute URLs behind a proxy (TRUST_PROXY=1): every place that builds one — `@odata.nextLink`, the `Link` header,
 * `@odata.context` of pages and `$apply`, the service document, OpenAPI's server, the docs page — answers with the
 * same public origin for each header combination, and with the request's own origin when the headers are hostile
 * or not trusted. Then a real proxy on a loopback socket in front of a real server: the clients follow the next
 * link through the proxy, never to the API's own port.
 */
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { listen, type TestServer } from '../testing/test-server.js';

const BASE = '/v1/odata/v4';
/** datastreamjs's transport (@datastream/fetch 0.0.x, parseLinkFromHeader): a lazy match from the first `<`. */
const DATASTREAMJS_NEXT = /<(.*?)>; rel="next"/;
/** The API's own listening address: what a request reaching it through a proxy carries. */
const INTERNAL = 'http://127.0.0.1:52089';
const APPLY = encodeURIComponent('groupby((CharacteristicName),aggregate($count as Count))');

let db: Database;
let behind: Hono;
let direct: Hono;

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  behind = createApp({ acquire: () => db.acquire(), links: { trustProxy: true } });
  direct = createApp({ acquire: () => db.acquire(), links: { trustProxy: false } });
});
afterAll(async () => {
  await db.close();
});

/** Every absolute URL one app hands out for one set of request headers. */
async function absoluteUrls(app: Hono, headers: Record<string, string>) {
  const page = await app.request(`${INTERNAL}${BASE}/Observations?$select=Id&$top=2`, { headers });
  const body = await page.json();
  const apply = await (await app.request(`${INTERNAL}${BASE}/Records?$apply=${APPLY}&$top=1`, { headers })).json();
  const service = await (await app.request(`${INTERNAL}${BASE}/`, { headers })).json();
  const openapi = await (await app.request(`${INTERNAL}/v1/openapi.json`, { headers })).json();
  const docs = await (await app.request(`${INTERNAL}/`, { headers })).text();
  return {
    next: body['@odata.nextLink'] as string,
    link: DATASTREAMJS_NEXT.exec(page.headers.get('link') ?? '')?.[1],
    context: body['@odata.context'] as string,
    applyNext: apply['@odata.nextLink'] as string,
    applyContext: apply['@odata.context'] as string,
    service: service['@odata.context'] as string,
    server: openapi.servers[0].url as string,
    docs,
  };
}

function expectOrigin(urls: Awaited<ReturnType<typeof absoluteUrls>>, origin: string) {
  expect(urls.next).toMatch(new RegExp(`^${escape(origin)}${BASE}/Observations\\?`));
  expect(urls.link).toBe(urls.next);
  expect(urls.context).toBe(`${origin}${BASE}/$metadata#Observations(Id)`);
  expect(urls.applyNext).toMatch(new RegExp(`^${escape(origin)}${BASE}/Records\\?\\$apply=`));
  expect(urls.applyContext).toBe(`${origin}${BASE}/$metadata#Records(CharacteristicName,Count)`);
  expect(urls.service).toBe(`${origin}${BASE}/$metadata`);
  expect(urls.server).toBe(origin);
  expect(urls.docs).toContain(`<code>${origin}/v1/openapi.json</code>`);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('TRUST_PROXY=1: the same public origin in every absolute URL', () => {
  it.each<[string, Record<string, string>, string]>([
    ['no proxy headers', {}, INTERNAL],
    ["X-Forwarded-Proto + X-Forwarded-Host without a port (nginx's $host)", { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org' }, 'https://api.example.org'],
    ['X-Forwarded-Host with a port', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org:8443' }, 'https://api.example.org:8443'],
    ['X-Forwarded-Port', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org', 'X-Forwarded-Port': '8443' }, 'https://api.example.org:8443'],
    // TRUST_PROXY=1 trusts one hop: the entry it wrote, the right-most; one to its left is a client's word (issue 47).
    ['X-Forwarded-* from two proxies, one trusted', { 'X-Forwarded-Proto': 'https, http', 'X-Forwarded-Host': 'api.example.org, lb.internal:8080' }, 'http://lb.internal:8080'],
    ['Forwarded', { Forwarded: 'for=192.0.2.60;proto=https;host=data.example.org' }, 'https://data.example.org'],
    ['Forwarded from two proxies, one trusted', { Forwarded: 'for=192.0.2.60;proto=https;host="data.example.org:8443", for=10.0.0.2;proto=http;host=lb.internal' }, 'http://lb.internal'],
    ['Forwarded and X-Forwarded-*: Forwarded wins', { Forwarded: 'proto=https;host=data.example.org', 'X-Forwarded-Host': 'api.example.org', 'X-Forwarded-Port': '8080' }, 'https://data.example.org'],
    ['an IPv6 host', { Forwarded: 'proto=https;host="[2001:db8::1]"' }, 'https://[2001:db8::1]'],
  ])('%s', async (_name, headers, origin) => {
    expectOrigin(await absoluteUrls(behind, headers), origin);
  });

  it.each<[string, Record<string, string>]>([
    ['a host with a path', { 'X-Forwarded-Host': 'evil.example/phish' }],
    ['a host with spaces', { 'X-Forwarded-Host': 'api.example.org evil.example' }],
    ['a Link header breakout', { 'X-Forwarded-Host': 'a>; rel="next", <https://evil.example' }],
    ['markup', { 'X-Forwarded-Host': '"><script>alert(1)</script>' }],
    ['a scheme carrying a URL', { 'X-Forwarded-Proto': 'https://evil.example/#' }],
    ['Forwarded not RFC 7239', { Forwarded: 'host=evil example;proto=https' }],
    ['Forwarded with a quoted path', { Forwarded: 'host="evil.example/x";proto=https' }],
  ])('%s: rejected, the request origin is used', async (_name, headers) => {
    const urls = await absoluteUrls(behind, headers);
    expectOrigin(urls, INTERNAL);
    expect(JSON.stringify(urls)).not.toContain('evil');
  });
});

describe('TRUST_PROXY=0: proxy headers are ignored', () => {
  it.each<Record<string, string>>([
    { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org', 'X-Forwarded-Port': '8443' },
    { Forwarded: 'for=192.0.2.60;proto=https;host=data.example.org' },
  ])('%o', async (headers) => {
    expectOrigin(await absoluteUrls(direct, headers), INTERNAL);
  });
});

/**
 * A reverse proxy on its own loopback port, as nginx with `proxy_pass` is configured: the upstream's Host header
 * (the API's internal address), and the client's address in the headers `mode` chooses.
 */
async function proxy(upstream: TestServer, mode: (publicPort: number) => Record<string, string>): Promise<{ origin: string; close: () => Promise<void> }> {
  let publicPort = 0;
  const server: Server = createServer((req, res) => {
    const out = httpRequest(
      { host: '127.0.0.1', port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${upstream.port}`, ...mode(publicPort) } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  publicPort = (server.address() as AddressInfo).port;
  return { origin: `http://127.0.0.1:${publicPort}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('a real proxy in front of a real server', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await listen(behind);
  });
  afterAll(async () => {
    await api.close();
  });

  it.each<[string, (port: number) => Record<string, string>]>([
    ['X-Forwarded-Host without a port, X-Forwarded-Port', (port) => ({ 'x-forwarded-proto': 'http', 'x-forwarded-host': '127.0.0.1', 'x-forwarded-port': String(port) })],
    ['X-Forwarded-Host with the port', (port) => ({ 'x-forwarded-proto': 'http', 'x-forwarded-host': `127.0.0.1:${port}` })],
    ['Forwarded, unquoted host with a port', (port) => ({ forwarded: `for=127.0.0.1;proto=http;host=127.0.0.1:${port}` })],
    ['Forwarded, quoted host', (port) => ({ forwarded: `for=127.0.0.1;proto=http;host="127.0.0.1:${port}"` })],
  ])('%s: every next link the clients follow goes through the proxy, to the same rows', async (_name, mode) => {
    const front = await proxy(api, mode);
    try {
      const first = `${BASE}/Records?$select=Id&$filter=${encodeURIComponent("CharacteristicName eq 'pH'")}&$top=400`;
      const expected = await collect(`${api.origin}${first}`, 'body');
      expect(expected.pages).toBeGreaterThan(2);
      // datastream-py and datastreamsh follow @odata.nextLink; datastreamjs the Link header.
      for (const via of ['body', 'link'] as const) {
        const got = await collect(`${front.origin}${first}`, via);
        expect(got.ids).toEqual(expected.ids);
        for (const next of got.nexts) expect(new URL(next).origin).toBe(front.origin);
      }
    } finally {
      await front.close();
    }
  });
});

/** Follows next links to the end with fetch, as a client does: absolute URLs, no rewriting. */
async function collect(start: string, via: 'body' | 'link'): Promise<{ ids: number[]; nexts: string[]; pages: number }> {
  const ids: number[] = [];
  const nexts: string[] = [];
  let url: string | undefined = start;
  let pages = 0;
  while (url && pages < 200) {
    const res: Response = await fetch(url);
    expect(res.status).toBe(200);
    const body = await res.json();
    ids.push(...body.value.map((r: { Id: number }) => r.Id));
    pages++;
    url = via === 'body' ? body['@odata.nextLink'] : DATASTREAMJS_NEXT.exec(res.headers.get('link') ?? '')?.[1];
    if (url) nexts.push(url);
  }
  return { ids, nexts, pages };
}
