/**
 * Keys, CORS, rate and concurrency limits, time and size limits, on a real socket against the fixture DuckDB
 * file, each with the configuration main.ts builds from the environment (changed only where a test needs a
 * small limit or a fake clock).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp, type AppDeps } from './app.js';
import { openDatabase, type Database } from './db/database.js';
import type { Snapshot } from './db/snapshot.js';
import { openKeyStore, type KeyStore } from './keys/key-store.js';
import { createQueryGate } from './limits/query-gate.js';
import type { AccessOptions } from './middleware/access.js';
import { NODE_SERVER_OPTIONS } from './middleware/url-length.js';
import { REPO_ROOT } from './testing/fixture-db.js';
import { holdResponse } from './testing/held-response.js';
import { listen, type TestServer } from './testing/test-server.js';

let db: Database;
let dir: string;
let keyFile: string;
const servers: TestServer[] = [];
const stores: KeyStore[] = [];
const logs: string[] = [];
const log = (m: string) => logs.push(m);

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  dir = mkdtempSync(join(tmpdir(), 'tributary-access-'));
  keyFile = join(dir, 'api-keys.json');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const s of stores) s.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** When set, the next `columns` query of a `slowable` snapshot is replaced by one that runs for hours (and it is unset). */
let slowNext = false;
/** When set, page text is produced only once the request has been aborted (a client that left before its first row). */
let late: LateRows | undefined;
interface LateRows {
  waiting: boolean;
  /** The rows' generator has ended: read to its end, or cancelled. */
  finished: boolean;
}
const HOURS = { sql: 'SELECT count(*) AS n FROM range(1000000000000) a WHERE a.range % 7 = 3', params: [] };
function slowable(snapshot: Snapshot): Snapshot {
  return {
    ...snapshot,
    get running() {
      return snapshot.running;
    },
    columns: (q, s) => {
      if (!slowNext) return snapshot.columns(q, s);
      slowNext = false;
      return snapshot.columns(HOURS, s);
    },
    copyText: (q, rowEnd, s) => (late && s ? afterAbort(late, s, () => snapshot.copyText(q, rowEnd)) : snapshot.copyText(q, rowEnd, s)),
  };
}

/** Waits for `signal` to abort, then yields what `rows` makes: rows that arrive after their client has gone. */
async function* afterAbort(state: LateRows, signal: AbortSignal, rows: () => AsyncGenerator<Uint8Array, number>): AsyncGenerator<Uint8Array, number> {
  state.waiting = true;
  if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  try {
    return yield* rows();
  } finally {
    state.finished = true;
  }
}

/** Queries running in DuckDB now, on the current snapshot. */
function running(): number {
  const { snapshot, release } = db.acquire();
  release();
  return snapshot.running;
}

async function until(cond: () => boolean, ms = 5000): Promise<boolean> {
  const start = Date.now();
  while (!cond() && Date.now() - start < ms) await new Promise((r) => setTimeout(r, 10));
  return cond();
}

async function start(access: AccessOptions | undefined, limits?: AppDeps['limits']): Promise<number> {
  const app = createApp({
    acquire: () => {
      const a = db.acquire();
      return { snapshot: slowable(a.snapshot), release: a.release };
    },
    links: { trustProxy: false },
    limits,
    access,
    logError: (err) => logs.push(String(err)),
  });
  const server = await listen(app, NODE_SERVER_OPTIONS);
  servers.push(server);
  return server.port;
}

interface Res {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
  json: any;
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, method, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, text, json: text.startsWith('{') ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts a large page and stops reading it: the response stays in flight until `close()`. */
const hold = (port: number, path: string, headers: Record<string, string> = {}) => holdResponse(port, path, headers);

const RECORDS = '/v1/odata/v4/Records';
const BIG = `${RECORDS}?%24top=10000`;
const keysCli = (...args: string[]) =>
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/ops/keys.ts', ...args], { cwd: REPO_ROOT, env: { ...process.env, API_KEYS_FILE: keyFile }, encoding: 'utf8' });

describe('API keys', () => {
  let port: number;
  let issued: string;
  let issuedId: string;
  beforeAll(async () => {
    const out = keysCli('issue', 'alice@example.org');
    issued = /^\s+(trb_\S+)$/m.exec(out)![1]!;
    issuedId = /issued key ([0-9a-f]{12})/.exec(out)![1]!;
    const keys = await openKeyStore({ file: keyFile, plainKeys: ['dev-key-1', 'dev-key-2'], pollMs: 25, log });
    stores.push(keys);
    port = await start({ keys, log });
  });

  it('missing → 401 with the error body and how to send and get a key', async () => {
    const res = await get(port, `${RECORDS}?%24top=1`);
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ message: expect.stringMatching(/x-api-key[\s\S]*key-issue/), errors: [{ status: '401', code: 'missing_api_key', detail: res.json.message }], requestId: res.headers['x-request-id'] });
  });

  it('unknown → 403 with the error body and advice; dev keys and issued keys → 200', async () => {
    const res = await get(port, `${RECORDS}?%24top=1`, { 'x-api-key': 'not-a-key' });
    expect(res.status).toBe(403);
    expect(res.json.errors[0]).toMatchObject({ status: '403', code: 'invalid_api_key' });
    expect(res.json.message).toMatch(/not valid[\s\S]*x-api-key/);
    expect((await get(port, `${RECORDS}?%24top=1`, { 'x-api-key': 'dev-key-2' })).status).toBe(200);
    expect((await get(port, `${RECORDS}?%24top=1`, { 'x-api-key': issued })).status).toBe(200);
  });

  it('covers every route whose row asks for a key (collections, service document, $metadata, OpenAPI), not / or the health checks', async () => {
    for (const path of ['/v1/odata/v4/', '/v1/odata/v4/$metadata', '/v1/openapi.json', '/v1/odata/v4/Metadata']) {
      expect([path, (await get(port, path)).status]).toEqual([path, 401]);
    }
    for (const path of ['/', '/healthz', '/readyz']) expect([path, (await get(port, path)).status]).toEqual([path, 200]);
    // A path no row answers has no key rule: it is a 404, which tells no more than the open docs page does.
    expect((await get(port, '/v1/nothing')).status).toBe(404);
  });

  it('make key-revoke: the running server refuses the key after reloading the file, no restart', async () => {
    keysCli('revoke', issuedId);
    const revoked = await until(() => stores[0]!.verify(issued).status === 'revoked');
    expect(revoked).toBe(true);
    const res = await get(port, `${RECORDS}?%24top=1`, { 'x-api-key': issued });
    expect(res.status).toBe(403);
    expect(res.json.message).toMatch(/revoked/);
    expect(keysCli('list')).toMatch(new RegExp(`${issuedId}\\trevoked`));
  });

  it('keys never reach the logs: only their hash prefix does', async () => {
    await get(port, RECORDS, { 'x-api-key': 'trb_secret-unknown-key' });
    const text = logs.join('\n');
    expect(text).toContain(issuedId);
    for (const secret of [issued, 'trb_secret-unknown-key', 'dev-key-1', 'dev-key-2']) expect(text).not.toContain(secret);
  });
});

describe('CORS', () => {
  let port: number;
  const ORIGIN = 'https://app.example.org';
  beforeAll(async () => {
    const keys = await openKeyStore({ plainKeys: ['k1'] });
    port = await start({ keys, corsOrigins: [ORIGIN, 'http://localhost:8000'] });
  });

  it('preflight from an allowed origin: 204, GET and POST (the queries in a body), x-api-key and content-type allowed, no key needed', async () => {
    const res = await get(port, `${RECORDS}?%24top=1`, { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' }, 'OPTIONS');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST');
    expect(res.headers['access-control-allow-headers']).toMatch(/x-api-key/);
    expect(res.headers['access-control-allow-headers']).toMatch(/content-type/);
    expect(res.headers['vary']).toMatch(/Origin/);
  });

  it('simple request from an allowed origin without a key: 200, origin echoed, Vary: Origin, Link exposed', async () => {
    const res = await get(port, `${RECORDS}?%24top=2`, { Origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['access-control-expose-headers']).toBe('Link, ETag, Tributary-Publication, Server-Timing, X-Total-Count, Content-Disposition, Content-Range, Accept-Ranges, Content-Length');
    expect(res.headers['vary']).toMatch(/\bOrigin\b/);
    expect(res.headers['link']).toMatch(/rel="next"/);
  });

  it('origins not on the list: no CORS headers, and 401 without a key; their preflight names no origin', async () => {
    const other = { Origin: 'https://evil.example.com' };
    const simple = await get(port, `${RECORDS}?%24top=1`, other);
    expect(simple.status).toBe(401);
    expect(Object.keys(simple.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    // OPTIONS reads nothing: answered with the route's methods, and with no CORS header the browser stops there.
    const pre = await get(port, RECORDS, { ...other, 'Access-Control-Request-Method': 'GET' }, 'OPTIONS');
    expect(pre.status).toBe(204);
    expect(pre.headers['allow']).toBe('GET, HEAD, OPTIONS');
    expect(Object.keys(pre.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const keyed = await get(port, `${RECORDS}?%24top=1`, { ...other, 'x-api-key': 'k1' });
    expect(keyed.status).toBe(200);
    expect(keyed.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('an allowed origin with a wrong key is still refused (a key, when sent, is checked)', async () => {
    expect((await get(port, `${RECORDS}?%24top=1`, { Origin: ORIGIN, 'x-api-key': 'wrong' })).status).toBe(403);
  });
});

describe('rate limit (fake clock)', () => {
  it('per key: burst, then 429 with Retry-After and RateLimit-*; one token back after 1/rps; other keys unaffected', async () => {
    let now = 1_000_000;
    const keys = await openKeyStore({ plainKeys: ['a', 'b'] });
    const port = await start({ keys, rateLimit: { rps: 2, burst: 3, now: () => now } });
    const h = { 'x-api-key': 'a' };
    for (let i = 0; i < 3; i++) expect((await get(port, `${RECORDS}?%24top=1`, h)).status).toBe(200);
    const refused = await get(port, `${RECORDS}?%24top=1`, h);
    expect(refused.status).toBe(429);
    expect(refused.json.errors[0].code).toBe('rate_limited');
    expect(refused.headers).toMatchObject({ 'retry-after': '1', 'ratelimit-limit': '3', 'ratelimit-remaining': '0', 'ratelimit-reset': '2' });
    expect((await get(port, `${RECORDS}?%24top=1`, { 'x-api-key': 'b' })).status).toBe(200);
    now += 500;
    expect((await get(port, `${RECORDS}?%24top=1`, h)).status).toBe(200);
    expect((await get(port, `${RECORDS}?%24top=1`, h)).status).toBe(429);
  });

  it('a client pacing pages of the budget\'s size 0.5 s apart (as the official clients do) pages through Records without a 429', async () => {
    let now = 0;
    const keys = await openKeyStore({ plainKeys: ['pacer'] });
    // Rows per second: 500-row pages every 0.5 s spend exactly the budget.
    const port = await start({ keys, rateLimit: { rps: 1000, burst: 2000, minRows: 100, now: () => now } });
    let next: string | undefined = `${RECORDS}?%24top=500`;
    let pages = 0;
    while (next && pages < 40) {
      const res = await get(port, next, { 'x-api-key': 'pacer' });
      expect(res.status).toBe(200);
      next = res.json['@odata.nextLink'] ? new URL(res.json['@odata.nextLink']).pathname + new URL(res.json['@odata.nextLink']).search : undefined;
      pages++;
      now += 500;
    }
    expect(pages).toBeGreaterThan(20);
  });
});

describe('concurrency', () => {
  it('per key: a third parallel request gets 429 while two pages stream; the slot frees when one ends', async () => {
    const keys = await openKeyStore({ plainKeys: ['p', 'q'] });
    const port = await start({ keys, maxConcurrentPerKey: 2 });
    const h = { 'x-api-key': 'p' };
    const one = await hold(port, BIG, h);
    const two = await hold(port, BIG, h);
    expect([one.status, two.status]).toEqual([200, 200]);
    const third = await get(port, `${RECORDS}?%24top=1`, h);
    expect(third.status).toBe(429);
    expect(third.json.message).toMatch(/parallel/);
    expect(third.headers['retry-after']).toBe('1');
    expect((await get(port, `${RECORDS}?%24top=1`, { 'x-api-key': 'q' })).status).toBe(200);
    one.close();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await get(port, `${RECORDS}?%24top=1`, h)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(200);
    two.close();
  });

  it('global query slots: beyond the slots and the queue, 503 with Retry-After; health checks still answer', async () => {
    const keys = await openKeyStore({ plainKeys: ['x', 'y', 'z'] });
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 1, maxWaitMs: 10_000 });
    const port = await start({ keys, queryGate: gate });
    // A query still working holds its slot (one whose response waits on its client parks it: stall.server.test.ts).
    slowNext = true;
    const first = request({ host: '127.0.0.1', port, path: `${RECORDS}?%24top=5`, headers: { 'x-api-key': 'x' }, agent: false });
    first.on('error', () => {});
    first.end();
    expect(await until(() => !slowNext && running() === 1)).toBe(true);
    const queued = get(port, `${RECORDS}?%24top=1`, { 'x-api-key': 'y' });
    await until(() => gate.waiting === 1);
    const refused = await get(port, `${RECORDS}?%24top=1`, { 'x-api-key': 'z' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.json.errors[0].code).toBe('unavailable');
    expect((await get(port, '/readyz')).status).toBe(200);
    expect((await get(port, '/v1/odata/v4/$metadata', { 'x-api-key': 'z' })).status).toBe(200); // no query, no slot
    first.destroy();
    expect((await queued).status).toBe(200);
    expect(await until(() => gate.running === 0)).toBe(true);
    // Its hours-long query is interrupted by the disconnect: the tests after this one count DuckDB's queries.
    expect(await until(() => running() === 0, 10_000)).toBe(true);
  });
});

describe('time limit', () => {
  it('a query without a first row by QUERY_TIMEOUT_MS is interrupted in DuckDB and answered 504 with advice', async () => {
    const port = await start(undefined, { queryTimeoutMs: 300 });
    slowNext = true;
    try {
      const started = Date.now();
      const before = running();
      const pending = get(port, `${RECORDS}?%24top=5`);
      expect(await until(() => !slowNext && running() > before, 2000)).toBe(true);
      const res = await pending;
      expect(res.status).toBe(504);
      expect(res.json.errors[0]).toMatchObject({ status: '504', code: 'query_timeout' });
      expect(res.json.message).toMatch(/Retry once[\s\S]*\$top[\s\S]*\$filter/);
      expect(Date.now() - started).toBeLessThan(5000);
      // Interrupted, not abandoned: DuckDB is no longer running it.
      expect(await until(() => running() <= before, 5000)).toBe(true);
    } finally {
      slowNext = false;
    }
    expect((await get(port, `${RECORDS}?%24top=5`)).status).toBe(200);
  });

  it('the clock stops at the first row: a big page read slowly is not a timeout', async () => {
    const port = await start(undefined, { queryTimeoutMs: 1000 });
    const page = await hold(port, BIG);
    await new Promise((r) => setTimeout(r, 1300));
    page.close();
    expect(logs.filter((l) => /timed out/.test(l))).toEqual([]);
  });
});

describe('client disconnect', () => {
  it.each([['identity', {}], ['gzip', { 'Accept-Encoding': 'gzip' }]])(
    'closing the socket after the first bytes of a 10,000-row page stops the DuckDB query (%s)',
    async (_name, headers) => {
      const port = await start({ keys: await openKeyStore({ plainKeys: ['d'] }), maxConcurrentPerKey: 2, queryGate: createQueryGate({ maxConcurrent: 4, maxQueue: 4, maxWaitMs: 1000 }) });
      const before = running();
      const page = await hold(port, BIG, { ...headers, 'x-api-key': 'd' });
      expect(running()).toBeGreaterThan(0); // this page's query (one an earlier test left may end meanwhile)
      page.close();
      expect(await until(() => running() <= before, 5000)).toBe(true);
    },
  );

  it('a client that leaves before its first row: the page made after it left is cancelled, its query and connection freed', async () => {
    const port = await start({ keys: await openKeyStore({ plainKeys: ['e'] }), queryGate: createQueryGate({ maxConcurrent: 4, maxQueue: 4, maxWaitMs: 1000 }) });
    const before = running();
    late = { waiting: false, finished: false };
    try {
      const req = request({ host: '127.0.0.1', port, path: BIG, headers: { 'x-api-key': 'e' }, agent: false });
      req.on('error', () => {});
      req.end();
      expect(await until(() => late!.waiting)).toBe(true);
      req.destroy();
      // Nobody reads the body: only the server's own cancellation ends the rows' generator (and its COPY).
      expect(await until(() => late!.finished, 5000)).toBe(true);
      expect(await until(() => running() <= before, 5000)).toBe(true);
    } finally {
      late = undefined;
    }
  });

  it('also without any access middleware (the page stream itself is cancelled)', async () => {
    const port = await start(undefined);
    const before = running();
    const page = await hold(port, BIG);
    expect(running()).toBeGreaterThan(0); // this page's query (one an earlier test left may end meanwhile)
    page.close();
    expect(await until(() => running() <= before, 5000)).toBe(true);
  });
});

describe('size limits', () => {
  let port: number;
  beforeAll(async () => {
    port = await start({ maxUrlBytes: 16 * 1024 }, { maxPageBytes: 200_000 });
  });

  it('a page estimated over MAX_PAGE_BYTES is refused with 413 before any byte, with advice', async () => {
    const res = await get(port, `${RECORDS}?%24top=1000`);
    expect(res.status).toBe(413);
    expect(res.json.errors[0]).toMatchObject({ status: '413', code: 'payload_too_large' });
    expect(res.json.message).toMatch(/Lower \$top or \$select fewer fields/);
  });

  it('the same rows with fewer fields, or fewer rows, fit', async () => {
    const narrow = await get(port, `${RECORDS}?%24top=1000&%24select=Id,ResultValue`);
    expect(narrow.status).toBe(200);
    expect(narrow.json.value).toHaveLength(1000);
    expect(narrow.text.length).toBeLessThan(200_000);
    expect((await get(port, `${RECORDS}?%24top=50`)).status).toBe(200);
  });

  it('the estimate is close to the real size of a page', async () => {
    const port2 = await start(undefined);
    const res = await get(port2, `${RECORDS}?%24top=2000`);
    const { snapshot, release } = db.acquire();
    release();
    const { estimatePageBytes } = await import('./limits/page-size.js');
    const { getResource } = await import('../../schemas/index.js');
    const fields = getResource('Records')!.fields.filter((f) => f.selectable);
    const estimate = estimatePageBytes('observations', fields, 2000, snapshot.columnWidths!);
    expect(estimate / res.text.length).toBeGreaterThan(0.7);
    expect(estimate / res.text.length).toBeLessThan(1.3);
  });

  it('a URL over 16 KiB → 414 with the error body; just under is parsed as usual', async () => {
    const long = `${RECORDS}?%24filter=${encodeURIComponent(`DOI in (${Array.from({ length: 1000 }, (_, i) => `'10.25976/x${i}'`).join(',')})`)}`;
    expect(long.length).toBeGreaterThan(16 * 1024);
    const res = await get(port, long);
    expect(res.status).toBe(414);
    expect(res.json.errors[0]).toMatchObject({ status: '414', code: 'uri_too_long' });
    const shorter = `${RECORDS}?%24filter=${encodeURIComponent(`DOI in (${Array.from({ length: 500 }, (_, i) => `'10.25976/x${i}'`).join(',')})`)}`;
    expect((await get(port, shorter)).status).toBe(200);
  });

  it('filters nested deeper than 64 or with more than 1,000 in values → 400', async () => {
    const deep = `${'('.repeat(65)}LocationId eq 1${')'.repeat(65)}`;
    const deepRes = await get(port, `${RECORDS}?%24filter=${encodeURIComponent(deep)}`);
    expect(deepRes.status).toBe(400);
    expect(deepRes.json.errors[0].code).toBe('too_deep');
    const ok = `${'('.repeat(63)}LocationId eq 1${')'.repeat(63)}`;
    expect((await get(port, `${RECORDS}?%24top=5&%24filter=${encodeURIComponent(ok)}`)).status).toBe(200);
    const many = `LocationId in (${Array.from({ length: 1001 }, (_, i) => i).join(',')})`;
    const manyRes = await get(port, `${RECORDS}?%24filter=${encodeURIComponent(many)}`);
    expect(manyRes.status).toBe(400);
    expect(manyRes.json.errors[0].code).toBe('too_many_values');
  });
});

describe('security headers', () => {
  it('every response, success or error, carries nosniff and a Cache-Control, and no server banner', async () => {
    let now = 0;
    const keys = await openKeyStore({ plainKeys: ['s'] });
    const port = await start({ keys, rateLimit: { rps: 2, burst: 1, now: () => now } }, { queryTimeoutMs: 300 });
    const k = { 'x-api-key': 's' };
    const cases: [string, Record<string, string>, number, string][] = [
      ['/healthz', {}, 200, 'no-store'],
      ['/readyz', {}, 200, 'no-store'],
      ['/', {}, 200, 'public, max-age=60'],
      [`${RECORDS}?%24top=1`, k, 200, 'public, max-age=60'],
      [`${RECORDS}?%24top=1`, k, 429, 'no-store'],
      [`${RECORDS}?%24top=1`, {}, 401, 'no-store'],
      [`${RECORDS}?%24top=1`, { 'x-api-key': 'nope' }, 403, 'no-store'],
    ];
    for (const [path, headers, status, cache] of cases) {
      const res = await get(port, path, headers);
      expect([path, res.status]).toEqual([path, status]);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe(cache);
      expect(res.headers['server']).toBeUndefined();
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
    now += 10_000;
    const notFound = await get(port, '/v1/odata/v4/Nope', k);
    expect([notFound.status, notFound.headers['cache-control'], notFound.headers['x-content-type-options']]).toEqual([404, 'no-store', 'nosniff']);
  });
});

describe('HEAD', () => {
  it('answers the headers of a page and leaves no DuckDB query running for nobody', async () => {
    const port = await start({ keys: await openKeyStore({ plainKeys: ['h'] }), maxConcurrentPerKey: 1 });
    const before = running();
    const res = await get(port, BIG, { 'x-api-key': 'h' }, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/json/);
    expect(res.text).toBe('');
    expect(await until(() => running() <= before, 5000)).toBe(true);
    // The key's one slot was given back.
    expect((await get(port, `${RECORDS}?%24top=1`, { 'x-api-key': 'h' })).status).toBe(200);
  });
});
