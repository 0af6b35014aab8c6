import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createApp } from './app.js';
import { openDatabase, type Database } from './db/database.js';

let db: Database;
let draining = false;
beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
});
afterAll(() => db.close());

it('/readyz answers 503 once the process drains, so the load balancer stops routing to it', async () => {
  const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, draining: () => draining });
  expect((await app.request('/readyz')).status).toBe(200);
  draining = true;
  const res = await app.request('/readyz');
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect((await res.json()).errors[0].code).toBe('unavailable');
  expect((await app.request('/healthz')).status).toBe(200);
});

it('/readyz names the publication served, and every collection response carries it as its ETag', async () => {
  const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false } });
  const ready = (await (await app.request('/readyz')).json()) as { publication: string };
  expect(ready.publication).toMatch(/^\d{8}T\d{9}Z-[0-9a-f]{8}$/);
  const first = await app.request('/v1/odata/v4/Records?$top=2');
  expect(first.status).toBe(200);
  const etag = first.headers.get('etag');
  expect(etag).toBe(`W/"${ready.publication}"`);

  // Revalidation: the same publication answers 304 with no body; another tag (or none) gets the page.
  const again = await app.request('/v1/odata/v4/Records?$top=2', { headers: { 'If-None-Match': `"other", ${etag}` } });
  expect(again.status).toBe(304);
  expect(await again.text()).toBe('');
  expect(again.headers.get('etag')).toBe(etag);
  expect(again.headers.get('cache-control')).toBe(first.headers.get('cache-control'));
  expect(again.headers.get('vary')).toBe(first.headers.get('vary'));
  expect((await app.request('/v1/odata/v4/Records?$top=2', { headers: { 'If-None-Match': 'W/"20200101T000000000Z-00000000"' } })).status).toBe(200);
  const count = await app.request('/v1/odata/v4/Observations?$count=true');
  expect(count.status).toBe(200);
  expect(count.headers.get('etag')).toBe(etag);
});
