import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CLIENT_HEAP_MB, openClient, type Client } from './client.js';

// Three JSON pages of two rows, linked by @odata.nextLink, and a CSV page with a Link header: what the bench's
// extract loops follow, served by a real server on loopback.
let server: Server;
let base: string;
const seen: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers['x-api-key'] as string | undefined);
    const page = Number(new URL(req.url!, 'http://x').searchParams.get('page') ?? '1');
    if (req.url!.includes('csv')) {
      res.writeHead(200, { 'content-type': 'text/csv', ...(page < 2 ? { link: `<${base}/csv?page=${page + 1}>; rel="next"` } : {}) });
      return res.end('Id,Value\r\n1,a\r\n2,b\r\n');
    }
    const next = page < 3 ? `,"@odata.nextLink":"${base}/json?page=${page + 1}"` : '';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"value":[{"Id":${2 * page - 1}},{"Id":${2 * page}}]${next}}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the bench client process', () => {
  let client: Client;
  beforeAll(async () => {
    // §6's database needs the bench's load; the timed queries below need none of its tables.
    const before = process.env.BENCH_PG_DATABASE;
    process.env.BENCH_PG_DATABASE = 'test';
    client = await openClient({ 'x-api-key': 'k' }).finally(() => {
      if (before === undefined) delete process.env.BENCH_PG_DATABASE;
      else process.env.BENCH_PG_DATABASE = before;
    });
  });
  afterAll(() => client.close());

  it('starts with a small heap, the condition its figures depend on', () => {
    expect(client.heapMB).toBeGreaterThan(1);
    expect(client.heapMB).toBeLessThan(MAX_CLIENT_HEAP_MB);
  });

  it('follows next links, counts rows and reports the marked pages as they end', async () => {
    const marks: number[] = [];
    const r = await client.extract(`${base}/json?page=1`, 'json', { marks: [2], onMark: (p) => marks.push(p) });
    expect(r).toMatchObject({ rows: 6, pages: 3 });
    expect(r.ms).toBeGreaterThan(0);
    expect(marks).toEqual([2]);
    expect(seen.at(-1)).toBe('k');
  });

  it('follows Link headers through CSV pages (the header line is not a row) and stops at maxPages', async () => {
    expect(await client.extract(`${base}/csv?page=1`, 'csv')).toMatchObject({ rows: 4, pages: 2 });
    expect(await client.extract(`${base}/json?page=1`, 'json', { maxPages: 1 })).toMatchObject({ rows: 2, pages: 1 });
  });

  it('answers single requests with status, markers and the body when asked', async () => {
    const res = await client.http.get(`${base}/json?page=3`, { marker: Buffer.from('{"Id":'), whole: true });
    expect(res).toMatchObject({ status: 200, markers: 2, body: '{"value":[{"Id":5},{"Id":6}]}' });
  });

  it('times PostgreSQL pages, keyset extracts and counts in the same process', async () => {
    const q = (where: string) => `SELECT i AS "Id", '{"i":' || i || '}' AS j FROM generate_series(1, 5) i ${where} ORDER BY i LIMIT 2`;
    expect(await client.pg.page({ text: q(''), values: [] })).toMatchObject({ rows: 2, last: 2, bytes: 14 });
    const e = await client.pg.extract({ text: q(''), values: [] }, { text: q('WHERE i > $1'), values: [] }, 2);
    expect(e).toMatchObject({ rows: 5 });
    const n = await client.pg.count({ text: 'SELECT count(*) AS n FROM generate_series(1, $1::int)', values: [7] });
    expect(n.n).toBe(7);
  });

  it('rejects a failed request with its error instead of hanging', async () => {
    await expect(client.http.get('http://127.0.0.1:1/')).rejects.toThrow(/ECONNREFUSED/);
  });
});
