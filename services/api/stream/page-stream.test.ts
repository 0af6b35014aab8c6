/**
 * textPageStream on its own: framing across read boundaries, and the checks that keep a wrong page from ever
 * ending like a valid one. (The same path runs on real pipes and sockets in db/extract/copy-text.test.ts and server.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { textPageStream } from './page-stream.js';

async function* reads(parts: readonly string[], rows: number): AsyncGenerator<Uint8Array, number> {
  for (const p of parts) yield Buffer.from(p);
  return rows;
}

async function text(body: ReadableStream<Uint8Array>): Promise<string> {
  return Buffer.from(await new Response(body).arrayBuffer()).toString('utf8');
}

const json = { prefix: '{"value":[', suffix: ']}', trailer: ',' };

describe('textPageStream', () => {
  it('drops exactly the final row separator, wherever the reads split the text', async () => {
    for (const parts of [['{"a":1},{"a":2},'], ['{"a":1},', '{"a":2}', ','], ['{"a', '":1', '},{"a":2},']]) {
      const out = await text(await textPageStream(reads(parts, 2), json, { count: 2 }));
      expect(JSON.parse(out)).toEqual({ value: [{ a: 1 }, { a: 2 }] });
    }
  });

  it('batches a long page into few large writes with nothing lost', async () => {
    const row = `{"x":"${'y'.repeat(1000)}"},`;
    const body = await textPageStream(reads(Array.from({ length: 1000 }, () => row), 1000), json, { count: 1000 });
    const writes: Uint8Array[] = [];
    for await (const w of body as unknown as AsyncIterable<Uint8Array>) writes.push(w);
    expect(JSON.parse(Buffer.concat(writes).toString('utf8')).value).toHaveLength(1000);
    expect(writes.length).toBeLessThan(10);
  });

  it('an empty page is the frame alone', async () => {
    expect(await text(await textPageStream(reads([], 0), json, { count: 0 }))).toBe('{"value":[]}');
  });

  it('fails the stream instead of closing the frame when the row count is not the planned one', async () => {
    const body = await textPageStream(reads(['{"a":1},'], 1), json, { count: 2 });
    await expect(text(body)).rejects.toThrow(/1 rows, 2 planned/);
  });

  it('fails the stream when the text does not end with the row separator', async () => {
    const body = await textPageStream(reads(['{"a":1}'], 1), json, { count: 1 });
    await expect(text(body)).rejects.toThrow(/does not end with/);
  });
});
