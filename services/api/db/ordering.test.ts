/**
 * The unordered fast path relies on `observations` being stored in Id order. Regression: a file whose rows
 * are physically shuffled must still page correctly — the snapshot notices at open and every page is then
 * asked for in ORDER BY Id.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from './database.js';

let dir: string;
let shuffled: Database;
let ordered: Database;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-order-'));
  const path = join(dir, 'shuffled.duckdb');
  copyFileSync(inject('apiFixtureDb'), path);
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  await conn.run('CREATE TABLE shuffled AS SELECT * FROM observations ORDER BY hash("Id")');
  await conn.run('DROP TABLE observations');
  await conn.run('ALTER TABLE shuffled RENAME TO observations');
  await conn.run('CREATE TABLE shuffled AS SELECT * FROM guideline_comparisons ORDER BY hash("Id")');
  await conn.run('DROP TABLE guideline_comparisons');
  await conn.run('ALTER TABLE shuffled RENAME TO guideline_comparisons');
  await conn.run('CHECKPOINT');
  conn.closeSync();
  instance.closeSync();
  shuffled = await openDatabase(path);
  ordered = await openDatabase(inject('apiFixtureDb'));
});
afterAll(async () => {
  await shuffled.close();
  await ordered.close();
  rmSync(dir, { recursive: true, force: true });
});

async function allIds(db: Database, filter: string, resource = 'Records', top = 997): Promise<number[]> {
  const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false } });
  const ids: number[] = [];
  let next: string | undefined = `/v1/odata/v4/${resource}?$select=Id&$top=${top}&$filter=${encodeURIComponent(filter)}`;
  while (next) {
    const body = (await (await app.request(next)).json()) as { value: { Id: number }[]; '@odata.nextLink'?: string };
    ids.push(...body.value.map((r) => r.Id));
    next = body['@odata.nextLink'] ? new URL(body['@odata.nextLink']).pathname + new URL(body['@odata.nextLink']).search : undefined;
  }
  return ids;
}

describe('physical order guard', () => {
  it('detects the order at open', () => {
    const a = ordered.acquire();
    const b = shuffled.acquire();
    expect(a.snapshot.inIdOrder.has('observations')).toBe(true);
    expect(b.snapshot.inIdOrder.has('observations')).toBe(false);
    expect(a.snapshot.inIdOrder.has('guideline_comparisons')).toBe(true);
    expect(b.snapshot.inIdOrder.has('guideline_comparisons')).toBe(false);
    expect(b.snapshot.inIdOrder.has('location_summaries')).toBe(true);
    // Small tables are sorted per page: their order is never checked.
    expect(a.snapshot.inIdOrder.has('locations')).toBe(false);
    a.release();
    b.release();
  });

  it.each(["CharacteristicName ne 'pH'", 'ActivityStartYear ge 2015', "RegionId eq 'admin.2.ca'"])(
    'a shuffled file pages to the same rows as the ordered one (%s)',
    async (filter) => {
      const expected = await allIds(ordered, filter);
      expect(expected.length).toBeGreaterThan(997);
      expect(await allIds(shuffled, filter)).toEqual(expected);
    },
  );

  it.each(["Verdict ne 'meets'", "Verdict eq 'exceeds' and CharacteristicName ne 'pH'", 'ActivityStartYear ge 2015'])(
    'a table of its own pages to the same rows by a stored-order scan as shuffled, sorted (GuidelineComparisons, %s)',
    async (filter) => {
      const expected = await allIds(ordered, filter, 'GuidelineComparisons', 97);
      expect(expected.length).toBeGreaterThan(97);
      expect(expected).toEqual([...expected].sort((x, y) => x - y));
      expect(await allIds(shuffled, filter, 'GuidelineComparisons', 97)).toEqual(expected);
    },
  );
});
