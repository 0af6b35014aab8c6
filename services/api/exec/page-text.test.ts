/**
 * Extract cursors through the whole app, on the real fixture file: a client that follows next links gets exactly
 * the pages the per-page path serves (an app with cursors off, over the same file) and the rows reference SQL
 * gives, in JSON and CSV; cursors open only for clients that page on, stay bounded, expire, and a client that
 * leaves mid-page or for good leaks no query, pipe or connection.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import type { Snapshot } from '../db/snapshot.js';
import { manualClock } from '../testing/manual-clock.js';

const BASE = '/v1/odata/v4';
const IDLE_MS = 400;
// Cursors idle on this clock: a waiting cursor expires when a test advances it, never because the machine was slow.
const clock = manualClock();
type TestApp = { db: Database; app: Hono; logs: string[] };
let withCursors: TestApp;
let without: TestApp;
/** Cursors whose instance cannot allocate what a COPY needs: every cursor fails. */
let starved: TestApp;
/** Cursors whose instance cannot even be created (a memory limit DuckDB rejects): no cursor ever opens. */
let unopenable: TestApp;
let ref: DuckDBConnection;
let refInstance: DuckDBInstance;

beforeAll(async () => {
  const path = inject('apiFixtureDb');
  const make = async (cursors?: { max: number; idleMs: number; memoryLimit?: string }) => {
    const db = await openDatabase(path, cursors ? { cursors: { ...cursors, clock } } : {});
    const logs: string[] = [];
    return { db, logs, app: createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, log: (msg) => logs.push(msg) }) };
  };
  withCursors = await make({ max: 2, idleMs: IDLE_MS });
  without = await make();
  starved = await make({ max: 2, idleMs: IDLE_MS, memoryLimit: '1MB' });
  unopenable = await make({ max: 2, idleMs: IDLE_MS, memoryLimit: 'plenty' });
  refInstance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  ref = await refInstance.connect();
});
afterAll(async () => {
  ref.closeSync();
  refInstance.closeSync();
  await withCursors.db.close();
  await without.db.close();
  await starved.db.close();
  await unopenable.db.close();
});

function url(resource: string, options: Record<string, string | number>): string {
  return `${BASE}/${resource}?${Object.entries(options)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&')}`;
}

/** The snapshot the cursor app serves from (released at once: only its counters are read). */
function snapshot(): Snapshot {
  const { snapshot, release } = withCursors.db.acquire();
  release();
  return snapshot;
}

async function settle(): Promise<void> {
  const s = snapshot();
  for (let i = 0; i < 150 && (s.cursorsOpen > 0 || s.pipesInUse > 0 || s.running > 0); i++) await new Promise((r) => setTimeout(r, 20));
}

/** The next link of a page, as a path and query (JSON from the body, CSV from the Link header). */
function nextOf(res: Response, text: string): string | undefined {
  const link = res.headers.get('link');
  const target = link ? /<(.*?)>; rel="next"/.exec(link)?.[1] : undefined;
  if (res.headers.get('content-type')?.startsWith('application/json')) expect(JSON.parse(text)['@odata.nextLink']).toBe(target);
  return target ? new URL(target).pathname + new URL(target).search : undefined;
}

/** Follows next links on `on` (the cursor app); each page must be byte for byte the page the cursor-less app serves. */
async function extract(first: string, onPage?: (page: number) => void, on = withCursors): Promise<{ texts: string[]; pages: number }> {
  const texts: string[] = [];
  let next: string | undefined = first;
  while (next) {
    const res = await on.app.request(next);
    const text = await res.text();
    expect(res.status).toBe(200);
    const plain = await (await without.app.request(next)).text();
    expect(text === plain, `page ${texts.length + 1} differs from the per-page path`).toBe(true);
    texts.push(text);
    onPage?.(texts.length);
    next = nextOf(res, text);
  }
  return { texts, pages: texts.length };
}

async function refIds(where: string): Promise<number[]> {
  const cols = (await ref.runAndReadAll(`SELECT Id FROM observations${where ? ` WHERE ${where}` : ''} ORDER BY Id`)).getColumns();
  return (cols[0] ?? []).map(Number);
}

describe('extract cursors', () => {
  it('JSON: every page equals the per-page path and the rows are the reference rows; a cursor serves from page 2', async () => {
    const filter = "CharacteristicName in ('pH','Temperature, water')";
    const open: number[] = [];
    const got = await extract(url('Records', { $filter: filter, $top: 700 }), () => open.push(snapshot().cursorsOpen));
    const rows = got.texts.flatMap((t) => JSON.parse(t).value as { Id: number }[]);
    expect(rows.map((r) => r.Id)).toEqual(await refIds(`CharacteristicName IN ('pH','Temperature, water')`));
    expect(got.pages).toBeGreaterThan(3);
    // Page 1 hands out a link; from page 2 on one cursor waits between pages; the last page closes it.
    expect(open.slice(0, -1)).toEqual([0, ...Array(got.pages - 2).fill(1)]);
    await settle();
    expect(snapshot().cursorsOpen).toBe(0);
  });

  it('CSV, with $select: the same pages as the per-page path', async () => {
    const got = await extract(url('Observations', { $select: 'Id,ResultValue,ResultComment,ActivityStartDate', $format: 'csv', $top: 4000 }));
    const ids = got.texts.flatMap((t) => t.split('\r\n').slice(1, -1).map((line) => Number(line.split(',')[0])));
    expect(ids).toEqual(await refIds(''));
    await settle();
    expect(snapshot().cursorsOpen).toBe(0);
  });

  it('a page requested out of the blue (a $skiptoken nobody handed out) gets no cursor', async () => {
    const res = await withCursors.app.request(url('Records', { $top: 100, $skiptoken: 'Id:5000' }));
    expect(JSON.parse(await res.text()).value[0].Id).toBe(5001);
    expect(snapshot().cursorsOpen).toBe(0);
  });

  it('region filters and sorted pages read per page', async () => {
    await extract(url('Records', { $filter: "RegionId eq 'admin.4.ca.ab'", $select: 'Id', $top: 2000 }));
    expect(snapshot().cursorsOpen).toBe(0);
  });

  it('a client that stops following: its cursor expires and lets go of everything', async () => {
    const first = await withCursors.app.request(url('Records', { $top: 1000 }));
    const second = await withCursors.app.request(nextOf(first, await first.text())!);
    const third = await withCursors.app.request(nextOf(second, await second.text())!);
    await third.text();
    expect(snapshot().cursorsOpen).toBe(1);
    expect(snapshot().cursors?.size).toBe(1);
    clock.advance(IDLE_MS - 1);
    expect(snapshot().cursors?.size).toBe(1);
    clock.advance(1);
    await settle();
    expect({ open: snapshot().cursorsOpen, pipes: snapshot().pipesInUse, running: snapshot().running }).toEqual({ open: 0, pipes: 0, running: 0 });
  });

  it('a client that leaves mid-page closes its cursor; asking for the same link again still gives the right page', async () => {
    const first = await withCursors.app.request(url('Records', { $top: 5000 }));
    const second = await withCursors.app.request(nextOf(first, await first.text())!);
    const link = nextOf(second, await second.text())!;
    expect(snapshot().cursorsOpen).toBe(1);
    const abort = new AbortController();
    const cut = await withCursors.app.request(link, { signal: abort.signal });
    const reader = cut.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.cancel();
    await settle();
    expect(snapshot().cursorsOpen).toBe(0);
    const again = await (await withCursors.app.request(link)).text();
    expect(again === (await (await without.app.request(link)).text())).toBe(true);
  });

  it('at most CURSOR_CACHE_SIZE cursors wait; clients whose cursor was evicted still get the right pages; none runs out of memory', async () => {
    const filters = ["CharacteristicName eq 'pH'", "ActivityMediaName eq 'Surface Water'", 'ActivityStartYear ge 2015', "CharacteristicName ne 'pH'"];
    let next = filters.map((f) => url('Observations', { $filter: f, $top: 500 }) as string | undefined);
    const seen = filters.map(() => [] as number[]);
    let max = 0;
    while (next.some(Boolean)) {
      for (let i = 0; i < next.length; i++) {
        if (!next[i]) continue;
        const res = await withCursors.app.request(next[i]!);
        const text = await res.text();
        expect(res.status, text).toBe(200);
        seen[i]!.push(...(JSON.parse(text).value as { Id: number }[]).map((r) => r.Id));
        max = Math.max(max, snapshot().cursors!.size);
        next[i] = nextOf(res, text);
      }
    }
    expect(max).toBe(2);
    // Three cursors open at once (two waiting, one reading): with a fixed 64MB the third failed to allocate and
    // its page was finished from its window. The cursor instance's limit grows with the cursors open.
    expect(withCursors.logs).toEqual([]);
    const where = ["CharacteristicName = 'pH'", "ActivityMediaName = 'Surface Water'", 'ActivityStartYear >= 2015', "CharacteristicName <> 'pH'"];
    for (let i = 0; i < where.length; i++) expect(seen[i]).toEqual(await refIds(where[i]!));
    await settle();
    expect(snapshot().cursorsOpen).toBe(0);
  });

  it('a cursor that fails loses no page: the rows it did not send come from the page window', async () => {
    expect((await extract(url('Records', { $top: 3000 }), undefined, starved)).pages).toBe(10);
    // Served all the same, but an operator is told: a cursor that keeps failing costs every extract its speed.
    expect(starved.logs.length).toBeGreaterThan(0);
    expect(starved.logs[0]).toMatch(/extract cursor (closed|not opened).*own window/);
    const { snapshot, release } = starved.db.acquire();
    release();
    expect({ open: snapshot.cursorsOpen, pipes: snapshot.pipesInUse }).toEqual({ open: 0, pipes: 0 });
  });

  it('a cursor that cannot open leaves every page to its window', async () => {
    expect((await extract(url('Observations', { $filter: "CharacteristicName ne 'pH'", $top: 2500 }), undefined, unopenable)).pages).toBeGreaterThan(3);
    expect(unopenable.logs.some((m) => /extract cursor not opened.*own window.*config/is.test(m))).toBe(true);
    const { snapshot, release } = unopenable.db.acquire();
    release();
    expect({ open: snapshot.cursorsOpen, pipes: snapshot.pipesInUse, running: snapshot.running }).toEqual({ open: 0, pipes: 0, running: 0 });
    await expect(snapshot.openCursor({ sql: 'SELECT 1', params: [] })).rejects.toThrow(/config/i);
  });
});
