import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicableGuidelines } from './applicable-guidelines.js';
import { writeComparisons } from './comparisons.js';
import { formulaValues } from './formula-values.js';
import { formulaDays, inputsByDay } from './inputs-by-day.js';
import { addObservations, rowsOf, stepDb, testSummary, type StepDb, type TestObservation } from './step-test-support.js';
import { unitConversions } from './unit-conversions.js';

/**
 * The comparison step: each result against a maximum, a minimum and a range, as a value, a non-detect, a result
 * above the quantification limit and a result with nothing to compare, against the table of the shared guidelines
 * README §4 written out here.
 */

const summary = testSummary([
  /* 1 */ { characteristic: 'Zinc', value: '30', unit: 'ug/L' },
  /* 2 */ { characteristic: 'Dissolved oxygen (DO)', value: '6.5', unit: 'mg/L', notes: 'Values are minima' },
  /* 3 */ { characteristic: 'Sulfate', value: '[10,100]', unit: 'mg/L' },
]);
const bounds: Record<string, { bound: 'maximum' | 'minimum' | 'range'; L?: number; U?: number; unit: string; id: number }> = {
  Zinc: { bound: 'maximum', U: 30, unit: 'ug/L', id: 1 },
  'Dissolved oxygen (DO)': { bound: 'minimum', L: 6.5, unit: 'mg/L', id: 2 },
  Sulfate: { bound: 'range', L: 10, U: 100, unit: 'mg/L', id: 3 },
};

const below = 'Below Detection/Quantification Limit';
const above = 'Above Detection/Quantification Limit';
type Case = Omit<TestObservation, 'Id' | 'LocationId' | 'date' | 'characteristic'>;
/** The same cases for each guideline, in its unit scaled by k (a value inside, above, below; limits within and beyond). */
const cases = (k: number, unit: string): Case[] => [
  { value: 5 * k, unit }, { value: 50 * k, unit }, { value: 200 * k, unit }, { value: 50 * k * 1000, unit: unit === 'ug/L' ? 'ng/L' : 'ug/L' },
  { condition: below, limit: 5 * k, limitUnit: unit }, { condition: below, limit: 50 * k, limitUnit: unit }, { condition: 'Not Detected', limit: 500 * k, limitUnit: unit },
  { condition: above, limit: 5 * k, limitUnit: unit }, { condition: above, limit: 500 * k, limitUnit: unit },
  { condition: 'Detected Not Quantified' }, { condition: below }, { value: 1, unit: 'ppm' }, { condition: below, limit: 1, limitUnit: 'ppm', unit },
];
const observations: TestObservation[] = Object.entries(bounds).flatMap(([characteristic, b], i) =>
  cases(b.bound === 'maximum' ? 0.3 : b.bound === 'minimum' ? 0.1 : 1, b.unit).map((c, j) => ({ Id: i * 100 + j + 1, LocationId: 1, date: '2022-05-03', characteristic, ...c })),
);

/** Grams per litre, for the units above. */
const perLitre: Record<string, number> = { 'mg/L': 1e-3, 'ug/L': 1e-6, 'ng/L': 1e-9 };
const inUnit = (x: number, from: string, to: string) => (perLitre[from] && perLitre[to] ? (x * perLitre[from]) / perLitre[to] : undefined);

/** §4: the verdict of a result against a guideline, and whether it is a plain comparison (no Reason). */
function verdictOf(o: TestObservation): { verdict: string; plain: boolean; L: number | null; U: number | null } {
  const b = bounds[o.characteristic]!;
  const unit = o.unit ?? o.limitUnit;
  const L = b.L === undefined || unit === undefined ? undefined : inUnit(b.L, b.unit, unit);
  const U = b.U === undefined || unit === undefined ? undefined : inUnit(b.U, b.unit, unit);
  const bounded = b.bound === 'maximum' ? U !== undefined : b.bound === 'minimum' ? L !== undefined : L !== undefined && U !== undefined;
  const out = (verdict: string, plain = false) => ({ verdict, plain, L: L ?? null, U: U ?? null });
  if (!bounded) return out('indeterminate');
  if (o.value !== undefined) return out((L !== undefined && o.value < L) || (U !== undefined && o.value > U) ? 'exceeds' : 'meets', true);
  const d = o.limit === undefined || o.limitUnit === undefined ? undefined : inUnit(o.limit, o.limitUnit, unit!);
  if (d === undefined) return out('indeterminate');
  if (o.condition === below || o.condition === 'Not Detected') {
    if (b.bound === 'maximum') return out(d <= U! ? 'meets' : 'indeterminate');
    return out(d <= L! ? 'exceeds' : 'indeterminate');
  }
  if (o.condition === above) {
    if (b.bound === 'maximum') return out(d >= U! ? 'exceeds' : 'indeterminate');
    if (b.bound === 'minimum') return out(d >= L! ? 'meets' : 'indeterminate');
  }
  return out('indeterminate');
}

let db: StepDb;
let written: number;
beforeAll(async () => {
  db = await stepDb();
  await addObservations(db.conn, observations);
  await applicableGuidelines(db.conn, summary, summary);
  await formulaDays(db.conn);
  await unitConversions(db.conn);
  await inputsByDay(db.conn);
  await formulaValues(db.conn, summary);
  written = await writeComparisons(db.conn);
});
afterAll(() => db.close());

describe('the comparison step', () => {
  it('gives each result the verdict of the table, its bounds in the result’s unit, and a Reason exactly when it is not a plain comparison', async () => {
    const got = await rowsOf(db.conn, 'SELECT * FROM guideline_comparisons ORDER BY "Id"');
    expect(written).toBe(observations.length);
    expect(got.map((r) => r.ObservationId)).toEqual(observations.map((o) => o.Id));
    for (const [r, o] of got.map((r, i) => [r, observations[i]!] as const)) {
      const e = verdictOf(o);
      const what = `${o.characteristic} ${JSON.stringify(o)}: ${String(r.Reason)}`;
      expect(r.Id, what).toBe(o.Id * 4096 + bounds[o.characteristic]!.id);
      expect(r.Verdict, what).toBe(e.verdict);
      for (const [got, want] of [[r.GuidelineLower, e.L], [r.GuidelineUpper, e.U]] as const) {
        if (want === null || e.verdict === 'indeterminate') continue;
        expect(Number(got) / want - 1, what).toBeCloseTo(0, 12);
      }
      if (e.plain) expect(r.Reason, what).toBeNull();
      else expect(r.Reason, what).toEqual(expect.any(String));
    }
    expect(new Set(got.map((r) => r.Verdict))).toEqual(new Set(['meets', 'exceeds', 'indeterminate']));
  });

  it('writes the same rows in Id order when it compares a few observations per statement (memory that follows a slice)', async () => {
    const inStoredOrder = () => rowsOf(db.conn, 'SELECT * FROM guideline_comparisons ORDER BY rowid');
    const whole = await inStoredOrder();
    await db.conn.run('DELETE FROM guideline_comparisons');
    expect(await writeComparisons(db.conn, 3)).toBe(whole.length);
    const sliced = await inStoredOrder();
    expect(sliced).toEqual(whole);
    const ids = sliced.map((r) => Number(r.Id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('says why when there is nothing to compare, a unit does not convert, or a limit cannot decide', async () => {
    const reasons = (await rowsOf(db.conn, 'SELECT "Reason" FROM guideline_comparisons WHERE "Reason" IS NOT NULL')).map((r) => String(r.Reason));
    expect(reasons).toContain('Detected Not Quantified: no value or limit to compare');
    expect(reasons.some((r) => /^unit ppm does not convert to the guideline's unit ug\/L$/.test(r))).toBe(true);
    expect(reasons.some((r) => /^Not Detected: its limit 150.0 ug\/L is above the guideline \(30.0 ug\/L\), so the result may or may not exceed it$/.test(r))).toBe(true);
    expect(reasons.some((r) => /its limit's unit ppm does not convert to ug\/L/.test(r))).toBe(true);
    expect(reasons.some((r) => /a lower limit .* cannot place a result within a range/.test(r))).toBe(true);
  });
});

describe('the comparison step on an ambiguous characteristic', () => {
  // Ammonia is total or un-ionized ammonia: its result pairs with the guidelines of both and decides neither.
  const ammonia = testSummary([
    /* 1 */ { characteristic: 'Ammonia and ammonium', speciation: 'as N', value: '1.5' },
    /* 2 */ { characteristic: 'Ammonia, un-ionized', speciation: 'as N', value: '0.016' },
    /* 3 */ { characteristic: 'Ammonia, un-ionized', speciation: 'as NH3', value: '0.019' },
  ]);
  let amb: StepDb;
  beforeAll(async () => {
    amb = await stepDb();
    await addObservations(amb.conn, [
      { Id: 1, LocationId: 1, date: '2022-05-03', characteristic: 'Ammonia', speciation: 'as N', value: 0.05, unit: 'mg/L' },
      { Id: 2, LocationId: 1, date: '2022-05-03', characteristic: 'Ammonia and ammonium', speciation: 'as N', value: 0.05, unit: 'mg/L' },
    ]);
    await applicableGuidelines(amb.conn, ammonia, ammonia);
    await formulaDays(amb.conn);
    await unitConversions(amb.conn);
    await inputsByDay(amb.conn);
    await formulaValues(amb.conn, ammonia);
    await writeComparisons(amb.conn);
  });
  afterAll(() => amb.close());

  it('pairs it with the guidelines of each characteristic it may stand for, indeterminate, and says why', async () => {
    const got = await rowsOf(amb.conn, 'SELECT "ObservationId", "GuidelineId", "CharacteristicName", "Verdict", "Reason" FROM guideline_comparisons ORDER BY "Id"');
    expect(got.map((r) => [r.ObservationId, r.GuidelineId, r.CharacteristicName, r.Verdict])).toEqual([
      [1, 1, 'Ammonia', 'indeterminate'], [1, 2, 'Ammonia', 'indeterminate'], [2, 1, 'Ammonia and ammonium', 'meets'],
    ]);
    expect(got[0]!.Reason).toMatch(/^'Ammonia' does not say whether total or un-ionized ammonia was measured .*'Ammonia and ammonium' \(total\) or 'Ammonia, un-ionized'/);
    expect(got[1]!.Reason).toBe(got[0]!.Reason);
    expect(got[2]!.Reason).toBeNull();
  });
});
