/**
 * Clients that stop reading (issue 37 items 1 and 2), on a real socket against the fixture DuckDB file, with the
 * access limits main.ts builds at make start's defaults (keys, rate limit, places per key, exports per key, the query
 * gate) and a short STREAM_STALL_MS. A stalled client is a raw socket paused after the response's first bytes: the
 * kernel's buffers fill and the server's writes wait for ever.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './app.js';
import { loadApiConfig } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { openKeyStore, type KeyStore } from './keys/key-store.js';
import { createQueryGate, type QueryGate } from './limits/query-gate.js';
import { NODE_SERVER_OPTIONS } from './middleware/url-length.js';
import { listen, type TestServer } from './testing/test-server.js';

const defaults = loadApiConfig({});
const KEYS = Array.from({ length: 9 }, (_, i) => `stall-key-${i}`);
const OTHER = KEYS[8]!;

let db: Database;
let dir: string;
const opened: { server: TestServer; keys: KeyStore }[] = [];

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  dir = mkdtempSync(join(tmpdir(), 'tributary-stall-'));
});
afterAll(async () => {
  for (const { server, keys } of opened) {
    if ('closeAllConnections' in server.server) server.server.closeAllConnections();
    await server.close();
    keys.close();
  }
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Started {
  readonly port: number;
  readonly gate: QueryGate;
  /** Resolves when the server's side of the connection from `localPort` is closed. */
  serverClosed(localPort: number): Promise<void>;
}

async function start(streamStallMs: number, pageStallMs?: number): Promise<Started> {
  const gate = createQueryGate({ maxConcurrent: defaults.MAX_CONCURRENT_QUERIES, maxQueue: defaults.QUERY_QUEUE, maxWaitMs: defaults.QUERY_TIMEOUT_MS });
  const keys = await openKeyStore({ file: join(dir, 'none.json'), plainKeys: KEYS, pollMs: 0 });
  const app = createApp({
    acquire: () => db.acquire(),
    links: { trustProxy: false },
    limits: { queryTimeoutMs: defaults.QUERY_TIMEOUT_MS, maxPageBytes: defaults.MAX_PAGE_BYTES, streamStallMs, pageStallMs },
    exportTimeoutMs: defaults.EXPORT_TIMEOUT_MS,
    access: {
      keys,
      corsOrigins: ['http://localhost:3000', 'http://127.0.0.1:3000'], // what make start lists
      rateLimit: { rps: defaults.PAGE_ROWS_PER_SECOND, burst: defaults.PAGE_ROWS_BURST, minRows: defaults.PAGE_MIN_ROWS },
      maxConcurrentPerKey: defaults.MAX_CONCURRENT_PER_KEY,
      maxConcurrentExports: defaults.MAX_CONCURRENT_EXPORTS,
      queryGate: gate,
    },
    logError: () => {},
  });
  const server = await listen(app, NODE_SERVER_OPTIONS);
  opened.push({ server, keys });
  const closed = new Map<number, Promise<void>>();
  server.server.on('connection', (s: Socket) => closed.set(s.remotePort!, new Promise((r) => s.once('close', () => r()))));
  return { port: server.port, gate, serverClosed: (p) => closed.get(p) ?? Promise.reject(new Error(`no connection from port ${p}`)) };
}

interface StalledClient {
  readonly socket: Socket;
  readonly status: number;
  readonly since: number;
}

/** Sends a GET, waits for the response's first bytes, then reads nothing more. */
async function stalledClient(port: number, path: string, key: string): Promise<StalledClient> {
  const socket = connect({ port, host: '127.0.0.1' });
  socket.on('error', () => {}); // the cut arrives as a reset
  await new Promise((r) => socket.once('connect', r));
  const since = performance.now();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\n\r\n`);
  const first = await new Promise<Buffer>((r) => socket.once('data', r));
  socket.pause();
  return { socket, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(first.toString('latin1'))?.[1]), since };
}

/** Resolves when `cond` holds (checked every 10 ms: the gate's counts have no events). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
}

const PAGE = (i: number) => `/v1/odata/v4/Records?$top=10000&$skiptoken=Id:${i * 1000}`;
const EXPORT = '/v1/export/Records?$format=csv';

describe('a few stalled clients shut everyone out (issue 37 item 1)', () => {
  it.each([
    { name: 'four keys with two stalled $top=10000 pages each', stalled: [0, 1, 2, 3].flatMap((k) => [0, 1].map((n) => ({ key: KEYS[k]!, path: PAGE(k * 2 + n) }))) },
    { name: 'eight keys with one stalled export each', stalled: [0, 1, 2, 3, 4, 5, 6, 7].map((k) => ({ key: KEYS[k]!, path: EXPORT })) },
  ])('$name: the others still get their pages, and the stalled ones are cut after STREAM_STALL_MS', async ({ stalled }) => {
    const stallMs = 8000;
    const api = await start(stallMs);
    const clients = await Promise.all(stalled.map((s) => stalledClient(api.port, s.path, s.key)));
    expect(clients.map((c) => c.status)).toEqual(stalled.map(() => 200));
    expect(stalled.length).toBe(defaults.MAX_CONCURRENT_QUERIES); // every slot, before this fix
    let cut = 0;
    const cuts = clients.map((c) => api.serverClosed(c.socket.localPort!).then(() => (cut++, performance.now() - c.since)));

    // Every stalled response has given its slot back while it waits.
    await until(() => api.gate.running === 0 && api.gate.parked === clients.length);
    const res = await fetch(`http://127.0.0.1:${api.port}${PAGE(20)}`, { headers: { 'x-api-key': OTHER } });
    expect(res.status).toBe(200);
    expect(cut).toBe(0); // answered while the stalled ones are still held
    expect((await res.json()).value).toHaveLength(10000);

    for (const held of await Promise.all(cuts)) expect(held).toBeGreaterThanOrEqual(stallMs);
    await until(() => api.gate.running === 0 && api.gate.parked === 0);
    // A cut response never looks complete: no chunked body's last chunk.
    for (const c of clients) {
      c.socket.resume();
      const rest: Buffer[] = [];
      c.socket.on('data', (b: Buffer) => rest.push(b));
      if (!c.socket.closed) await new Promise((r) => c.socket.once('close', r));
      expect(Buffer.concat(rest).toString('latin1').endsWith('0\r\n\r\n')).toBe(false);
    }
  });
});

describe('sixteen stalled readers filled the gate (issue 47 item 4)', () => {
  it('eight keys with two stalled pages each: all sixteen park, and another key still gets its page', async () => {
    const api = await start(defaults.STREAM_STALL_MS);
    const stalled = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((k) => [0, 1].map((n) => ({ key: KEYS[k]!, path: PAGE(k * 2 + n) })));
    expect(stalled.length).toBe(2 * defaults.MAX_CONCURRENT_QUERIES); // as many parked as slots, and every slot, before this fix
    const clients = await Promise.all(stalled.map((s) => stalledClient(api.port, s.path, s.key)));
    expect(clients.map((c) => c.status)).toEqual(stalled.map(() => 200));
    await until(() => api.gate.running === 0 && api.gate.parked === clients.length);
    const res = await fetch(`http://127.0.0.1:${api.port}${PAGE(20)}`, { headers: { 'x-api-key': OTHER } });
    expect(res.status).toBe(200);
    expect((await res.json()).value).toHaveLength(10000);
    for (const c of clients) c.socket.destroy();
    await until(() => api.gate.parked === 0);
  });
});

describe('a stalled page is cut sooner than a stalled export (issue 47 item 4)', () => {
  it('PAGE_STALL_MS cuts the page while the export, under STREAM_STALL_MS, is still held', async () => {
    const api = await start(defaults.STREAM_STALL_MS, 2000);
    const [page, exported] = await Promise.all([stalledClient(api.port, PAGE(0), KEYS[0]!), stalledClient(api.port, EXPORT, KEYS[1]!)]);
    expect([page.status, exported.status]).toEqual([200, 200]);
    let exportCut = false;
    void api.serverClosed(exported.socket.localPort!).then(() => (exportCut = true));
    await api.serverClosed(page.socket.localPort!);
    expect(exportCut).toBe(false);
    exported.socket.destroy();
    await until(() => api.gate.parked === 0 && api.gate.running === 0);
  });
});

describe('a stalled page reader made DuckDB spin a core (issue 37 item 2)', () => {
  it('eight stalled $top=10000 pages cost no CPU while their clients stay connected', async () => {
    const api = await start(defaults.STREAM_STALL_MS);
    const clients = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((i) => stalledClient(api.port, PAGE(i), KEYS[i >> 1]!)));
    await until(() => api.gate.running === 0 && api.gate.parked === clients.length);
    // The measure is the CPU the whole process spends over stretches of wall time in which nothing but the stall
    // happens: a DuckDB thread polling for tasks shows as a core in every stretch. The quietest of three is taken, as a
    // garbage collection or the test runner's own traffic can land in any one of them on a loaded machine.
    const shares: number[] = [];
    for (let i = 0; i < 3; i++) {
      const cpu0 = process.cpuUsage();
      const wall0 = performance.now();
      await new Promise((r) => setTimeout(r, 1000));
      const { user, system } = process.cpuUsage(cpu0);
      shares.push((user + system) / 1000 / (performance.now() - wall0));
    }
    expect(Math.min(...shares), `CPU share of each second: ${shares.join(', ')}`).toBeLessThan(0.2);
    for (const c of clients) c.socket.destroy();
    await until(() => api.gate.parked === 0);
  });
});
