/**
 * Whose bucket a request draws from (issue 37, items 7 and 8), on a real socket: each client connects from its
 * own loopback address (127.0.0.2, 127.0.0.3, …), which the server reads from the socket as it does in production.
 *
 * - No keys configured: the address, whatever `x-api-key` says (a made-up key per request was a fresh bucket each).
 * - Keys required: an unknown key is refused before any bucket; a browser call without a key (a listed `Origin`,
 *   or a same-origin request to a listed host) has a smaller budget of its own per address, and may neither
 *   export nor fetch a dataset file.
 */
import { request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { openKeyStore, type KeyStore } from '../keys/key-store.js';
import type { Decision } from './rate-limit.js';
import type { AccessOptions } from './access.js';
import { NODE_SERVER_OPTIONS } from './url-length.js';
import { holdResponse } from '../testing/held-response.js';
import { listen, type TestServer } from '../testing/test-server.js';

let db: Database;
const servers: TestServer[] = [];
const stores: KeyStore[] = [];

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const s of stores) s.close();
  await db.close();
});

async function start(access: AccessOptions): Promise<number> {
  const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, access });
  const server = await listen(app, NODE_SERVER_OPTIONS);
  servers.push(server);
  return server.port;
}

const keyed = async (...plainKeys: string[]) => {
  const keys = await openKeyStore({ plainKeys, pollMs: 0 });
  stores.push(keys);
  return keys;
};

interface Res {
  status: number;
  headers: IncomingMessage['headers'];
  json: any;
}

/** A GET from `from` (a loopback address of this machine) to the test server. */
function get(port: number, from: string, path: string, headers: Record<string, string> = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, localAddress: from, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, json: text.startsWith('{') ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts a large page from `from` and stops reading it: it stays in flight until `close()`. */
const hold = (port: number, from: string, path: string, headers: Record<string, string> = {}) => holdResponse(port, path, headers, from);

const ONE = '/v1/odata/v4/Records?%24top=1';
const BIG = '/v1/odata/v4/Records?%24top=10000';
const EXPORT = "/v1/export/Observations?%24filter=CharacteristicName%20eq%20'pH'&%24format=csv";
const FILE = `/v1/downloads/files/sha256-${'0'.repeat(64)}/dataset.csv`;
const ORIGIN = 'https://explore.example.org';
const A = '127.0.0.2';
const B = '127.0.0.3';
const statuses = async (n: number, send: (i: number) => Promise<Res>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send(i)).status);
  return out;
};

describe('no keys configured: one bucket per address', () => {
  it('a made-up x-api-key on each request does not buy a fresh bucket (issue 37 item 7)', async () => {
    let now = 1_000_000;
    const port = await start({ rateLimit: { rps: 2, burst: 3, now: () => now } });
    expect(await statuses(5, (i) => get(port, A, ONE, { 'x-api-key': `random-${i}-${Math.random()}` }))).toEqual([200, 200, 200, 429, 429]);
    expect(await statuses(2, () => get(port, A, ONE))).toEqual([429, 429]);
    expect((await get(port, B, ONE, { 'x-api-key': 'random-b' })).status).toBe(200);
    now += 500;
    expect((await get(port, A, ONE, { 'x-api-key': 'yet-another' })).status).toBe(200);
  });

  it('nor a place in flight: a third page from one address is 429 whatever its key, another address is served', async () => {
    const port = await start({ maxConcurrentPerKey: 2 });
    const one = await hold(port, A, BIG, { 'x-api-key': 'k1' });
    const two = await hold(port, A, BIG, { 'x-api-key': 'k2' });
    expect((await get(port, A, ONE, { 'x-api-key': 'k3' })).status).toBe(429);
    expect((await get(port, B, ONE, { 'x-api-key': 'k3' })).status).toBe(200);
    one.close();
    two.close();
  });

  it('a browser of a listed origin is an address like any other: the full budget, exports allowed (make start)', async () => {
    const port = await start({ corsOrigins: [ORIGIN], rateLimit: { rps: 2, burst: 3, now: () => 0 }, browserRateLimit: { rps: 1, burst: 1 } });
    expect(await statuses(4, () => get(port, A, ONE, { Origin: ORIGIN }))).toEqual([200, 200, 200, 429]);
    expect((await get(port, B, EXPORT, { Origin: ORIGIN })).status).toBe(200);
  });
});

describe('keys required: an unknown key is refused before it gets a bucket', () => {
  it('403 for every made-up key, no bucket taken, the valid key’s bucket untouched', async () => {
    const taken: string[] = [];
    const take = async (id: string): Promise<Decision> => (taken.push(id), { allowed: true, remaining: 1, retryAfter: 0, reset: 0 });
    const keys = await keyed('good');
    const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, access: { keys, rateLimit: { rps: 2, burst: 2 }, maxConcurrentPerKey: 2, shared: { take, slots: { tryAcquire: () => () => {} } } } });
    for (let i = 0; i < 5; i++) expect((await app.request(ONE, { headers: { 'x-api-key': `made-up-${i}`, origin: ORIGIN } })).status).toBe(403);
    expect(taken).toEqual([]);
    expect((await app.request(ONE, { headers: { 'x-api-key': 'good' } })).status).toBe(200);
    expect(taken).toHaveLength(1);
  });
});

describe('keys required: keyless browser calls (issue 37 item 8)', () => {
  let port: number;
  let now = 1_000_000;
  beforeAll(async () => {
    const keys = await keyed('k');
    port = await start({ keys, corsOrigins: [ORIGIN, 'http://127.0.0.1'], rateLimit: { rps: 2, burst: 4, now: () => now }, browserRateLimit: { rps: 1, burst: 2 }, maxConcurrentPerKey: 2, maxConcurrentExports: 1 });
  });

  it('each address has its own, smaller bucket: one script sending the listed Origin cannot starve another address', async () => {
    now += 60_000;
    const refused = await statuses(6, () => get(port, A, ONE, { Origin: ORIGIN }));
    expect(refused).toEqual([200, 200, 429, 429, 429, 429]);
    const last = await get(port, A, ONE, { Origin: ORIGIN });
    expect(last.headers).toMatchObject({ 'ratelimit-limit': '2', 'retry-after': '1' });
    expect(last.json.message).toMatch(/each address, for browser calls without a key, 1 rows per second/);
    // Another visitor of the same origin, a same-origin page on a listed host, and a key are all unaffected.
    expect((await get(port, B, ONE, { Origin: ORIGIN })).status).toBe(200);
    expect((await get(port, '127.0.0.4', ONE, { 'sec-fetch-site': 'same-origin', host: '127.0.0.1' })).status).toBe(200);
    expect(await statuses(4, () => get(port, A, ONE, { 'x-api-key': 'k', Origin: ORIGIN }))).toEqual([200, 200, 200, 200]);
    now += 1000;
    expect((await get(port, A, ONE, { Origin: ORIGIN })).status).toBe(200);
  });

  it('places in flight count per address too: a third page from one address is 429, another address is served', async () => {
    now += 60_000;
    const one = await hold(port, A, BIG, { Origin: ORIGIN });
    const two = await hold(port, A, BIG, { Origin: ORIGIN });
    expect((await get(port, A, ONE, { Origin: ORIGIN })).status).toBe(429);
    expect((await get(port, B, ONE, { Origin: ORIGIN })).status).toBe(200);
    one.close();
    two.close();
  });

  it('no whole-result export and no dataset file without a key: 401 saying how to get one; with a key, the export runs', async () => {
    now += 60_000;
    const browsers: Record<string, string>[] = [{ Origin: ORIGIN }, { 'sec-fetch-site': 'same-origin', host: '127.0.0.1' }];
    for (const headers of browsers) {
      for (const path of [EXPORT, FILE]) {
        const res = await get(port, B, path, headers);
        expect([path, res.status, res.json.errors[0].code]).toEqual([path, 401, 'missing_api_key']);
        expect(res.json.message).toMatch(/^Whole-result exports and dataset files need an API key[\s\S]*x-api-key[\s\S]*key-issue/);
        expect(res.headers['access-control-allow-origin']).toBe(headers['Origin']);
      }
    }
    expect((await get(port, B, EXPORT, { Origin: ORIGIN, 'x-api-key': 'k' })).status).toBe(200);
  });
});
