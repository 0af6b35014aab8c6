/**
 * Ids of 10^15 and more, on a copy of the fixture file with every observation Id shifted there. A cursor's frame
 * reads Ids as exact JavaScript numbers of at most 15 digits (db/extract/row-frame.ts): such pages are served from
 * their own window, by choice rather than by a cursor that fails on its first row and is logged on every page.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { MAX_FRAMED_ID } from '../db/extract/extract.js';

const SHIFT = MAX_FRAMED_ID;
let dir: string;
let withCursors: { db: Database; app: Hono; logs: string[] };
let without: { db: Database; app: Hono };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-large-ids-'));
  const path = join(dir, 'large-ids.duckdb');
  copyFileSync(inject('apiFixtureDb'), path);
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  await conn.run(`CREATE TABLE shifted AS SELECT * REPLACE ("Id" + ${SHIFT} AS "Id") FROM observations ORDER BY "Id"`);
  await conn.run('DROP TABLE observations');
  await conn.run('ALTER TABLE shifted RENAME TO observations');
  await conn.run(`UPDATE locations SET first_obs_id = first_obs_id + ${SHIFT}, last_obs_id = last_obs_id + ${SHIFT}`);
  await conn.run('CHECKPOINT');
  conn.closeSync();
  instance.closeSync();
  const logs: string[] = [];
  const db = await openDatabase(path, { cursors: { max: 2, idleMs: 60_000 } });
  withCursors = { db, logs, app: createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, log: (m) => logs.push(m) }) };
  const plain = await openDatabase(path);
  without = { db: plain, app: createApp({ acquire: () => plain.acquire(), links: { trustProxy: false } }) };
});
afterAll(async () => {
  await withCursors.db.close();
  await without.db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Ids of 10^15 and more', () => {
  it('an extract that follows next links gets every row, page for page as without cursors, and no cursor is tried', async () => {
    let next: string | undefined = `/v1/odata/v4/Records?$select=Id,CharacteristicName&$top=4000&$filter=${encodeURIComponent("CharacteristicName ne 'pH'")}`;
    const ids: number[] = [];
    let pages = 0;
    while (next) {
      const res = await withCursors.app.request(next);
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expect(text === (await (await without.app.request(next)).text()), `page ${pages + 1}`).toBe(true);
      const body = JSON.parse(text) as { value: { Id: number }[]; '@odata.nextLink'?: string };
      ids.push(...body.value.map((r) => r.Id));
      const link = body['@odata.nextLink'];
      next = link ? new URL(link).pathname + new URL(link).search : undefined;
      pages++;
      const { snapshot, release } = withCursors.db.acquire();
      release();
      expect(snapshot.cursorsOpen).toBe(0);
    }
    expect(pages).toBeGreaterThan(2);
    expect(ids[0]).toBeGreaterThan(Number(SHIFT));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    // Not a failed cursor on every page: none was opened.
    expect(withCursors.logs).toEqual([]);
  });
});
