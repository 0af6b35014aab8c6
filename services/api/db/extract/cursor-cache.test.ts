/** The cursor cache's bookkeeping, with real cursors on the fixture file (exec/page-text.test.ts covers its use). */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CursorCache } from './cursor-cache.js';
import { openSnapshot, type Snapshot } from '../snapshot.js';
import { manualClock } from '../../testing/manual-clock.js';

let snapshot: Snapshot;
beforeAll(async () => {
  snapshot = await openSnapshot(inject('apiFixtureDb'));
});
afterAll(() => snapshot.close());

const cursor = () => snapshot.openCursor({ sql: `SELECT "Id" AS id, strlen("DOI") AS n, "DOI" AS row FROM observations`, params: [] });
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('CursorCache', () => {
  it('take hands a stored cursor out once; the same key put twice keeps the newer and closes the older', async () => {
    const cache = new CursorCache({ max: 4, idleMs: 60_000 });
    const [a, b] = [await cursor(), await cursor()];
    cache.put('k', a);
    cache.put('k', b);
    expect(a.closed).toBe(true);
    expect(cache.take('k')).toBe(b);
    expect(cache.take('k')).toBeUndefined();
    await b.close();
  });

  it('keeps at most max cursors, closing the least recently stored', async () => {
    const cache = new CursorCache({ max: 2, idleMs: 60_000 });
    const cs = [await cursor(), await cursor(), await cursor()];
    cs.forEach((c, i) => cache.put(`k${i}`, c));
    expect(cs.map((c) => c.closed)).toEqual([true, false, false]);
    expect(cache.size).toBe(2);
    await cache.close();
    expect(cs.every((c) => c.closed)).toBe(true);
  });

  it('closes a cursor nobody takes within idleMs, and only then', async () => {
    const clock = manualClock();
    const cache = new CursorCache({ max: 2, idleMs: 50, clock });
    const c = await cursor();
    cache.put('k', c);
    clock.advance(49);
    expect([c.closed, cache.size]).toEqual([false, 1]);
    clock.advance(1);
    expect(c.closed).toBe(true);
    expect(cache.size).toBe(0);
  });

  it('a cursor taken before its time is not closed by its old timer', async () => {
    const clock = manualClock();
    const cache = new CursorCache({ max: 2, idleMs: 50, clock });
    const c = await cursor();
    cache.put('k', c);
    expect(cache.take('k')).toBe(c);
    clock.advance(100);
    expect(c.closed).toBe(false);
    await c.close();
  });

  it('a handed-out link counts as followed once, and only within idleMs', () => {
    const clock = manualClock();
    const cache = new CursorCache({ max: 2, idleMs: 50, clock });
    cache.issue('a');
    cache.issue('b');
    clock.advance(50);
    expect(cache.followed('a')).toBe(true);
    expect(cache.followed('a')).toBe(false);
    expect(cache.followed('never')).toBe(false);
    clock.advance(1);
    expect(cache.followed('b')).toBe(false);
  });

  it('after close, a cursor put back is closed at once; the snapshot then has no cursor left open', async () => {
    const cache = new CursorCache({ max: 2, idleMs: 60_000 });
    await cache.close();
    const c = await cursor();
    cache.put('k', c);
    expect(c.closed).toBe(true);
    await c.close();
    expect(snapshot.cursorsOpen).toBe(0);
    expect(snapshot.pipesInUse).toBe(0);
  });

  it('closing a snapshot closes the cursors waiting in its cache', async () => {
    const own = await openSnapshot(inject('apiFixtureDb'), { cursors: { max: 2, idleMs: 60_000 } });
    own.cursors!.keep(await own.openCursor({ sql: `SELECT "Id" AS id, strlen("DOI") AS n, "DOI" AS row FROM observations`, params: [] }), { sql: 'k', params: [] });
    expect(own.cursorsOpen).toBe(1);
    own.close();
    for (let i = 0; i < 100 && own.cursorsOpen > 0; i++) await wait(20);
    expect(own.cursorsOpen).toBe(0);
    await expect(own.openCursor({ sql: 'SELECT 1 AS id, 1 AS n, 1 AS row', params: [] })).rejects.toThrow('is closed');
  });
});
