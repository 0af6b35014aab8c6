import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicableGuidelines } from './applicable-guidelines.js';
import { formulaValues } from './formula-values.js';
import { formulaDays, inputsByDay } from './inputs-by-day.js';
import { addObservations, rowsOf, stepDb, testSummary, type StepDb, type TestObservation } from './step-test-support.js';
import { unitConversions } from './unit-conversions.js';
import { workTables } from './work-tables.js';

/**
 * The formulas step: each formula's value on each day it is compared on, the inputs it used and the sentences for
 * an input clamped, missing or not paired, against the publishers' definitions written here (CCME cadmium and
 * copper, US EPA 2013 chronic ammonia; shared guidelines README §2).
 */

const summary = testSummary([
  /* 1: CCME cadmium, long-term (hardness clamped to 17–280) */ { characteristic: 'Cadmium', value: '10^{0.83[log(max(17, min(hardness, 280)))]-2.46}', unit: 'ug/L' },
  /* 2: CCME copper, long-term (2 µg/L without hardness) */ { characteristic: 'Copper', value: 'if (hardness != null) \\{ 0.2e^{0.8545[ln(max(82, min(hardness, 180)))]-1.465} \\} else \\{ 2 \\}', unit: 'ug/L' },
  /* 3: US EPA ammonia, chronic (temperature at least 7) */ {
    characteristic: 'Ammonia and ammonium', speciation: 'as N', unit: 'mg/L',
    value: '0.8876 [{0.0278 \\over 1 + 10^{7.688 - pH}} + {1.1994 \\over 1 + 10^{pH - 7.688}}][2.126(10^{0.028[20 - max(temperature, 7)]})]',
  },
  /* 4: Ontario lead by alkalinity, an input Tributary does not pair */ { characteristic: 'Lead', value: 'if (0 ≤ alkalinity < 20) \\{ 5 \\} else if (20 ≤ alkalinity) \\{ 25 \\}', unit: 'ug/L' },
]);

const A = { LocationId: 1, date: '2022-05-03' };
const B = { LocationId: 1, date: '2022-05-17' };
const observations: TestObservation[] = [
  { Id: 1, ...A, characteristic: 'Cadmium', value: 0.1, unit: 'ug/L' }, { Id: 2, ...A, characteristic: 'Copper', value: 1, unit: 'ug/L' },
  { Id: 3, ...A, characteristic: 'Ammonia and ammonium', speciation: 'as N', value: 0.1, unit: 'mg/L' }, { Id: 4, ...A, characteristic: 'Lead', value: 1, unit: 'ug/L' },
  { Id: 5, ...A, characteristic: 'Total hardness', value: 400, unit: 'mg/L' }, { Id: 6, ...A, characteristic: 'pH', value: 7.5, unit: 'None' },
  { Id: 7, ...A, characteristic: 'Temperature, water', value: 4, unit: 'deg C' },
  { Id: 11, ...B, characteristic: 'Cadmium', value: 0.1, unit: 'ug/L' }, { Id: 12, ...B, characteristic: 'Copper', value: 1, unit: 'ug/L' },
  { Id: 13, ...B, characteristic: 'Ammonia and ammonium', speciation: 'as N', value: 0.1, unit: 'mg/L' },
  { Id: 15, ...B, characteristic: 'Total hardness', value: 100, unit: 'mg/L' }, { Id: 16, ...B, characteristic: 'Temperature, water', value: 20, unit: 'deg C' },
];

const cadmium = (h: number) => 10 ** (0.83 * Math.log10(Math.max(17, Math.min(h, 280))) - 2.46);
const copper = (h: number | undefined) => (h === undefined ? 2 : 0.2 * Math.exp(0.8545 * Math.log(Math.max(82, Math.min(h, 180))) - 1.465));
const ammonia = (pH: number, t: number) => 0.8876 * (0.0278 / (1 + 10 ** (7.688 - pH)) + 1.1994 / (1 + 10 ** (pH - 7.688))) * 2.126 * 10 ** (0.028 * (20 - Math.max(t, 7)));

/** Guideline × day → value (null: none), the sentences expected, the inputs used. */
const expected: Record<string, { value: number | null; missing: string | null; clamps: string[]; inputs: string[] }> = {
  [`1|${A.date}`]: { value: cadmium(400), missing: null, clamps: ['hardness 400.0 mg/L is above the formula\'s calibrated range: 280 mg/L used'], inputs: ['hardness'] },
  [`2|${A.date}`]: { value: copper(400), missing: null, clamps: ['hardness 400.0 mg/L is above the formula\'s calibrated range: 180 mg/L used'], inputs: ['hardness'] },
  [`3|${A.date}`]: { value: ammonia(7.5, 4), missing: null, clamps: ["temperature 4.0 deg C is below the formula's calibrated range: 7 deg C used"], inputs: ['pH', 'temperature'] },
  [`4|${A.date}`]: { value: null, missing: 'input alkalinity is not one Tributary pairs (only hardness, pH, temperature and DOC)', clamps: [], inputs: [] },
  [`1|${B.date}`]: { value: cadmium(100), missing: null, clamps: [], inputs: ['hardness'] },
  [`2|${B.date}`]: { value: copper(100), missing: null, clamps: [], inputs: ['hardness'] },
  [`3|${B.date}`]: { value: null, missing: 'no pH measured at this location on this day', clamps: [], inputs: ['temperature'] },
};

let db: StepDb;
beforeAll(async () => {
  db = await stepDb();
  await addObservations(db.conn, observations);
  await applicableGuidelines(db.conn, summary, summary);
  await formulaDays(db.conn);
  await unitConversions(db.conn);
  await inputsByDay(db.conn);
  await formulaValues(db.conn, summary);
});
afterAll(() => db.close());

describe('the formulas step', () => {
  it('evaluates each formula on each day it is compared on, with its sentences and the inputs it used', async () => {
    const got = await rowsOf(db.conn, `SELECT GuidelineId, strftime("ActivityStartDate", '%Y-%m-%d') AS day, lo, hi, clamps, missing, inputs_json FROM ${workTables.formulaValues}`);
    expect(got.map((r) => `${Number(r.GuidelineId)}|${String(r.day)}`).sort()).toEqual(Object.keys(expected).sort());
    for (const r of got) {
      const key = `${Number(r.GuidelineId)}|${String(r.day)}`;
      const e = expected[key]!;
      if (e.value === null) expect(r.hi, key).toBeNull();
      else expect(Number(r.hi) / e.value - 1, key).toBeCloseTo(0, 10);
      expect(r.lo, key).toEqual(r.hi);
      expect(r.missing, key).toBe(e.missing);
      expect(r.clamps, key).toEqual(e.clamps);
      const inputs = r.inputs_json === null ? [] : (JSON.parse(String(r.inputs_json)) as { name: string }[]).map((i) => i.name);
      expect(inputs, key).toEqual(e.inputs);
    }
  });
});
