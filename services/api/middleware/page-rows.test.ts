/**
 * Pages metered by their rows (issue 46): a page costs what it returns, at least the floor; a client paging without
 * pause is held back to the rate, never refused; tiny pages are bounded by the floor. A frozen or manual clock, so
 * no bucket refills behind the test's back.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ApiError, errorBody } from '../errors.js';
import { servesRows } from '../http/served-rows.js';
import { pageRows, type PageRowsOptions } from './page-rows.js';

/** A page route whose handler serves `?rows=` rows. */
function app(opts: PageRowsOptions): Hono {
  const api = new Hono();
  api.get('/page', pageRows(opts), (c) => {
    const rows = Number(c.req.query('rows'));
    servesRows(c, rows);
    return c.text('x'.repeat(rows));
  });
  api.onError((err, c) => (err instanceof ApiError ? c.json(errorBody(err, undefined), err.status as 429, err.headers) : c.text('internal', 500)));
  return api;
}

describe('pageRows', () => {
  it('charges the rows a page returns: a budget of 1,000 rows serves one 1,000-row page, or ten 100-row pages, then 429 in rows', async () => {
    const big = app({ rps: 100, burst: 1000, minRows: 10, now: () => 0 });
    expect((await big.request('/page?rows=1000')).status).toBe(200);
    const refused = await big.request('/page?rows=1');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-limit')).toBe('1000');
    expect(((await refused.json()) as { message: string }).message).toMatch(/^Too many rows: this API sends each key 100 rows per second \(bursts of 1000\), each request counting at least 10\./);

    const small = app({ rps: 100, burst: 1000, minRows: 10, now: () => 0 });
    for (let i = 0; i < 10; i++) expect((await small.request('/page?rows=100')).status).toBe(200);
    expect((await small.request('/page?rows=100')).status).toBe(429);
  });

  it('counts a tiny page as the floor, so tiny pages cannot flood', async () => {
    const api = app({ rps: 100, burst: 1000, minRows: 250, now: () => 0 });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await api.request('/page?rows=1')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it('an export draws the floor alone, however many rows it streams', async () => {
    const api = app({ rps: 100, burst: 1000, minRows: 500, now: () => 0, perRequest: true });
    expect((await api.request('/page?rows=100000')).status).toBe(200);
    expect((await api.request('/page?rows=100000')).status).toBe(200);
    expect((await api.request('/page?rows=1')).status).toBe(429);
  });

  it('holds a client that pages without pause to the rate instead of refusing it', async () => {
    let now = 0;
    const api = app({ rps: 100_000, burst: 1000, minRows: 10, maxWaitMs: 1000, now: () => now });
    // Each 1,000-row page empties the bucket; the next is held a few milliseconds for its rows, well within the wait.
    for (let i = 0; i < 5; i++) {
      expect((await api.request('/page?rows=1000')).status).toBe(200);
      now += 1;
    }
  });
});
