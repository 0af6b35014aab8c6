/**
 * One dataset file over real HTTP: whole, HEAD, ranges (206, 416), validators (304, If-Range), what is not served
 * (unknown or superseded hash, another format), and the API's keys and CORS in front of it.
 */
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { datasetFileName, storeFilesDir } from '../../../schemas/publication-files.js';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { openKeyStore, type KeyStore } from '../keys/key-store.js';
import { filesFixture, type FilesFixture } from '../testing/files-fixture.js';
import { listen, type TestServer } from '../testing/test-server.js';

let fixture: FilesFixture;
let db: Database;
let server: TestServer;
let keyed: TestServer;
let keys: KeyStore;
/** The first dataset's CSV file: its path on this server, its bytes on disk. */
let csv: { path: string; bytes: Buffer; sha256: string; url: string };
let parquetUrl: string;

beforeAll(async () => {
  fixture = await filesFixture(inject('apiFixtureDb'));
  db = await openDatabase(fixture.path);
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }));
  keys = await openKeyStore({ plainKeys: ['files-key'] });
  keyed = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, access: { keys, corsOrigins: ['https://app.example.org'] } }));
  const index = (await (await fetch(`${server.origin}/v1/downloads`)).json()) as { datasets: { files: Record<string, { url: string; sha256: string }> }[] };
  const file = index.datasets[0]!.files['csv']!;
  csv = { url: file.url, path: new URL(file.url).pathname, sha256: file.sha256, bytes: await readFile(join(fixture.filesDir, datasetFileName(file.sha256, 'csv'))) };
  parquetUrl = index.datasets[0]!.files['parquet']!.url;
});
afterAll(async () => {
  await keyed?.close();
  await server?.close();
  keys?.close();
  await db?.close();
  await fixture?.close();
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => fetch(`${server.origin}${path}`, { headers, method });

describe('GET /v1/downloads/files/sha256-<hex>/<name>', () => {
  it('sends the whole file with a strong ETag, immutable caching, its length, type and a file name', async () => {
    const res = await get(csv.path, { 'accept-encoding': 'gzip, br, zstd' });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(csv.bytes)).toBe(true);
    expect(createHash('sha256').update(body).digest('hex')).toBe(csv.sha256);
    expect(Object.fromEntries([...res.headers].filter(([k]) => ['etag', 'cache-control', 'accept-ranges', 'content-length', 'content-type', 'content-disposition', 'content-encoding'].includes(k)))).toEqual({
      etag: `"sha256-${csv.sha256}"`,
      'cache-control': 'public, max-age=31536000, immutable, no-transform',
      'accept-ranges': 'bytes',
      'content-length': String(csv.bytes.length),
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${csv.path.split('/').pop()}"`,
    });
    expect(body.toString('utf8', 0, 40)).toMatch(/^Id,DOI,/);
  });

  it('serves Parquet as application/vnd.apache.parquet, a file pyarrow and DuckDB open (PAR1 at both ends)', async () => {
    const res = await fetch(parquetUrl);
    expect(res.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    const body = Buffer.from(await res.arrayBuffer());
    expect([body.subarray(0, 4).toString(), body.subarray(-4).toString()]).toEqual(['PAR1', 'PAR1']);
  });

  it('HEAD: the headers of a GET and no body', async () => {
    const res = await get(csv.path, {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(csv.bytes.length));
    expect(res.headers.get('etag')).toBe(`"sha256-${csv.sha256}"`);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it.each([
    ['bytes=10-19', 10, 19],
    ['bytes=100-', 100, -1],
    ['bytes=-7', -7, -1],
    ['bytes=0-99999999', 0, -1],
  ])('Range: %s → 206 with exactly those bytes', async (range, from, to) => {
    const size = csv.bytes.length;
    const start = from < 0 ? size + from : from;
    const end = to < 0 ? size - 1 : to;
    const res = await get(csv.path, { range });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
    expect(res.headers.get('content-length')).toBe(String(end - start + 1));
    expect(Buffer.from(await res.arrayBuffer()).equals(csv.bytes.subarray(start, end + 1))).toBe(true);
  });

  it('a range past the end is a 416 with Content-Range: bytes */<size> and the error body', async () => {
    const res = await get(csv.path, { range: `bytes=${csv.bytes.length}-` });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${csv.bytes.length}`);
    const body = (await res.json()) as { errors: { code: string; detail: string }[] };
    expect(body.errors[0]!.code).toBe('range_not_satisfiable');
    expect(body.errors[0]!.detail).toContain(`(${csv.bytes.length} bytes)`);
  });

  it('several ranges, or a malformed one, get the whole file (200)', async () => {
    for (const range of ['bytes=0-1,5-9', 'bytes=9-5', 'lines=1-2']) {
      const res = await get(csv.path, { range });
      expect(res.status, range).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(csv.bytes.length);
    }
  });

  it('If-None-Match with the ETag → 304; If-Range with it → the range, with another → the whole file', async () => {
    const etag = `"sha256-${csv.sha256}"`;
    expect((await get(csv.path, { 'if-none-match': etag })).status).toBe(304);
    expect((await get(csv.path, { range: 'bytes=5-', 'if-range': etag })).status).toBe(206);
    const other = await get(csv.path, { range: 'bytes=5-', 'if-range': '"sha256-0000"' });
    expect(other.status).toBe(200);
    expect((await other.arrayBuffer()).byteLength).toBe(csv.bytes.length);
  });

  it('a download cut short resumes from where it stopped (curl -C - sends Range: bytes=<have>-)', async () => {
    const have = csv.bytes.subarray(0, Math.floor(csv.bytes.length / 3));
    const rest = Buffer.from(await (await get(csv.path, { range: `bytes=${have.length}-`, 'if-range': `"sha256-${csv.sha256}"` })).arrayBuffer());
    expect(createHash('sha256').update(Buffer.concat([have, rest])).digest('hex')).toBe(csv.sha256);
  });

  it('any name with the right extension reaches the file; the name in Content-Disposition is always the listed one', async () => {
    const res = await get(csv.path.replace(/[^/]+$/, 'my-copy.csv'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${csv.path.split('/').pop()}"`);
    await res.arrayBuffer();
  });
});

describe('what is not served', () => {
  const notFound = async (path: string) => {
    const res = await get(path);
    expect(res.status, path).toBe(404);
    const body = (await res.json()) as { errors: { code: string; detail: string }[] };
    expect(body.errors[0]!.code).toBe('not_found');
    expect(body.errors[0]!.detail).toContain('/v1/downloads lists every file served now');
  };

  it('an unknown hash, or a listed hash under the other format, is a 404 naming the index', async () => {
    await notFound(`/v1/downloads/files/sha256-${'0'.repeat(64)}/x.csv`);
    await notFound(csv.path.replace(/\.csv$/, '.parquet'));
    await notFound('/v1/downloads/files/not-a-hash/x.csv');
  });

  it('a superseded file still on disk is not served', async () => {
    // In a folder of the test's own, beside the listed files: the shared fixture's folder stays as ingest wrote it.
    const dir = await mkdtemp(join(tmpdir(), 'tributary-superseded-'));
    try {
      await cp(fixture.filesDir, dir, { recursive: true });
      const old = Buffer.from('Id,DOI\r\n1,10.0/old\r\n');
      const hex = createHash('sha256').update(old).digest('hex');
      await writeFile(join(dir, datasetFileName(hex, 'csv')), old);
      const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, filesDir: dir });
      const res = await app.request(`/v1/downloads/files/sha256-${hex}/old.csv`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('not_found');
      expect((await app.request(csv.path)).status).toBe(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an extension that is no format is a 406 listing the formats', async () => {
    const res = await get(csv.path.replace(/\.csv$/, '.xlsx'));
    expect(res.status).toBe(406);
    const body = (await res.json()) as { errors: { code: string; detail: string }[] };
    expect(body.errors[0]!.detail).toContain('.parquet (application/vnd.apache.parquet), .csv (text/csv), .comparisons.parquet (application/vnd.apache.parquet)');
  });

  it('POST is a 405 naming GET', async () => {
    const res = await get(csv.path, {}, 'POST');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('where the files are', () => {
  it("with a publication store, from the store's objects/ (filesDir, as main.ts sets it), not beside the database", async () => {
    const store = await mkdtemp(join(tmpdir(), 'tributary-store-files-'));
    try {
      await cp(fixture.filesDir, storeFilesDir(store), { recursive: true });
      const logged: string[] = [];
      const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, filesDir: storeFilesDir(store), logError: (e) => logged.push(String(e)) });
      await rm(join(storeFilesDir(store), datasetFileName(csv.sha256, 'csv')));
      await writeFile(join(storeFilesDir(store), datasetFileName(csv.sha256, 'csv')), csv.bytes.subarray(0, 10));
      // The store's copy is the one opened: cut short, it is refused rather than sent as the listed file.
      expect((await app.request(csv.path)).status).toBe(500);
      expect(logged).toEqual([expect.stringContaining(`has 10 bytes; the publication lists ${csv.bytes.length}`)]);
      await writeFile(join(storeFilesDir(store), datasetFileName(csv.sha256, 'csv')), csv.bytes);
      const res = await app.request(csv.path);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(csv.bytes)).toBe(true);
    } finally {
      await rm(store, { recursive: true, force: true });
    }
  });
});

describe('keys and CORS', () => {
  it('a file download counts as an export (MAX_CONCURRENT_EXPORTS): 429 while one streams, served once it ends', async () => {
    const limited = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, access: { maxConcurrentPerKey: 4, maxConcurrentExports: 1 } }));
    try {
      const controller = new AbortController();
      // ~45 MB the client does not read: the export still streams when the file is asked for.
      const first = await fetch(`${limited.origin}/v1/export/Records?$format=ndjson`, { signal: controller.signal });
      expect(first.status).toBe(200);
      const refused = await fetch(`${limited.origin}${csv.path}`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      await refused.arrayBuffer();
      // HEAD sends no body: it holds no export place.
      expect((await fetch(`${limited.origin}${csv.path}`, { method: 'HEAD' })).status).toBe(200);
      controller.abort();
      await expect.poll(async () => {
        const res = await fetch(`${limited.origin}${csv.path}`);
        await res.arrayBuffer();
        return res.status;
      }, { timeout: 10_000 }).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('asks for a key as every /v1 route does, and takes one', async () => {
    expect((await fetch(`${keyed.origin}${csv.path}`)).status).toBe(401);
    expect((await fetch(`${keyed.origin}/v1/downloads`)).status).toBe(401);
    const res = await fetch(`${keyed.origin}${csv.path}`, { headers: { 'x-api-key': 'files-key', range: 'bytes=0-9' } });
    expect(res.status).toBe(206);
    await res.arrayBuffer();
  });

  it('lets a listed origin read the range headers, and preflights Range', async () => {
    // A browser call without a key may not fetch files while keys are required (api.md, Browsers): it sends one.
    expect((await fetch(`${keyed.origin}${csv.path}`, { headers: { origin: 'https://app.example.org', range: 'bytes=0-9' } })).status).toBe(401);
    const res = await fetch(`${keyed.origin}${csv.path}`, { headers: { origin: 'https://app.example.org', range: 'bytes=0-9', 'x-api-key': 'files-key' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/ETag.*Content-Disposition.*Content-Range.*Accept-Ranges.*Content-Length/);
    await res.arrayBuffer();
    const preflight = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = request(`${keyed.origin}${csv.path}`, { method: 'OPTIONS', headers: { origin: 'https://app.example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'range' } }, (r) => {
        r.resume();
        resolve({ status: r.statusCode, ...r.headers });
      });
      req.on('error', reject);
      req.end();
    });
    expect(preflight['status']).toBe(204);
    expect(preflight['access-control-allow-headers']).toMatch(/\brange\b/);
  });
});
