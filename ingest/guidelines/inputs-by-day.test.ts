import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicableGuidelines } from './applicable-guidelines.js';
import { inputColumn } from './guideline-sql.js';
import { formulaDays, idsColumn, inputsByDay } from './inputs-by-day.js';
import { pairedNames } from './paired-inputs.js';
import { addObservations, rowsOf, stepDb, testSummary, type StepDb, type TestObservation } from './step-test-support.js';
import { unitConversions } from './unit-conversions.js';
import { workTables } from './work-tables.js';

/**
 * The inputs step: on each location-day a formula is compared on, each paired input from the first of its sources
 * measured that day, converted and averaged (docs/guidelines.md, "Inputs"), against the hierarchy written out
 * here in plain TypeScript.
 */

// A formula that reads every paired input, so each is looked up on every day it is compared.
const summary = testSummary([{ characteristic: 'Zinc', value: 'hardness + pH + temperature + DOC', unit: 'ug/L' }]);

const zinc = (Id: number, LocationId: number, date: string): TestObservation => ({ Id, LocationId, date, characteristic: 'Zinc', value: 10, unit: 'ug/L' });
const A = { LocationId: 1, date: '2022-05-03' };
const B = { LocationId: 1, date: '2022-05-17' };
const C = { LocationId: 2, date: '2022-05-03' };
const D = { LocationId: 2, date: '2022-05-17' };
const E = { LocationId: 2, date: '2022-06-07' };
const observations: TestObservation[] = [
  zinc(1, 1, A.date), zinc(2, 1, B.date), zinc(3, 2, C.date), zinc(4, 2, D.date),
  // A: the first source of each input wins; several results that day are averaged after conversion.
  { Id: 10, ...A, characteristic: 'Total hardness', value: 120, unit: 'mg/L' }, { Id: 11, ...A, characteristic: 'Total hardness', value: 100000, unit: 'ug/L' },
  { Id: 12, ...A, characteristic: 'Hardness, Ca, Mg', value: 50, unit: 'mg/L' }, { Id: 13, ...A, characteristic: 'Total hardness', value: 7, unit: 'ppm' },
  { Id: 14, ...A, characteristic: 'pH', value: 7.6, unit: 'None' }, { Id: 15, ...A, characteristic: 'pH, lab', value: 7.0, unit: 'None' },
  { Id: 16, ...A, characteristic: 'Temperature, water', value: 59, unit: 'deg F' }, { Id: 17, ...A, characteristic: 'Temperature, water', value: 13, unit: 'deg C' },
  { Id: 18, ...A, characteristic: 'Organic carbon', fraction: 'Dissolved', value: 3, unit: 'mg/L' }, { Id: 19, ...A, characteristic: 'Organic carbon', fraction: 'Dissolved', value: 4000, unit: 'ug/L' },
  { Id: 20, ...A, characteristic: 'Organic carbon', fraction: 'Total', value: 10, unit: 'mg/L' },
  // B: hardness from calcium (dissolved, not total) and magnesium (total, there being no dissolved); the lab's pH; a
  // non-detect of DOC is no value.
  { Id: 30, ...B, characteristic: 'Calcium', fraction: 'Dissolved', value: 30, unit: 'mg/L' }, { Id: 31, ...B, characteristic: 'Calcium', fraction: 'Total', value: 35, unit: 'mg/L' },
  { Id: 32, ...B, characteristic: 'Magnesium', fraction: 'Total', value: 5000, unit: 'ug/L' }, { Id: 33, ...B, characteristic: 'pH, lab', value: 7.2, unit: 'None' },
  { Id: 34, ...B, characteristic: 'Organic carbon', fraction: 'Dissolved', condition: 'Below Detection/Quantification Limit', limit: 0.5, limitUnit: 'mg/L' },
  // C: hardness as Hardness, Ca, Mg, before calcium and magnesium. D: calcium alone is no hardness.
  { Id: 40, ...C, characteristic: 'Hardness, Ca, Mg', value: 80, unit: 'mg/L' }, { Id: 41, ...C, characteristic: 'Calcium', fraction: 'Dissolved', value: 20, unit: 'mg/L' },
  { Id: 42, ...C, characteristic: 'Magnesium', fraction: 'Dissolved', value: 4, unit: 'mg/L' },
  { Id: 50, ...D, characteristic: 'Calcium', fraction: 'Total', value: 20, unit: 'mg/L' },
  // E: inputs on a day no formula is compared: not looked up.
  { Id: 60, ...E, characteristic: 'pH', value: 8, unit: 'None' },
];

type Input = (typeof pairedNames)[number];
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const input = (ids: number[], values: number[]) => ({ value: mean(values), ids });

/** The hierarchy of docs/guidelines.md written out for these days: value and the Ids it came from. */
const expected: Record<string, Partial<Record<Input, { value: number; ids: number[] }>>> = {
  [`1|${A.date}`]: { hardness: input([10, 11], [120, 100]), pH: input([14], [7.6]), temperature: input([16, 17], [15, 13]), DOC: input([18, 19], [3, 4]) },
  [`1|${B.date}`]: { hardness: { value: 2.497 * 30 + 4.118 * 5, ids: [30, 32] }, pH: input([33], [7.2]) },
  [`2|${C.date}`]: { hardness: input([40], [80]) },
  [`2|${D.date}`]: {},
};

let db: StepDb;
beforeAll(async () => {
  db = await stepDb();
  await addObservations(db.conn, observations, { 1: {}, 2: {} });
  await applicableGuidelines(db.conn, summary, summary);
  await formulaDays(db.conn);
  await unitConversions(db.conn);
  await inputsByDay(db.conn);
});
afterAll(() => db.close());

describe('the inputs step', () => {
  it('gives each day a formula is compared on its inputs by the hierarchy, converted and averaged, with their Ids', async () => {
    const columns = pairedNames.map((n) => `${inputColumn(n)} AS "${n}", ${idsColumn(n)} AS "${n}_ids"`).join(', ');
    const got = await rowsOf(db.conn, `SELECT "LocationId", strftime("ActivityStartDate", '%Y-%m-%d') AS day, ${columns} FROM ${workTables.inputs}`);
    // A day with a result of some source has a row (D: calcium alone, no input); E is not looked up.
    expect(got.map((r) => `${Number(r.LocationId)}|${String(r.day)}`).sort()).toEqual(Object.keys(expected).sort());
    for (const r of got) {
      const want = expected[`${Number(r.LocationId)}|${String(r.day)}`]!;
      for (const n of pairedNames) {
        const what = `${Number(r.LocationId)} ${String(r.day)} ${n}`;
        if (want[n] === undefined) {
          expect(r[n], what).toBeNull();
          continue;
        }
        expect(Number(r[n]), what).toBeCloseTo(want[n].value, 10);
        expect((r[`${n}_ids`] as bigint[]).map(Number), what).toEqual(want[n].ids);
      }
    }
  });

  it('looks up only the days a formula is compared on', async () => {
    const days = await rowsOf(db.conn, `SELECT DISTINCT "LocationId", GuidelineId FROM ${workTables.formulaDays} ORDER BY ALL`);
    expect(days).toEqual([{ LocationId: 1, GuidelineId: 1 }, { LocationId: 2, GuidelineId: 1 }]);
    expect(await rowsOf(db.conn, `SELECT count(*) AS n FROM ${workTables.formulaDays}`)).toEqual([{ n: 4 }]);
  });
});
