import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonArrayStream } from './json-array-stream.js';
import type { Listing, Message } from './messages.js';

function fakeListing(rows: Message[], failAt?: number): Listing & { closed: number } {
  const listing = {
    closed: 0,
    async *[Symbol.asyncIterator]() {
      for (const [i, row] of rows.entries()) {
        if (i === failAt) throw new Error('connection lost');
        yield row;
      }
    },
    async close() {
      listing.closed++;
    },
  };
  return listing;
}

const rows = (n: number): Message[] =>
  Array.from({ length: n }, (_, i) => ({ id: i + 1, text: `m${i + 1} "quoted" ${'x'.repeat(200)}`, date_posted: 'd' }));

afterEach(() => vi.useRealTimers());

describe('jsonArrayStream', () => {
  it.each([0, 1, 2, 500])('writes %i rows as one valid JSON array and closes the listing once', async (n) => {
    const listing = fakeListing(rows(n));
    const body = await new Response(jsonArrayStream(listing, { stallMs: 1000, abort: () => true })).text();
    expect(JSON.parse(body)).toEqual(rows(n));
    expect(listing.closed).toBe(1);
  });

  it('closes the listing when the client cancels', async () => {
    const listing = fakeListing(rows(500));
    const reader = jsonArrayStream(listing, { stallMs: 1000, abort: () => true }).getReader();
    await reader.read();
    await reader.cancel();
    expect(listing.closed).toBe(1);
  });

  it('cuts the connection instead of ending the array when reading fails mid-way', async () => {
    const listing = fakeListing(rows(500), 300);
    const aborted: Error[] = [];
    // Like @hono/node-server, whose reader is cancelled when the destroyed socket closes.
    const abort = (e: Error): boolean => {
      aborted.push(e);
      void reader.cancel();
      return true;
    };
    const reader: ReadableStreamDefaultReader<Uint8Array> = jsonArrayStream(listing, { stallMs: 1000, abort }).getReader();
    let text = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    expect(aborted[0]?.message).toBe('connection lost');
    expect(listing.closed).toBe(1);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('errors the stream when there is no connection to cut', async () => {
    const listing = fakeListing(rows(500), 300);
    await expect(new Response(jsonArrayStream(listing, { stallMs: 1000, abort: () => false })).text()).rejects.toThrow(
      'connection lost',
    );
    expect(listing.closed).toBe(1);
  });

  it('cuts a listing whose client stops reading, freeing the cursor', async () => {
    vi.useFakeTimers();
    const listing = fakeListing(rows(500));
    const aborted: Error[] = [];
    const reader = jsonArrayStream(listing, { stallMs: 5000, abort: (e) => aborted.push(e) > 0 }).getReader();
    await reader.read();
    await vi.advanceTimersByTimeAsync(5000);
    expect(aborted[0]?.message).toMatch(/stalled/);
    expect(listing.closed).toBe(1);
  });
});
