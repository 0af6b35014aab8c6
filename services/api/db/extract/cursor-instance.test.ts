/** The cursor instance on the real fixture file: its memory limit follows the cursors open, and it closes cleanly. */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, inject, it } from 'vitest';
import type { Cursor } from './cursor.js';
import { createCursorInstance, cursorMemoryLimitMB } from './cursor-instance.js';
import { createPipePool } from './pipe-pool.js';
import { openSnapshot } from '../snapshot.js';

const framed = (after: number) => ({ sql: `SELECT "Id" AS id, strlen("DOI") AS n, "DOI" AS row FROM observations WHERE "Id" > ${after}`, params: [] });

/** How DuckDB reports a limit once set (it shows MiB): measured on an instance of its own. */
async function reported(limit: string): Promise<string> {
  const instance = await DuckDBInstance.create(':memory:', { memory_limit: limit });
  const conn = await instance.connect();
  try {
    return String((await conn.runAndReadAll(`SELECT current_setting('memory_limit') AS m`)).getColumnsObject()['m']![0]);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('cursorMemoryLimitMB', () => {
  it('is 64MB for the first cursor and 32MB more for each further one open', () => {
    // 64MB: 32MB failed one COPY's 16 MiB allocation; +32MB each: a fixed 64MB made the third of three fail.
    expect([0, 1, 2, 3, 4].map(cursorMemoryLimitMB)).toEqual([64, 64, 96, 128, 160]);
  });
});

describe('the cursor instance', () => {
  it('sets its memory limit for the cursors open, up as they open and down as they close', async () => {
    const pipes = createPipePool();
    const instance = createCursorInstance(inject('apiFixtureDb'), pipes, { config: { access_mode: 'READ_ONLY' } });
    const cursors: Cursor[] = [];
    for (let i = 0; i < 3; i++) {
      cursors.push(await instance.open(framed(i)));
      expect(instance.opened).toBe(i + 1);
      expect(await instance.memoryLimit()).toBe(await reported(`${cursorMemoryLimitMB(i + 1)}MB`));
    }
    await cursors.pop()!.close();
    await cursors.pop()!.close();
    // The resize after a close runs in the background, chained after the one before it.
    const one = await reported('64MB');
    let limit = await instance.memoryLimit();
    for (let i = 0; i < 50 && limit !== one; i++) {
      await new Promise((r) => setTimeout(r, 20));
      limit = await instance.memoryLimit();
    }
    expect(limit).toBe(one);
    await instance.close(() => cursors[0]!.close());
    expect(instance.opened).toBe(0);
    await expect(instance.open(framed(0))).rejects.toThrow('is closed');
    pipes.close();
  });

  it('a fixed limit (CURSOR memoryLimit) is kept whatever the number open', async () => {
    const pipes = createPipePool();
    const instance = createCursorInstance(inject('apiFixtureDb'), pipes, { config: { access_mode: 'READ_ONLY' }, memoryLimit: '200MB' });
    const a = await instance.open(framed(0));
    const b = await instance.open(framed(1));
    expect(await instance.memoryLimit()).toBe(await reported('200MB'));
    await instance.close(async () => {
      await a.close();
      await b.close();
    });
    pipes.close();
  });

  it('a snapshot closed with cursors waiting lets go cleanly while their memory limit is being resized', async () => {
    // Each cursor that closes resizes the cursor instance's memory limit on a connection of its own; close() must
    // wait for that before closing the instance (a connection opened on a closing instance crashed the process).
    for (let round = 0; round < 15; round++) {
      const own = await openSnapshot(inject('apiFixtureDb'), { cursors: { max: 4, idleMs: 60_000 } });
      for (let i = 0; i < 3; i++) {
        await own.cursors!.keep(await own.openCursor({ sql: `SELECT "Id" AS id, strlen("DOI") AS n, "DOI" AS row FROM observations WHERE "Id" > ${i}`, params: [] }), { sql: `k${i}`, params: [] });
      }
      await own.close();
      expect(own.cursorsOpen).toBe(0);
    }
  });
});
