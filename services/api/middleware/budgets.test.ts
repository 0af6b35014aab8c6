/**
 * Each kind of request draws from its own budget (issue 39): discovery documents never spend the pages' bucket and
 * have a generous one of their own, dataset files are metered by their bytes and have places of their own, and the
 * pages keep the DataStream contract. Through `app.request()` on the fixture file and its dataset files; every
 * request comes from one client (no socket: one address).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { filesFixture, type FilesFixture } from '../testing/files-fixture.js';
import type { AccessOptions } from './access.js';
import { FILE_REQUEST_MIN_BYTES } from './file-bytes.js';

let fixture: FilesFixture;
let db: Database;
/** A dataset's Parquet file, as the manifest lists it. */
let file: { path: string; bytes: number };

beforeAll(async () => {
  fixture = await filesFixture(inject('apiFixtureDb'));
  db = await openDatabase(fixture.path);
  const manifest = (await (await app({}).request('/v1/downloads/manifest.json')).json()) as { files: { path: string; bytes: number }[] };
  file = [...manifest.files].sort((a, b) => b.bytes - a.bytes)[0]!;
});
afterAll(async () => {
  await db?.close();
  await fixture?.close();
});

const app = (access: AccessOptions) => createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, filesDir: fixture.filesDir, access });
const PAGE = '/v1/odata/v4/Records?$top=1&$select=Id';
const DISCOVERY = ['/v1/odata/v4', '/v1/odata/v4/$metadata', '/v1/openapi.json', '/v1/features', '/v1/features/conformance', '/v1/features/api', '/v1/features/collections', '/v1/features/collections/locations', '/v1/features/collections/observations/queryables', '/v1/downloads', '/v1/downloads/manifest.json', '/v1/publications'];
/** A clock that stands still: no bucket refills during the test. */
const frozen = () => 0;

describe('discovery documents', () => {
  it('never spend the pages’ bucket: every document answers while the bucket holds one page, and the page is still served', async () => {
    const api = app({ rateLimit: { rps: 2, burst: 1, now: frozen }, maxConcurrentPerKey: 1 });
    for (const path of [...DISCOVERY, ...DISCOVERY]) expect([path, (await api.request(path)).status]).toEqual([path, 200]);
    expect((await api.request(PAGE)).status).toBe(200);
    expect((await api.request(PAGE)).status).toBe(429);
  });

  it('have a budget of their own: beyond it 429 naming discovery requests, while pages are unaffected', async () => {
    const api = app({ rateLimit: { rps: 2, burst: 4, now: frozen }, discoveryRateLimit: { rps: 0.001, burst: 3 } });
    expect(await Promise.all([0, 1, 2].map(async () => (await api.request('/v1/features')).status))).toEqual([200, 200, 200]);
    const refused = await api.request('/v1/features/collections');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { description: string }).description).toMatch(/^Too many discovery requests .*bursts of 3/);
    expect((await api.request(PAGE)).status).toBe(200);
  });
});

describe('dataset files', () => {
  it('spend no request of the pages’ bucket: HEAD and range reads as an engine sends them, then a page is still served', async () => {
    const api = app({ rateLimit: { rps: 2, burst: 1, now: frozen }, maxConcurrentPerKey: 1, fileBytes: { bytesPerSecond: 2 ** 20, burst: 2 ** 26 }, maxConcurrentFileReads: 4 });
    expect((await api.request(file.path, { method: 'HEAD' })).status).toBe(200);
    for (let at = 0; at < file.bytes; at += 4096) {
      const res = await api.request(file.path, { headers: { range: `bytes=${at}-${Math.min(file.bytes, at + 4096) - 1}` } });
      expect(res.status).toBe(206);
      await res.arrayBuffer();
    }
    expect((await api.request(PAGE)).status).toBe(200);
  });

  it('are metered by their bytes: a range beyond the bytes left is 429 with the seconds until they are, naming the budget', async () => {
    // 1 KiB/s: nothing refills meaningfully while the test runs.
    const api = app({ fileBytes: { bytesPerSecond: 1024, burst: 2 * file.bytes } });
    const whole = `bytes=0-${file.bytes - 1}`;
    const first = await api.request(file.path, { headers: { range: whole } });
    expect(first.status).toBe(206);
    expect((await first.arrayBuffer()).byteLength).toBe(file.bytes);
    // A HEAD costs the minimum: the bucket now holds less than the file.
    expect(file.bytes).toBeGreaterThan(FILE_REQUEST_MIN_BYTES);
    expect((await api.request(file.path, { method: 'HEAD' })).status).toBe(200);
    const refused = await api.request(file.path, { headers: { range: whole } });
    expect(refused.status).toBe(429);
    // What is missing is the HEAD's 16 KiB, at 1 KiB/s.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(14);
    expect(((await refused.json()) as { message: string }).message).toMatch(/^Too many bytes of dataset files: this API sends each key 1 KiB per second of dataset files \(bursts of [\d.]+ KiB\)/);
  });

  it('a client over its bytes is held back within RATE_LIMIT_MAX_WAIT_MS, not refused', async () => {
    const api = app({ fileBytes: { bytesPerSecond: 64 * FILE_REQUEST_MIN_BYTES, burst: FILE_REQUEST_MIN_BYTES }, maxWaitMs: 1000 });
    const statuses = await Promise.all([0, 1, 2, 3].map(async () => (await api.request(file.path, { method: 'HEAD' })).status));
    expect(statuses).toEqual([200, 200, 200, 200]);
  });

  it('hold places of their own (MAX_CONCURRENT_FILE_READS), counted where the other places are; a whole file is also an export’s', async () => {
    const asked: string[] = [];
    let free = true;
    const slots = { tryAcquire: (id: string, max: number) => (asked.push(`${id} ${max}`), free ? () => {} : undefined) };
    const take = async () => ({ allowed: true, remaining: 1, retryAfter: 0, reset: 0 });
    const api = app({ maxConcurrentPerKey: 2, maxConcurrentFileReads: 8, maxConcurrentExports: 1, shared: { take, slots } });
    await (await api.request(file.path, { headers: { range: 'bytes=0-99' } })).arrayBuffer();
    expect(asked).toEqual(['file:unknown 8']);
    await (await api.request(file.path)).arrayBuffer();
    expect(asked.slice(1)).toEqual(['file:unknown 8', 'export:unknown 1']);
    await (await api.request(PAGE)).arrayBuffer();
    expect(asked.slice(3)).toEqual(['unknown 2']);
    free = false;
    const refused = await api.request(file.path, { headers: { range: 'bytes=0-99' } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { message: string }).message).toMatch(/^Too many dataset file requests at once: at most 8 per key/);
  });
});
