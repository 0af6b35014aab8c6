import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicableGuidelines } from './applicable-guidelines.js';
import { addObservations, rowsOf, stepDb, testSummary, type StepDb } from './step-test-support.js';
import { unitConversions } from './unit-conversions.js';
import { workTables } from './work-tables.js';

/**
 * The unit conversion step: each pair of units the build converts between, once, with the factor and offset of
 * the definitions (SI prefixes; °F = 9/5·°C + 32) written here, and no row for a pair that does not convert.
 */

const summary = testSummary([
  { characteristic: 'Zinc', value: '30', unit: 'ug/L' },
  { characteristic: 'Dissolved oxygen (DO)', value: '6.5', unit: 'mg/L', notes: 'Values are minima' },
]);
const day = { LocationId: 1, date: '2022-05-03' };
const observations = [
  { Id: 1, ...day, characteristic: 'Zinc', value: 12, unit: 'ug/L' },
  { Id: 2, ...day, characteristic: 'Zinc', value: 0.05, unit: 'mg/L' },
  { Id: 3, ...day, characteristic: 'Zinc', value: 900, unit: 'ng/L' },
  { Id: 4, ...day, characteristic: 'Zinc', value: 0.2, unit: 'ppm' },
  { Id: 5, ...day, characteristic: 'Zinc', condition: 'Below Detection/Quantification Limit', limit: 0.001, limitUnit: 'mg/L' },
  { Id: 6, ...day, characteristic: 'Zinc', value: 4, unit: 'ug/L', condition: 'Below Detection/Quantification Limit', limit: 5000, limitUnit: 'ng/L' },
  { Id: 7, ...day, characteristic: 'Temperature, water', value: 59, unit: 'deg F' },
  { Id: 8, ...day, characteristic: 'Calcium', fraction: 'Dissolved', value: 30000, unit: 'ug/L' },
  { Id: 9, ...day, characteristic: 'pH', value: 7.5, unit: 'None' },
  { Id: 10, ...day, characteristic: 'Specific conductance', value: 400, unit: 'uS/cm' },
];

/** Grams per litre of each mass concentration. */
const gramsPerLitre: Record<string, number> = { 'g/L': 1, 'mg/L': 1e-3, 'ug/L': 1e-6, 'ng/L': 1e-9 };
const massFactor = (from: string, to: string) => gramsPerLitre[from]! / gramsPerLitre[to]!;

/** [from, to, factor, offset]: every pair this build needs that converts. */
const expected: [string, string, number, number][] = [
  // The zinc guideline to each result's unit (a non-detect's is its limit's), and limits to their result's.
  ['ug/L', 'ug/L', 1, 0], ['ug/L', 'mg/L', massFactor('ug/L', 'mg/L'), 0], ['ug/L', 'ng/L', massFactor('ug/L', 'ng/L'), 0],
  ['mg/L', 'mg/L', 1, 0], ['ng/L', 'ug/L', massFactor('ng/L', 'ug/L'), 0],
  // A result with no limit unit has the limit's pair '' → its unit: nothing for a mass concentration; a ppm is a
  // dimensionless 10⁻⁶, so '' (a pure number) converts to it.
  ['', 'ug/L', NaN, NaN], ['', 'mg/L', NaN, NaN], ['', 'ppm', 1e6, 0],
  // Inputs to the unit they are averaged in: temperature in deg C, calcium in mg/L; pH is taken as reported.
  ['deg F', 'deg C', 5 / 9, -32 * (5 / 9)], ['ug/L', 'mg/L', massFactor('ug/L', 'mg/L'), 0],
];

let db: StepDb;
beforeAll(async () => {
  db = await stepDb();
  await addObservations(db.conn, observations);
  await applicableGuidelines(db.conn, summary, summary);
  await unitConversions(db.conn);
});
afterAll(() => db.close());

describe('the unit conversion step', () => {
  it('converts each pair the comparisons and inputs need once, as the definitions say', async () => {
    const got = await rowsOf(db.conn, `SELECT from_unit, to_unit, factor, "offset" FROM ${workTables.units} ORDER BY ALL`);
    const want = new Map(expected.filter(([, , f]) => !Number.isNaN(f)).map(([from, to, factor, offset]) => [`${from}→${to}`, { factor, offset }]));
    expect(got.map((r) => `${String(r.from_unit)}→${String(r.to_unit)}`).sort()).toEqual([...want.keys()].sort());
    for (const r of got) {
      const w = want.get(`${String(r.from_unit)}→${String(r.to_unit)}`)!;
      expect(Number(r.factor) / w.factor - 1, `${String(r.from_unit)}→${String(r.to_unit)}`).toBeCloseTo(0, 12);
      expect(Number(r.offset), `${String(r.from_unit)}→${String(r.to_unit)}`).toBeCloseTo(w.offset, 12);
    }
  });

  it('has no row for a unit UCUM cannot convert to the guideline’s (ppm of a mass concentration), nor for results no guideline or input reads', async () => {
    const got = await rowsOf(db.conn, `SELECT from_unit, to_unit FROM ${workTables.units} WHERE from_unit IN ('ppm', 'uS/cm', 'None') OR to_unit IN ('uS/cm', 'None') OR (to_unit = 'ppm' AND from_unit <> '')`);
    expect(got).toEqual([]);
  });
});
