/**
 * Which publications a plain DUCKDB_PATH keeps serving after newer ones replace it (schemas/publication-retention.ts):
 * real files renamed over the path as ingest publishes, on a clock the test moves.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, PublicationGone, type Database } from './database.js';

let dir: string;
let path: string;
let serial = 0;
const dbs: Database[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-database-'));
  path = join(dir, 'tributary.duckdb');
});
afterAll(async () => {
  for (const db of dbs) await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Publishes a copy of the fixture carrying publication id `id` over the path, as ingest renames a new file. */
async function publish(id: string): Promise<void> {
  const tmp = join(dir, `next-${serial++}.duckdb`);
  copyFileSync(inject('apiFixtureDb'), tmp);
  const instance = await DuckDBInstance.create(tmp);
  const conn = await instance.connect();
  await conn.run(`UPDATE tributary_meta SET value = '${id}' WHERE key = 'publication_id'`);
  conn.closeSync();
  instance.closeSync();
  renameSync(tmp, path);
}

describe('openDatabase at a plain path', () => {
  it('keeps the three newest publications and those replaced within the retention; an older one is gone, naming the current', async () => {
    let now = 0;
    await publish('p1');
    const db = await openDatabase(path, { retentionMs: 60_000, now: () => now });
    dbs.push(db);
    expect(db.current).toBe('p1');
    for (const id of ['p2', 'p3', 'p4']) {
      now += 10_000;
      await publish(id);
      expect(await db.refresh()).toBe(true);
    }
    expect(db.current).toBe('p4');
    // p1 is past the three newest but was replaced 30 s ago: still served, from its own file.
    const p1 = await db.acquirePinned('p1');
    expect(p1.publication).toBe('p1');
    expect(p1.snapshot).not.toBe(db.acquire().snapshot);
    p1.release();

    now += 50_000; // p1 was replaced 80 s ago
    const gone = db.acquirePinned('p1');
    await expect(gone).rejects.toBeInstanceOf(PublicationGone);
    await expect(gone).rejects.toMatchObject({ publication: 'p1', current: 'p4' });
    // The three newest stay whatever their age; one never published here is gone too.
    now += 3_600_000;
    for (const id of ['p2', 'p3', 'p4']) (await db.acquirePinned(id)).release();
    await expect(db.acquirePinned('p0')).rejects.toBeInstanceOf(PublicationGone);
    expect([...db.open].sort()).toEqual(['p2', 'p3', 'p4']);
  });

  it('a reader of a publication that leaves the retention keeps it to the end; nobody new gets it', async () => {
    let now = 0;
    await publish('q1');
    const db = await openDatabase(path, { retentionMs: 0, now: () => now });
    dbs.push(db);
    const reader = db.acquire();
    for (const id of ['q2', 'q3', 'q4']) {
      now += 1000;
      await publish(id);
      await db.refresh();
    }
    await expect(db.acquirePinned('q1')).rejects.toBeInstanceOf(PublicationGone);
    // Its snapshot is still open for the reader that holds it.
    const rows = await reader.snapshot.columns({ sql: 'SELECT count(*) AS n FROM observations', params: [] });
    expect(Number(rows['n']![0])).toBeGreaterThan(0);
    reader.release();
    expect(db.open).not.toContain('q1');
  });
});
