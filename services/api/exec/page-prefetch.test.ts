/**
 * Prefetched pages (EXTRACT_PREFETCH=1) through the whole app, on the real fixture file: a client that follows
 * next links gets exactly the pages the per-page path serves, and a client that stops following or leaves
 * mid-page leaks no query, pipe or connection.
 */
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import type { Snapshot } from '../db/snapshot.js';

const BASE = '/v1/odata/v4';
const IDLE_MS = 400;
type TestApp = { db: Database; app: Hono; logs: string[] };
let prefetch: TestApp;
let without: TestApp;

beforeAll(async () => {
  const path = inject('apiFixtureDb');
  const make = async (cursors?: { max: number; idleMs: number; prefetch: boolean }) => {
    const db = await openDatabase(path, cursors ? { cursors } : {});
    const logs: string[] = [];
    return { db, logs, app: createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, log: (msg) => logs.push(msg) }) };
  };
  prefetch = await make({ max: 2, idleMs: IDLE_MS, prefetch: true });
  without = await make();
});
afterAll(async () => {
  await prefetch.db.close();
  await without.db.close();
});

const url = (resource: string, options: Record<string, string | number>) =>
  `${BASE}/${resource}?${Object.entries(options)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&')}`;

function snapshot(): Snapshot {
  const { snapshot, release } = prefetch.db.acquire();
  release();
  return snapshot;
}

async function settle(): Promise<{ pipes: number; running: number }> {
  const s = snapshot();
  for (let i = 0; i < 150 && (s.pipesInUse > 0 || s.running > 0); i++) await new Promise((r) => setTimeout(r, 20));
  return { pipes: s.pipesInUse, running: s.running };
}

function nextOf(res: Response): string | undefined {
  const target = /<(.*?)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  return target ? new URL(target).pathname + new URL(target).search : undefined;
}

describe('prefetched pages', () => {
  it.each([
    ['JSON', url('Records', { $filter: "CharacteristicName in ('pH','Temperature, water')", $top: 700 })],
    ['CSV, with $select', url('Observations', { $select: 'Id,ResultValue,ResultComment', $format: 'csv', $top: 4000 })],
  ])('%s: every page equals the per-page path; a page waits prefetched between requests from page 2 on', async (_, first) => {
    const waiting: number[] = [];
    let next: string | undefined = first;
    while (next) {
      const res = await prefetch.app.request(next);
      const text = await res.text();
      expect(text === (await (await without.app.request(next)).text())).toBe(true);
      waiting.push(snapshot().prefetches!.size);
      next = nextOf(res);
    }
    expect(waiting.length).toBeGreaterThan(3);
    // Page 1 hands out its link; each page from page 2 on leaves the next one prefetched; the last one none.
    expect(waiting.slice(0, -1)).toEqual([0, ...Array(waiting.length - 2).fill(1)]);
    expect(await settle()).toEqual({ pipes: 0, running: 0 });
    expect(prefetch.logs).toEqual([]);
  });

  it('a client that stops following: its prefetched page expires and lets go of its query and pipe', async () => {
    let next: string | undefined = url('Records', { $top: 1000 });
    for (let i = 0; i < 3; i++) {
      const res = await prefetch.app.request(next!);
      await res.text();
      next = nextOf(res);
    }
    expect(snapshot().prefetches!.size).toBe(1);
    await new Promise((r) => setTimeout(r, IDLE_MS + 100));
    expect(await settle()).toEqual({ pipes: 0, running: 0 });
    expect(snapshot().prefetches!.size).toBe(0);
  });

  it('a client that leaves mid-page stops its COPY; asking for the same link again still gives the right page', async () => {
    const first = await prefetch.app.request(url('Records', { $top: 5000 }));
    await first.text();
    const second = await prefetch.app.request(nextOf(first)!);
    await second.text();
    const link = nextOf(second)!;
    const abort = new AbortController();
    const cut = await prefetch.app.request(link, { signal: abort.signal });
    const reader = cut.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.cancel();
    expect(await settle()).toEqual({ pipes: 0, running: 0 });
    const again = await (await prefetch.app.request(link)).text();
    expect(again === (await (await without.app.request(link)).text())).toBe(true);
  });
});
