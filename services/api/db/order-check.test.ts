/**
 * The order checks on the real fixture file. The physical order check on a shuffled copy: db/ordering.test.ts.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openSnapshot, type Snapshot } from './snapshot.js';

let snapshot: Snapshot;
beforeAll(async () => {
  snapshot = await openSnapshot(inject('apiFixtureDb'));
});
afterAll(() => snapshot.close());

describe('Snapshot.keepsOrder', () => {
  // Regression: the answer was cached per SQL text, so a window covering the whole table (planned as a bare scan
  // under a STREAMING_LIMIT: no) sent every later region page with the same text to the sorted path.
  it('a no for one set of values is not remembered for other values of the same SQL text', async () => {
    const max = (await snapshot.columns({ sql: 'SELECT max("Id") AS m FROM observations', params: [] }))['m']![0] as bigint;
    const sql = 'SELECT t."Id" FROM "observations" t WHERE t."Id" BETWEEN CAST($1 AS BIGINT) AND CAST($2 AS BIGINT) LIMIT 10000';
    expect(await snapshot.keepsOrder({ sql, params: [0n, max] })).toBe(false);
    expect(await snapshot.keepsOrder({ sql, params: [5_000n, max] })).toBe(true);
  });

  it('a join, a union or an aggregate does not keep stored order', async () => {
    const where = `WHERE t."ActivityStartYear" >= 2012 LIMIT 100`;
    expect(await snapshot.keepsOrder({ sql: `SELECT t."Id" FROM "observations" t ${where}`, params: [] })).toBe(true);
    expect(
      await snapshot.keepsOrder({ sql: `SELECT t."Id" FROM "observations" t JOIN "locations" l ON l."Id" = t."LocationId" ${where}`, params: [] }),
    ).toBe(false);
    expect(
      await snapshot.keepsOrder({ sql: `SELECT "Id" FROM (SELECT "Id" FROM "observations" UNION ALL SELECT "Id" FROM "locations") LIMIT 100`, params: [] }),
    ).toBe(false);
    expect(await snapshot.keepsOrder({ sql: `SELECT "LocationId", count(*) FROM "observations" GROUP BY 1 LIMIT 100`, params: [] })).toBe(false);
  });
});
