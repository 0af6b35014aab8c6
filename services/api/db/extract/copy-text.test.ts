/**
 * The text path on the real fixture file: DuckDB's COPY writer into a named pipe gives exactly the rows of a
 * plain query, and every way a page can end (read to the end, abandoned, failed mid-way, failed at once)
 * leaves no query running and gives its pipe back.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openSnapshot, type Snapshot } from '../snapshot.js';
import { createPipePool } from './pipe-pool.js';
import type { CompiledQuery } from '../../query/sql.js';

let snapshot: Snapshot;
beforeAll(async () => {
  snapshot = await openSnapshot(inject('apiFixtureDb'));
});
afterAll(() => snapshot.close());

/** Wide rows: 10,000 of them are ~15 MB, far beyond a pipe's 64 KiB buffer. */
const rowsSql = (extra = '') =>
  `SELECT to_json(struct_pack(Id := "Id", c := "CharacteristicName", v := "ResultValue", comments := "ResultComment"))::VARCHAR${extra} AS row FROM observations WHERE "Id" BETWEEN $1 AND $2 ORDER BY "Id"`;
const page = (first: bigint, last: bigint, extra = ''): CompiledQuery => ({ sql: rowsSql(extra), params: [first, last] });

async function collect(source: AsyncGenerator<Uint8Array, number>): Promise<{ text: string; rows: number }> {
  const parts: Uint8Array[] = [];
  for (let r = await source.next(); ; r = await source.next()) {
    if (r.done) return { text: Buffer.concat(parts).toString('utf8'), rows: r.value };
    parts.push(r.value);
  }
}

async function settled(): Promise<void> {
  for (let i = 0; i < 100 && (snapshot.running > 0 || snapshot.pipesInUse > 0); i++) await new Promise((r) => setTimeout(r, 20));
}

describe('Snapshot.copyText', () => {
  it('writes each row as it is, followed by the row end, and reports the row count', async () => {
    const q = page(1n, 10_000n);
    const expected = (await snapshot.columns(q))['row']!.map(String);
    const json = await collect(snapshot.copyText(q, ','));
    expect(json.rows).toBe(10_000);
    expect(json.text).toBe(expected.map((r) => `${r},`).join(''));
    const csv = await collect(snapshot.copyText(q, '\r\n'));
    expect(csv.text).toBe(expected.map((r) => `${r}\r\n`).join(''));
    await settled();
    expect(snapshot.pipesInUse).toBe(0);
  });

  it('keeps text verbatim: quotes, commas, newlines and non-ASCII are not quoted or escaped by the writer', async () => {
    const q: CompiledQuery = { sql: `SELECT $1::VARCHAR AS row FROM range(3)`, params: ['a "b", c\nd \u00e9\u6c34\u0001'] };
    const out = await collect(snapshot.copyText(q, '\r\n'));
    expect(out.text).toBe('a "b", c\nd \u00e9\u6c34\u0001\r\n'.repeat(3));
  });

  it('an empty result writes nothing and counts 0', async () => {
    expect(await collect(snapshot.copyText(page(-10n, -1n), ','))).toEqual({ text: '', rows: 0 });
  });

  it('a consumer that stops after the first bytes interrupts the COPY, and the pipe is reused afterwards', async () => {
    for (let i = 0; i < 3; i++) {
      const source = snapshot.copyText(page(1n, 20_000n), ',');
      const first = await source.next();
      expect(first.done).toBe(false);
      await source.return(0);
      expect(snapshot.running).toBe(0);
      expect(snapshot.pipesInUse).toBe(0);
    }
    // The same pipes serve the next page, complete and correct.
    expect((await collect(snapshot.copyText(page(1n, 500n), ','))).rows).toBe(500);
  });

  it('a consumer that stops before reading anything still releases everything', async () => {
    const source = snapshot.copyText(page(1n, 20_000n), ',');
    await source.return(0);
    await settled();
    expect(snapshot.running).toBe(0);
    expect(snapshot.pipesInUse).toBe(0);
  });

  it('an abort signal mid-page interrupts DuckDB and ends the stream with an error', async () => {
    const ac = new AbortController();
    const source = snapshot.copyText(page(1n, 20_000n), ',', ac.signal);
    await source.next();
    ac.abort();
    await expect(collect(source)).rejects.toThrow(/interrupt/i);
    await settled();
    expect(snapshot.running).toBe(0);
    expect(snapshot.pipesInUse).toBe(0);
  });

  it('a query that fails part-way ends the stream with its error, never with a clean end', async () => {
    // No ORDER BY here: a sort would compute every row (and the error) before writing the first.
    const failing = { ...page(1n, 30_000n, ` || CASE WHEN "Id" > 28000 THEN error('boom at 28000') ELSE '' END`) };
    failing.sql = failing.sql.replace(' ORDER BY "Id"', '');
    const parts: Uint8Array[] = [];
    const source = snapshot.copyText(failing, ',');
    await expect(
      (async () => {
        for (let r = await source.next(); !r.done; r = await source.next()) parts.push(r.value);
      })(),
    ).rejects.toThrow(/boom at 28000/);
    await settled();
    expect(snapshot.running).toBe(0);
    expect(snapshot.pipesInUse).toBe(0);
  });

  it('a query that cannot run fails on the first read, before any byte', async () => {
    const source = snapshot.copyText({ sql: 'SELECT nope AS row FROM observations', params: [] }, ',');
    await expect(source.next()).rejects.toThrow(/nope/);
    await settled();
    expect(snapshot.pipesInUse).toBe(0);
  });
});

describe('createPipePool', () => {
  it('reuses released pipes, drops ones that disappeared, and removes its directory on close', async () => {
    const pool = createPipePool(1);
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect(a).not.toBe(b);
    expect(pool.inUse).toBe(2);
    pool.release(a);
    pool.release(b); // beyond maxIdle: removed
    expect(existsSync(b)).toBe(false);
    expect(await pool.acquire()).toBe(a);
    pool.release(a);
    expect(readdirSync(pool.dir)).toEqual([a.split('/').pop()]);
    pool.close();
    expect(existsSync(pool.dir)).toBe(false);
  });

  it('removes the pipe directories a killed process left, and keeps those of running ones', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    await once(child, 'exit');
    const orphan = mkdtempSync(join(tmpdir(), `tributary-pipes-${child.pid}-`));
    const alive = mkdtempSync(join(tmpdir(), `tributary-pipes-${process.ppid}-`));
    try {
      const pool = createPipePool();
      expect(existsSync(orphan)).toBe(false);
      expect(existsSync(alive)).toBe(true);
      pool.close();
    } finally {
      rmSync(orphan, { recursive: true, force: true });
      rmSync(alive, { recursive: true, force: true });
    }
  });
});
