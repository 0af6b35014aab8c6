/**
 * Cursors on a real DuckDB file and real named pipes: pages taken one after another are exactly the query's rows,
 * read-ahead is bounded (DuckDB's writer blocks), and every way a page can go wrong closes the cursor and lets go
 * of its COPY.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startPipeCopy, startThreadedPipeCopy } from './copy-text.js';
import { openCursor, type Cursor } from './cursor.js';
import { createPipePool, type PipePool } from './pipe-pool.js';
import type { CompiledQuery } from '../../query/sql.js';

let instance: DuckDBInstance;
let pipes: PipePool;
let open = 0;
/** How the pipe is read: on the event loop (pages) or by a thread of its own (what cursors use). */
let start: typeof startPipeCopy | typeof startThreadedPipeCopy = startPipeCopy;
beforeAll(async () => {
  instance = await DuckDBInstance.create(inject('apiFixtureDb'), { access_mode: 'READ_ONLY', threads: '1' });
  pipes = createPipePool();
});
afterAll(() => {
  instance.closeSync();
  pipes.close();
});

/** Framed rows with text a frame must survive: quotes, commas, newlines, \x01 and non-ASCII, ~1 KB each. */
const TEXT = `concat('{"Id":', i, ',"t":"a \\"b\\", c', chr(10), chr(1), ' é水', repeat('x', 1000), '"}')`;
const framed = (from: number, to: number): CompiledQuery => ({
  sql: `SELECT i AS id, strlen(r) AS n, r AS row FROM (SELECT i, ${TEXT} AS r FROM range($1::BIGINT, $2::BIGINT) t(i))`,
  params: [BigInt(from), BigInt(to)],
});

async function cursorOn(q: CompiledQuery, readAhead?: number): Promise<{ cursor: Cursor; done: Promise<number> }> {
  const conn = await instance.connect();
  const pipe = await pipes.acquire();
  const copy = start(conn, q, pipe, '\n');
  open++;
  const cursor = openCursor(
    copy,
    () => {
      open--;
      conn.closeSync();
      pipes.release(pipe);
    },
    readAhead,
  );
  return { cursor, done: copy.done };
}

async function expectedText(from: number, to: number): Promise<string> {
  const conn = await instance.connect();
  const rows = (await conn.runAndReadAll(`SELECT ${TEXT} FROM range($1::BIGINT, $2::BIGINT) t(i) ORDER BY i`, [BigInt(from), BigInt(to)])).getColumns()[0]!;
  conn.closeSync();
  return rows.map((r) => `${String(r)},`).join('');
}

const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => BigInt(from + i));

async function read(source: AsyncGenerator<Uint8Array, number>): Promise<{ text: string; rows: number }> {
  const parts: Uint8Array[] = [];
  for (let r = await source.next(); ; r = await source.next()) {
    if (r.done) return { text: Buffer.concat(parts).toString('utf8'), rows: r.value };
    parts.push(r.value);
  }
}

const comma = Buffer.from(',');
/** Whether `p` settles within 300 ms (for a COPY that must stay blocked). */
const settled = (p: Promise<unknown>) => Promise.race([p.then(() => true, () => true), new Promise((r) => setTimeout(() => r(false), 300))]);

describe.each([
  ['the event loop', startPipeCopy],
  ['a thread of its own', startThreadedPipeCopy],
] as const)('openCursor, the pipe read by %s', (_, reader) => {
  beforeAll(() => {
    start = reader;
  });

  it('hands out consecutive pages that are exactly the rows, in order, text untouched', async () => {
    const { cursor, done } = await cursorOn(framed(1, 30_001));
    for (const [from, to] of [
      [1, 10_001],
      [10_001, 10_002],
      [10_002, 30_001],
    ] as const) {
      const page = await read(cursor.page(ids(from, to), comma));
      expect(page.rows).toBe(to - from);
      expect(page.text === (await expectedText(from, to))).toBe(true);
    }
    expect(await done).toBe(30_000);
    await cursor.close();
    expect(open).toBe(0);
  });

  it('reads ahead only so far: the COPY waits for the next page instead of running to the end', async () => {
    const { cursor, done } = await cursorOn(framed(1, 50_001), 256 * 1024);
    await read(cursor.page(ids(1, 101), comma));
    expect(await settled(done)).toBe(false); // ~50 MB of rows, 256 KiB read ahead: DuckDB's writer is blocked
    await read(cursor.page(ids(101, 50_001), comma));
    expect(await done).toBe(50_000);
    await cursor.close();
  });

  it('a row whose Id is not the one phase one found fails the page and closes the cursor', async () => {
    const { cursor } = await cursorOn(framed(1, 1_001));
    const wrong = ids(1, 11);
    wrong[5] = 99n;
    await expect(read(cursor.page(wrong, comma))).rejects.toThrow('cursor row 5 has Id 6 where phase one found 99');
    expect(cursor.closed).toBe(true);
    await cursor.close();
    expect(open).toBe(0);
    await expect(read(cursor.page(ids(1, 2), comma))).rejects.toThrow('cursor is closed');
  });

  it('a consumer that stops mid-page closes the cursor and interrupts its COPY', async () => {
    const { cursor, done } = await cursorOn(framed(1, 50_001));
    const page = cursor.page(ids(1, 50_001), comma);
    await page.next();
    await page.return(0);
    expect(cursor.closed).toBe(true);
    await expect(done).rejects.toThrow(/INTERRUPT/i);
    await cursor.close();
    expect(open).toBe(0);
  });

  it('an aborted request stops its page and closes the cursor', async () => {
    const { cursor } = await cursorOn(framed(1, 50_001));
    const abort = new AbortController();
    const page = cursor.page(ids(1, 50_001), comma, abort.signal);
    await page.next();
    abort.abort(new Error('client went away'));
    await expect(read(page)).rejects.toThrow('client went away');
    await cursor.close();
    expect(open).toBe(0);
  });

  it('a result that ends before the planned rows fails the page', async () => {
    const { cursor } = await cursorOn(framed(1, 11));
    await expect(read(cursor.page(ids(1, 21), comma))).rejects.toThrow('cursor ended after 10 of 20 rows');
    await cursor.close();
    expect(open).toBe(0);
  });

  it('a COPY that fails fails the page', async () => {
    const { cursor } = await cursorOn({ sql: `SELECT i AS id, 1 AS n, CAST('x' || i AS INTEGER)::VARCHAR AS row FROM range(1, 5) t(i)`, params: [] });
    await expect(read(cursor.page(ids(1, 5), comma))).rejects.toThrow(/Conversion Error|Could not convert/);
    await cursor.close();
    expect(open).toBe(0);
  });
});
