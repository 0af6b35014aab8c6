import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnNames } from '../schemas/index.js';
import { comparisonStatTables, statKeys, writeComparisonStats } from './comparison-stats.js';
import { applicableGuidelines } from './guidelines/applicable-guidelines.js';
import { writeComparisons } from './guidelines/comparisons.js';
import { formulaValues } from './guidelines/formula-values.js';
import { formulaDays, inputsByDay } from './guidelines/inputs-by-day.js';
import { addObservations, rowsOf, stepDb, testSummary, type StepDb, type TestObservation } from './guidelines/step-test-support.js';
import { unitConversions } from './guidelines/unit-conversions.js';

/**
 * The statistics step of the guidelines stage: the comparisons counted by their keys into
 * guideline_comparison_stats, and those summed over every year, medium and group into guideline_comparison_totals,
 * against a count of the comparisons' rows made here.
 */

const summary = testSummary([
  { characteristic: 'Zinc', value: '30', unit: 'ug/L' },
  { characteristic: 'Zinc', value: '100', unit: 'ug/L', level: 'Acute' },
  { characteristic: 'Zinc', value: '20', unit: 'ug/L', publisher: 'AB Gov', region: 'CA-AB' },
  { characteristic: 'Zinc', value: '55', unit: 'ug/L', ecosystem: 'Marine' },
]);
const observations: TestObservation[] = [10, 40, 120, 25, 5, 35].flatMap((v, i) => [
  { Id: 10 * i + 1, LocationId: 1 + (i % 2), date: `${2020 + (i % 3)}-06-0${i + 1}`, characteristic: 'Zinc', value: v, unit: 'ug/L' },
  { Id: 10 * i + 2, LocationId: 1, date: `2021-07-0${i + 1}`, characteristic: 'Zinc', value: v, unit: 'ug/L', media: 'Ocean Water', activityType: 'Field Msr/Obs' },
]);

let db: StepDb;
beforeAll(async () => {
  db = await stepDb();
  await addObservations(db.conn, observations, { 1: {}, 2: {} });
  await applicableGuidelines(db.conn, summary, summary);
  await formulaDays(db.conn);
  await unitConversions(db.conn);
  await inputsByDay(db.conn);
  await formulaValues(db.conn, summary);
  await writeComparisons(db.conn);
  await writeComparisonStats(db.conn);
});
afterAll(() => db.close());

describe('the comparisons’ statistics', () => {
  it('count the comparisons by each table’s keys, in key order', async () => {
    const comparisons = await rowsOf(db.conn, 'SELECT * FROM guideline_comparisons');
    expect(comparisons.length).toBeGreaterThan(20);
    for (const table of comparisonStatTables) {
      const keys = statKeys(table);
      const counted = Map.groupBy(comparisons, (r) => JSON.stringify(keys.map((k) => r[k])));
      const got = await rowsOf(db.conn, `SELECT * FROM ${table}`);
      expect(got.map((r) => JSON.stringify(keys.map((k) => r[k]))), table).toEqual([...counted.keys()].sort((a, b) => compareKeys(JSON.parse(a), JSON.parse(b))));
      for (const r of got) expect(r.n, `${table} ${JSON.stringify(r)}`).toBe(counted.get(JSON.stringify(keys.map((k) => r[k])))!.length);
      expect(columnNames(table)).toEqual([...keys, 'n']);
    }
  });
});

/** The order of DuckDB's ORDER BY over the keys: numbers by value, text by code point. */
function compareKeys(a: readonly unknown[], b: readonly unknown[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}
