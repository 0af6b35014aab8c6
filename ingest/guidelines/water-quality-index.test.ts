import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicableGuidelines } from './applicable-guidelines.js';
import { writeComparisons } from './comparisons.js';
import { formulaValues } from './formula-values.js';
import { formulaDays, inputsByDay } from './inputs-by-day.js';
import { addObservations, rowsOf, stepDb, testSummary, type StepDb, type TestObservation } from './step-test-support.js';
import { unitConversions } from './unit-conversions.js';
import { writeWaterQualityIndex } from './water-quality-index.js';

/**
 * The index step: the CCME Water Quality Index (CCME 2001, calculator 1.0; shared guidelines README §5) of a
 * location-year per publisher, against an implementation of the definition written here: variables with fewer
 * than 4 tests left out, the most protective of a publisher's long-term guidelines standing for a result, a failed
 * non-detect's excursion from its limit, too few variables giving no index and a reason.
 */

const summary = testSummary([
  /* 1 */ { characteristic: 'Zinc', value: '30', unit: 'ug/L' },
  /* 2 */ { characteristic: 'Zinc', value: '100', unit: 'ug/L', level: 'Acute' },
  /* 3 */ { characteristic: 'Copper', value: '2', unit: 'ug/L' },
  /* 4 */ { characteristic: 'Lead', value: '1', unit: 'ug/L' },
  /* 5 */ { characteristic: 'Nickel', value: '25', unit: 'ug/L' },
  /* 6 */ { characteristic: 'Dissolved oxygen (DO)', value: '6.5', notes: 'Values are minima', level: 'Chronic - cold water biota, other life stage' },
  /* 7 */ { characteristic: 'Dissolved oxygen (DO)', value: '9.5', notes: 'Values are minima', level: 'Chronic - cold water biota, early life stage' },
  /* 8 */ { characteristic: 'Arsenic', value: '5', unit: 'ug/L' },
  /* 9 */ { characteristic: 'Zinc', value: '20', unit: 'ug/L', publisher: 'ON Gov', region: 'CA-AB' },
]);
const chronic = summary.filter((g) => g.ProtectionLevel.startsWith('Chronic'));

const series: [string, string, (number | 'nd')[]][] = [
  ['Zinc', 'ug/L', [10, 40, 20, 60, 5]], ['Copper', 'ug/L', [1, 1, 1, 1]], ['Lead', 'ug/L', [0.5, 2, 0.2, 0.3]], ['Nickel', 'ug/L', [30, 10, 10, 10, 10]],
  ['Dissolved oxygen (DO)', 'mg/L', [10, 8, 12, 'nd']], ['Arsenic', 'ug/L', [1, 9, 2]],
];
const observations: TestObservation[] = series.flatMap(([characteristic, unit, values], i) =>
  values.map((v, j): TestObservation => ({
    Id: 100 * (i + 1) + j, LocationId: 1, date: `2022-0${5 + (j % 4)}-0${1 + j}`, characteristic,
    ...(v === 'nd' ? { condition: 'Below Detection/Quantification Limit', limit: 2, limitUnit: unit } : { value: v, unit }),
  })),
);

/** §5 from the observations and the summary's constants (all in the results' units here). */
function expectedIndex(publisher: string) {
  const tests = observations.flatMap((o) => {
    const applicable = chronic.filter((g) => g.Publisher === publisher && g.CharacteristicName === o.characteristic);
    if (applicable.length === 0) return [];
    const value = (g: (typeof applicable)[number]) => Number(g.Expression);
    // The most protective stands for the result: the lowest maximum, the highest minimum.
    const g = applicable.reduce((a, b) => (a.Bound === 'minimum' ? (value(b) > value(a) ? b : a) : value(b) < value(a) ? b : a));
    const x = o.value ?? o.limit!;
    const failed = g.Bound === 'minimum' ? x <= value(g) && (o.value === undefined || x < value(g)) : x > value(g);
    const excursion = !failed ? 0 : g.Bound === 'minimum' ? value(g) / x - 1 : x / value(g) - 1;
    return [{ variable: o.characteristic, failed, excursion }];
  });
  const variables = [...Map.groupBy(tests, (t) => t.variable).values()].filter((ts) => ts.length >= 4);
  const kept = variables.flat();
  const failedTests = kept.filter((t) => t.failed);
  const row = { Variables: variables.length, Tests: kept.length, FailedVariables: variables.filter((v) => v.some((t) => t.failed)).length, FailedTests: failedTests.length };
  if (variables.length < 4) return { ...row, WQI: null, F1: null, F2: null, F3: null };
  const F1 = (100 * row.FailedVariables) / row.Variables;
  const F2 = (100 * row.FailedTests) / row.Tests;
  const nse = failedTests.reduce((s, t) => s + t.excursion, 0) / row.Tests;
  const F3 = nse / (0.01 * nse + 0.01);
  return { ...row, F1, F2, F3, WQI: 100 - Math.sqrt(F1 ** 2 + F2 ** 2 + F3 ** 2) / 1.732 };
}

let db: StepDb;
beforeAll(async () => {
  db = await stepDb();
  await addObservations(db.conn, observations);
  await applicableGuidelines(db.conn, summary, [...summary, ...testSummary([{ characteristic: 'X', value: '1', publisher: 'AB Gov' }])]);
  await formulaDays(db.conn);
  await unitConversions(db.conn);
  await inputsByDay(db.conn);
  await formulaValues(db.conn, summary);
  await writeComparisons(db.conn);
  await writeWaterQualityIndex(db.conn);
});
afterAll(() => db.close());

describe('the index step', () => {
  it('computes each publisher’s index of the location-year as the definition does', async () => {
    const got = await rowsOf(db.conn, 'SELECT * FROM water_quality_index ORDER BY "Id"');
    expect(got.map((r) => r.Publisher)).toEqual(['CCME', 'ON Gov']);
    for (const r of got) {
      const e = expectedIndex(String(r.Publisher));
      for (const f of ['Variables', 'Tests', 'FailedVariables', 'FailedTests'] as const) expect(r[f], `${String(r.Publisher)} ${f}`).toBe(e[f]);
      for (const f of ['F1', 'F2', 'F3', 'WQI'] as const) {
        if (e[f] === null) expect(r[f]).toBeNull();
        else expect(Number(r[f]), `${String(r.Publisher)} ${f}`).toBeCloseTo(e[f], 10);
      }
    }
    expect(got[0]!.WQI, 'CCME has an index').not.toBeNull();
  });

  it('says why a row has no index, and numbers rows by location, year and the publisher’s rank in the whole summary', async () => {
    const got = await rowsOf(db.conn, 'SELECT "Id", "Year", "Category", "Reason" FROM water_quality_index ORDER BY "Id"');
    expect(got[1]).toEqual({ Id: (1 * 16384 + 2022) * 64 + 2, Year: 2022, Category: null, Reason: "1 variable(s) with at least 4 tests in 2022 against ON Gov's long-term guidelines; the index needs 4" });
    expect(got[0]!.Id).toBe((1 * 16384 + 2022) * 64 + 1);
    expect(got[0]!.Category).toEqual(expect.stringMatching(/^(Excellent|Good|Fair|Marginal|Poor)$/));
  });
});
