/**
 * The data API on a real socket: streaming of large pages, compression negotiation as the real clients do it,
 * and what a client sees when a page fails half-way.
 */
import { request } from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './app.js';
import { listen, type TestServer } from './testing/test-server.js';
import { openDatabase, type Database } from './db/database.js';
import type { Snapshot } from './db/snapshot.js';

let db: Database;
let server: TestServer;
let port: number;
/** When set, the next stream fails after its first chunk (a DuckDB error mid-page). */
let failMidStream = false;

function faulty(snapshot: Snapshot): Snapshot {
  return {
    ...snapshot,
    path: snapshot.path,
    inIdOrder: snapshot.inIdOrder,
    running: snapshot.running,
    columns: (q, s) => snapshot.columns(q, s),
    close: () => snapshot.close(),
    async *copyText(q, rowEnd, signal) {
      const inner = snapshot.copyText(q, rowEnd, signal);
      try {
        let n = 0;
        for (let r = await inner.next(); ; r = await inner.next()) {
          if (r.done) return r.value;
          if (failMidStream && n++ === 1) throw new Error('simulated failure after the first chunk');
          yield r.value;
        }
      } finally {
        await inner.return(0);
      }
    },
  };
}

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  const app = createApp({
    acquire: () => {
      const a = db.acquire();
      return { snapshot: faulty(a.snapshot), release: a.release };
    },
    links: { trustProxy: false },
    logError: () => {},
  });
  server = await listen(app);
  port = server.port;
});
afterAll(async () => {
  await server.close();
  await db.close();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  chunks: number;
  aborted: boolean;
}

function fetchRaw(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    // A connection of its own: on Node's keep-alive global agent a request may go out on a socket the server is closing.
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      let aborted = false;
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('aborted', () => (aborted = true));
      res.on('error', () => (aborted = true));
      res.on('close', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts), chunks: parts.length, aborted: aborted || !res.complete }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const records = (top: number, extra = '') => `/v1/odata/v4/Records?%24top=${top}${extra}`;

describe('streaming', () => {
  it('sends a 10,000-row page of all fields in many socket writes, as valid JSON', async () => {
    const res = await fetchRaw(records(10000));
    expect(res.status).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const body = JSON.parse(res.body.toString('utf8'));
    expect(body.value).toHaveLength(10000);
    expect(res.chunks).toBeGreaterThan(3);
    const ids = body.value.map((r: { Id: number }) => r.Id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('a failure after the first byte aborts the connection: never a valid-looking short page', async () => {
    failMidStream = true;
    try {
      const res = await fetchRaw(records(10000));
      expect(res.status).toBe(200);
      expect(res.aborted).toBe(true);
      expect(() => JSON.parse(res.body.toString('utf8'))).toThrow();
    } finally {
      failMidStream = false;
    }
    // The server is still healthy afterwards.
    expect((await fetchRaw(records(5))).status).toBe(200);
  });

  it('a query that fails before the first byte gets a status and the error body', async () => {
    const res = await fetchRaw('/v1/odata/v4/Records?%24top=5&%24filter=Nope%20eq%201');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString()).errors[0].code).toBe('unknown_field');
  });
});

describe('compression negotiation', () => {
  it.each([
    ['gzip, deflate, br, zstd', 'zstd'], // Chromium since 123
    ['zstd', 'zstd'],
    ['gzip, zstd;q=0', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br', undefined], // datastream-py without brotli, datastreamsh's curl: cannot decode br alone
    ['identity', undefined],
    [undefined, undefined],
  ])('Accept-Encoding %s → %s', async (accept, expected) => {
    const res = await fetchRaw(records(2000), accept ? { 'Accept-Encoding': accept } : {});
    expect(res.headers['content-encoding']).toBe(expected);
    const text =
      expected === 'zstd'
        ? zlib.zstdDecompressSync(res.body)
        : expected === 'br'
          ? zlib.brotliDecompressSync(res.body)
          : expected === 'gzip'
            ? zlib.gunzipSync(res.body)
            : res.body;
    expect(JSON.parse(text.toString('utf8')).value).toHaveLength(2000);
    expect(String(res.headers['vary'])).toMatch(/Accept-Encoding/i);
  });
});
