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
