/** Column widths measured at open, against the widths of every row of the real fixture file. */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources } from '../../../schemas/index.js';
import { ident } from '../query/sql.js';
import { measureWidths, type ColumnWidths } from './column-widths.js';
import { openSnapshot, type Snapshot } from './snapshot.js';

let snapshot: Snapshot;
let widths: ColumnWidths;
beforeAll(async () => {
  snapshot = await openSnapshot(inject('apiFixtureDb'));
  widths = await measureWidths(snapshot.columns);
});
afterAll(() => snapshot.close());

async function fullWidth(table: string, column: string): Promise<number> {
  const cols = await snapshot.columns({ sql: `SELECT avg(strlen(COALESCE(to_json(${ident(column)})::VARCHAR, 'null')))::DOUBLE AS w FROM ${ident(table)}`, params: [] });
  return Math.ceil(cols['w']![0] as number);
}

describe('measureWidths', () => {
  it('measures every served column of every table, and the snapshot keeps what it measured at open', () => {
    for (const r of resources) for (const f of r.fields) expect(widths.get(`${r.table}.${f.column}`), `${r.table}.${f.column}`).toBeGreaterThan(0);
    expect([...snapshot.columnWidths!]).toEqual([...widths]);
  });

  it('datasets (a small table, sampled whole) match the full table exactly', async () => {
    for (const f of resources.find((r) => r.table === 'datasets')!.fields) {
      expect(widths.get(`datasets.${f.column}`), f.column).toBe(await fullWidth('datasets', f.column));
    }
  });

  it('observations, sampled in ten Id windows, are within a third of the full table for the wide columns', async () => {
    for (const column of ['CharacteristicName', 'ResultComment', 'DOI', 'ActivityStartDate', 'ResultValue']) {
      const full = await fullWidth('observations', column);
      const sampled = widths.get(`observations.${column}`)!;
      expect(Math.abs(sampled - full) / full, `${column}: sampled ${sampled}, full ${full}`).toBeLessThan(1 / 3);
    }
  });

  it('tables of their own, sampled in ten windows of stored rows (their Ids are sparse), are within a third of the full table', async () => {
    for (const [table, column] of [['location_summaries', 'CharacteristicName'], ['location_summaries', 'Median'], ['guideline_comparisons', 'Reason'], ['guideline_comparisons', 'Inputs']] as const) {
      const full = await fullWidth(table, column);
      const sampled = widths.get(`${table}.${column}`)!;
      expect(Math.abs(sampled - full) / full, `${table}.${column}: sampled ${sampled}, full ${full}`).toBeLessThan(1 / 3);
    }
  });
});
