/**
 * Hostile clients, round two (issue 47): each finding's repro on a real loopback socket, kept as a regression
 * test named for what broke. The app runs with the limits main.ts gives it (keys optional, a query gate, per
 * client places), over the shared fixture file.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './app.js';
import { acquirer, openDatabase, type Database } from './db/database.js';
import { GEOMETRY_LIMITS } from './odata/geometry.js';
import { listen, type TestServer } from './testing/test-server.js';

let db: Database;
let server: TestServer;

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  server = await listen(createApp({ acquire: acquirer(db), links: { trustProxy: false } }));
});
afterAll(async () => {
  await server.close();
  await db.close();
});

/** The API's error body: its status, code and detail (errors.ts). */
async function errorOf(res: Response, status: number, code: string): Promise<{ code: string; detail: string }> {
  expect(res.status).toBe(status);
  const [error] = ((await res.json()) as { errors: { code: string; detail: string }[] }).errors;
  expect(error!.code).toBe(code);
  return error!;
}

/** One request through node:http, whose header limit can be raised past fetch's: for answers whose headers grew. */
function raw(method: string, url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headerBytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, maxHeaderSize: 64 * 1024 * 1024 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headerBytes: res.rawHeaders.reduce((n, h) => n + Buffer.byteLength(h) + 2, 0), body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const items = (collection: string) => `${server.origin}/v1/features/collections/${collection}/items`;

/** A valid comb: teeth across the longitudes one above the other, so every edge spans its whole width. */
function zigzag(n: number, west = -120, east = -100): [number, number][] {
  const teeth = Array.from({ length: n }, (_, i) => [i % 2 === 0 ? west + 1 : east, 40 + i / 1000] as [number, number]);
  return [[west, 40], ...teeth, [west, 40 + n / 1000], [west, 40]];
}

describe('item 1: a polygon check that blocked the server', () => {
  it('refuses seven 10,000-vertex zigzags in one body by the per-filter limit, before checking them all', async () => {
    const polygons = Array.from({ length: 7 }, () => ({ op: 's_intersects', args: [{ property: 'geometry' }, { type: 'Polygon', coordinates: [zigzag(GEOMETRY_LIMITS.maxVertices - 10)] }] }));
    const res = await fetch(items('locations'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: 'or', args: polygons }) });
    expect((await errorOf(res, 400, 'invalid_geometry')).detail).toContain('per filter');
  });

  it('checks one valid zigzag of nearly the limit along the axis where its edges do not overlap', async () => {
    const filter = { op: 's_intersects', args: [{ property: 'geometry' }, { type: 'Polygon', coordinates: [zigzag(GEOMETRY_LIMITS.maxVertices - 10)] }] };
    const res = await raw('POST', items('locations'), { 'content-type': 'application/json' }, JSON.stringify(filter));
    expect(res.status).toBe(200);
  });
});
