/**
 * The lease on its own, through `app.request()` over a stand-in snapshot that counts its releases: once per
 * request whether the body ends, fails or is cancelled, or nothing streams; the 304 before the handler runs; the
 * deadline; the next-link guard only for a request that continues a next link.
 */
import { Hono, type Context, type Handler } from 'hono';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../db/snapshot.js';
import { ApiError, errorBody } from '../errors.js';
import { PublicationGone } from '../db/database.js';
import { lease, type LeaseDeps } from './lease.js';
import { PUBLICATION_HEADER, type LeaseRule } from './paths.js';

const PAGE: LeaseRule = { etag: 'publication', deadline: 'first-row', continuation: 'cursor' };

function harness(rule: LeaseRule, handler: Handler, deps: Partial<LeaseDeps> = {}) {
  const counts = { acquired: 0, released: 0 };
  const app = new Hono();
  app.get(
    '/data',
    lease(rule, {
      acquire: () => {
        counts.acquired++;
        return { snapshot: { path: 'stand-in' } as Snapshot, publication: 'p1', release: () => void counts.released++ };
      },
      ...deps,
    }),
    handler,
  );
  // As app.ts renders errors: the lease explains a deadline first.
  app.onError((thrown, c) => {
    const err = c.get('lease')?.explain(thrown) ?? thrown;
    const e = err instanceof ApiError ? err : new ApiError('internal', String(err));
    return c.json(errorBody(e), e.status as 400);
  });
  return { app, counts };
}

async function* rows(n: number, fail = false): AsyncGenerator<Uint8Array, void> {
  for (let i = 0; i < n; i++) yield new TextEncoder().encode(`row ${i}\n`);
  if (fail) throw new Error('the query failed mid-stream');
}

/** A body that pulls one row per read and returns the generator when cancelled, as the page writers do. */
function stream(source: AsyncGenerator<Uint8Array, void>): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async pull(controller) {
      const next = await source.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: async () => void (await source.return()),
  });
}

const streaming = (n: number, fail = false) => (c: Context) => c.body(stream(c.get('lease').hold(rows(n, fail))));

describe('the lease', () => {
  it('releases once when the streamed rows end, not before', async () => {
    const { app, counts } = harness(PAGE, streaming(3));
    const res = await app.request('/data');
    expect(counts).toEqual({ acquired: 1, released: 0 });
    expect(await res.text()).toBe('row 0\nrow 1\nrow 2\n');
    expect(counts).toEqual({ acquired: 1, released: 1 });
  });

  it('releases once when the rows fail mid-stream', async () => {
    const { app, counts } = harness(PAGE, streaming(2, true));
    const res = await app.request('/data');
    await expect(res.text()).rejects.toThrow('the query failed mid-stream');
    expect(counts.released).toBe(1);
  });

  it('releases once when the client cancels the body', async () => {
    const { app, counts } = harness(PAGE, streaming(1000));
    const res = await app.request('/data');
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(counts).toEqual({ acquired: 1, released: 1 });
  });

  it('releases at once when nothing streams, and when the handler fails', async () => {
    const ok = harness(PAGE, (c) => c.json({ value: 1 }));
    expect((await ok.app.request('/data')).status).toBe(200);
    expect(ok.counts).toEqual({ acquired: 1, released: 1 });
    const failed = harness(PAGE, () => {
      throw new ApiError('invalid_value', 'no');
    });
    const res = await failed.app.request('/data');
    expect(res.status).toBe(400);
    expect(res.headers.get('etag')).toBeNull();
    expect(failed.counts).toEqual({ acquired: 1, released: 1 });
  });

  it("answers If-None-Match with the publication's 304 before the handler runs; a 2xx carries the ETag and the stages", async () => {
    let ran = 0;
    const { app, counts } = harness({ ...PAGE, cacheControl: 'no-cache' }, (c) => {
      ran++;
      c.get('lease').timing.mark('execute');
      return c.json({});
    });
    const first = await app.request('/data');
    expect(first.headers.get('etag')).toBe('W/"p1"');
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(first.headers.get('server-timing')).toMatch(/^execute;dur=\d+\.\d$/);
    const again = await app.request('/data', { headers: { 'If-None-Match': 'W/"p1"' } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe('W/"p1"');
    expect(again.headers.get('cache-control')).toBe('no-cache');
    expect(ran).toBe(1);
    expect(counts).toEqual({ acquired: 2, released: 2 });
  });

  it("a `content` validator is the handler's: its 304 carries the route's Cache-Control", async () => {
    const { app } = harness({ etag: 'content', deadline: 'none', cacheControl: 'immutable' }, (c) => c.get('lease').notModified('"sha256-ab"') ?? c.text('bytes'));
    const first = await app.request('/data');
    expect([first.status, first.headers.get('etag'), first.headers.get('cache-control')]).toEqual([200, '"sha256-ab"', 'immutable']);
    const again = await app.request('/data', { headers: { 'If-None-Match': '"sha256-ab"' } });
    expect([again.status, again.headers.get('cache-control')]).toEqual([304, 'immutable']);
  });

  it('a first-row deadline stops the query and is answered 504', async () => {
    const waitForAbort = (c: Context) =>
      new Promise<Response>((_, reject) => c.get('lease').signal.addEventListener('abort', () => reject(new Error('interrupted'))));
    const { app, counts } = harness(PAGE, waitForAbort, { queryTimeoutMs: 1 });
    const res = await app.request('/data');
    expect(res.status).toBe(504);
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('query_timeout');
    expect(counts.released).toBe(1);
  });

  it('runs the next-link guard before the snapshot only for a request carrying its route\'s continuation', async () => {
    const order: string[] = [];
    const { app } = harness(PAGE, (c) => (order.push('handler'), c.json({})), { beforeNextLink: async () => void order.push('guard') });
    await app.request('/data?limit=2');
    await app.request('/data?$skiptoken=Id:1');
    expect(order).toEqual(['handler', 'handler']);
    await app.request('/data?limit=2&cursor=10');
    expect(order).toEqual(['handler', 'handler', 'guard', 'handler']);
  });

  it('reads the publication a request pins, skips the guard for it, and answers one that is not served with 410', async () => {
    const pins: (string | undefined)[] = [];
    const guarded: string[] = [];
    const [p1, p2, old, later] = ['20260101T000000000Z-0000aaaa', '20260102T000000000Z-0000bbbb', '20250101T000000000Z-0000cccc', '20270101T000000000Z-0000dddd'];
    const acquire = (pin?: string) => {
      pins.push(pin);
      if (pin === old || pin === later) throw new PublicationGone(pin, p2);
      return { snapshot: { path: 'stand-in' } as Snapshot, publication: pin ?? p2, release: () => {} };
    };
    const { app } = harness(PAGE, (c) => c.json({ publication: c.get('lease').publication }), { acquire, retentionMs: 3_600_000, beforeNextLink: async () => void guarded.push('guard') });
    const pinned = await app.request(`/data?publication=${p1}&cursor=5`);
    expect(await pinned.json()).toEqual({ publication: p1 });
    expect(pinned.headers.get(PUBLICATION_HEADER)).toBe(p1);
    expect(pinned.headers.get('etag')).toBe(`W/"${p1}"`);
    expect(guarded).toEqual([]); // a pinned next link needs no switch first
    expect((await app.request('/data?cursor=5')).headers.get(PUBLICATION_HEADER)).toBe(p2);
    expect(guarded).toEqual(['guard']);

    const gone = await app.request(`/data?publication=${old}&cursor=5`);
    expect(gone.status).toBe(410);
    const body = (await gone.json()) as { message: string; errors: { code: string; source: { parameter: string } }[] };
    expect(body.errors[0]).toMatchObject({ code: 'publication_gone', source: { parameter: 'publication' } });
    expect(body.message).toContain(`Publication ${old} is no longer served: a publication stays readable for 1 h after a newer one replaces it`);
    expect(body.message).toContain(`The current publication is ${p2}: start again from the first page`);

    // Issue 47 item 10: any word was a 410. A malformed id is a 400 before any acquire, one newer than the current a 404.
    for (const word of ['a b', 'anything', 'p1', '20260101T000000000Z-XYZ']) {
      const bad = await app.request(`/data?publication=${encodeURIComponent(word)}`);
      expect([word, bad.status]).toEqual([word, 400]);
    }
    const unknown = await app.request(`/data?publication=${later}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toContain(`No publication ${later}: it is newer than the current one`);
    expect(pins).toEqual([p1, undefined, old, later]);
  });
});
