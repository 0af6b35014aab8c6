import corrections from './corrections.json' with { type: 'json' };

/**
 * Test support: an independent implementation of the comparisons, the governing verdicts and the water quality
 * index, written from the publishers' definitions (docs/guidelines.md; ../shared/guidelines/README.md §2–§5) over
 * the inventory (guidelines.csv) and the published observations, never from the production SQL. Its hub and its
 * checks are guideline-comparisons.test.ts's.
 */

export interface Inventory {
  readonly id: number;
  readonly characteristic: string;
  readonly fractions: readonly string[];
  readonly speciation: string;
  readonly jurisdictions: readonly string[];
  readonly media: string;
  readonly ecosystem: string;
  readonly publisher: string;
  readonly level: string;
  readonly value: string;
  readonly unit: string;
}

export type Input = 'hardness' | 'pH' | 'temperature' | 'DOC';
export interface Day {
  readonly values: Partial<Record<Input, number>>;
  readonly ids: Partial<Record<Input, number[]>>;
}
type Value = { lo?: number; hi?: number; clamped?: boolean } | undefined;

const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(x, hi));
const outside = (x: number, lo: number, hi: number) => x < lo || x > hi;

/**
 * The publishers' definitions of every formula row that applies to an Alberta freshwater location for the
 * characteristics above (shared README §2; Alberta's Environmental Quality Guidelines for copper, Table 1.3), as
 * guideline Id → value at the day's inputs (undefined: an input it needs is missing).
 */
const formulas: Record<number, (i: Partial<Record<Input, number>>) => Value> = {
  // AB copper, acute: e^(0.979123·ln H − 8.64497) mg/L, here in µg/L.
  1: ({ hardness: h }) => (h === undefined ? undefined : { hi: 1000 * Math.exp(0.979123 * Math.log(h) - 8.64497) }),
  // CCME ammonia (as NH3, as N): 0.019 / f, f the un-ionized fraction.
  187: ({ pH, temperature: t }) => (pH === undefined || t === undefined ? undefined : { hi: 0.019 * (10 ** (0.0901821 + 2729.92 / (t + 273.15) - pH) + 1) }),
  1337: ({ pH, temperature: t }) => (pH === undefined || t === undefined ? undefined : { hi: 0.8224 * 0.019 * (10 ** (0.0901821 + 2729.92 / (t + 273.15) - pH) + 1) }),
  383: ({ hardness: h }) => (h === undefined ? undefined : { hi: 10 ** (1.016 * Math.log10(clamp(h, 5.3, 360)) - 1.71), clamped: outside(h, 5.3, 360) }),
  384: ({ hardness: h }) => (h === undefined ? undefined : { hi: 10 ** (0.83 * Math.log10(clamp(h, 17, 280)) - 2.46), clamped: outside(h, 17, 280) }),
  432: ({ hardness: h }) => (h === undefined ? { hi: 2 } : { hi: 0.2 * Math.exp(0.8545 * Math.log(clamp(h, 82, 180)) - 1.465), clamped: outside(h, 82, 180) }),
  555: ({ hardness: h }) => (h === undefined ? undefined : h <= 60 ? { hi: 1 } : { hi: Math.exp(1.273 * Math.log(Math.min(h, 180)) - 4.705), clamped: h > 180 }),
  591: ({ hardness: h }) => (h === undefined ? undefined : h <= 60 ? { hi: 25 } : { hi: Math.exp(0.76 * Math.log(Math.min(h, 180)) + 1.06), clamped: h > 180 }),
  1452: ({ hardness: h, DOC: c }) =>
    h === undefined || c === undefined ? undefined : { hi: Math.exp(0.833 * Math.log(clamp(h, 13.8, 250.5)) + 0.24 * Math.log(clamp(c, 0.3, 17.3)) + 0.526), clamped: outside(h, 13.8, 250.5) || outside(c, 0.3, 17.3) },
  1907: ({ hardness: h, pH, DOC: c }) =>
    h === undefined || pH === undefined || c === undefined
      ? undefined
      : {
          hi: Math.exp(0.947 * Math.log(clamp(h, 23.4, 399)) - 0.815 * clamp(pH, 6.5, 8.13) + 0.398 * Math.log(clamp(c, 0.3, 22.9)) + 4.625),
          clamped: outside(h, 23.4, 399) || outside(pH, 6.5, 8.13) || outside(c, 0.3, 22.9),
        },
};
/** Rows served but not compared (corrections.json with no expression) and rows with no value. */
const notCompared = new Set((corrections as { id: number; expression?: string | null }[]).filter((c) => c.expression === null).map((c) => c.id));
/** The characteristic each re-keyed row is compared by (corrections.json, the key audit). */
export const rekeyed = new Map((corrections as { id: number; rekey?: { CharacteristicName: string } }[]).flatMap((c) => (c.rekey ? [[c.id, c.rekey.CharacteristicName] as const] : [])));
/** DataStream's ambiguous 'Ammonia': compared with total and un-ionized ammonia's guidelines, deciding neither. */
const mayBe: Record<string, readonly string[]> = { Ammonia: ['Ammonia and ammonium', 'Ammonia, un-ionized'] };

/** Grams per litre of each mass concentration, and the one unitless unit (pH). */
const perLitre: Record<string, number> = { 'g/L': 1, 'mg/L': 1e-3, 'ug/L': 1e-6, 'ng/L': 1e-9 };
function convert(v: number, from: string, to: string): number | undefined {
  if ((from === '' || from === 'None') && (to === '' || to === 'None')) return v;
  const a = perLitre[from];
  const b = perLitre[to];
  return a === undefined || b === undefined ? undefined : (v * a) / b;
}

export interface Obs {
  readonly Id: number;
  readonly LocationId: number;
  readonly ActivityStartDate: string;
  readonly CharacteristicName: string;
  readonly ResultSampleFraction: string | null;
  readonly MethodSpeciation: string | null;
  readonly ResultValue: number | null;
  readonly ResultUnit: string | null;
  readonly ResultDetectionCondition: string | null;
  readonly ResultDetectionQuantitationLimitMeasure: number | null;
  readonly ResultDetectionQuantitationLimitUnit: string | null;
  readonly MonitoringLocationType: string;
  readonly ActivityMediaName: string;
  readonly ActivityStartYear: number;
  readonly ActivityType: string;
}

/** Quality control, by its definition (../shared plan): every `Quality Control…` ActivityType and `Sample-Positive Control`. */
export const qualityControl = (o: Obs) => o.ActivityType.startsWith('Quality Control') || o.ActivityType === 'Sample-Positive Control';

export interface Expected {
  readonly ObservationId: number;
  readonly GuidelineId: number;
  readonly Publisher: string;
  readonly ProtectionLevel: string;
  readonly LocationId: number;
  readonly Year: number;
  readonly variable: string;
  readonly L: number | null;
  readonly U: number | null;
  readonly verdict: 'meets' | 'exceeds' | 'indeterminate';
  readonly x: number | null;
  readonly reason: RegExp | null;
  readonly inputs: Day | null;
  readonly formula: readonly Input[];
}

function inputsOn(obs: readonly Obs[]): Map<string, Day> {
  const days = Map.groupBy(obs.filter((o) => !qualityControl(o)), (o) => `${o.LocationId}|${o.ActivityStartDate}`);
  const out = new Map<string, Day>();
  for (const [key, list] of days) {
    const pick = (c: string, f?: string, to = 'mg/L') => {
      const xs = list.filter((o) => o.CharacteristicName === c && (f === undefined || o.ResultSampleFraction === f) && o.ResultValue !== null);
      const vs = xs.map((o) => (to === 'C' ? (o.ResultUnit === 'deg F' ? ((o.ResultValue! - 32) * 5) / 9 : o.ResultValue!) : to === '' ? o.ResultValue! : convert(o.ResultValue!, o.ResultUnit!, to)!));
      return vs.length === 0 ? undefined : { v: vs.reduce((a, b) => a + b, 0) / vs.length, ids: xs.map((o) => o.Id) };
    };
    const values: Partial<Record<Input, number>> = {};
    const ids: Partial<Record<Input, number[]>> = {};
    const set = (n: Input, p: { v: number; ids: number[] } | undefined) => {
      if (p) {
        values[n] = p.v;
        ids[n] = p.ids;
      }
    };
    const ca = pick('Calcium', 'Dissolved') ?? pick('Calcium', 'Total');
    const mg = pick('Magnesium', 'Dissolved') ?? pick('Magnesium', 'Total');
    set('hardness', pick('Total hardness') ?? pick('Hardness, Ca, Mg') ?? (ca && mg ? { v: 2.497 * ca.v + 4.118 * mg.v, ids: [...ca.ids, ...mg.ids] } : undefined));
    set('pH', pick('pH', undefined, '') ?? pick('pH, lab', undefined, ''));
    set('temperature', pick('Temperature, water', undefined, 'C'));
    set('DOC', pick('Organic carbon', 'Dissolved'));
    out.set(key, { values, ids });
  }
  return out;
}

export function expectedComparisons(inventory: readonly Inventory[], obs: readonly Obs[]): Expected[] {
  const days = inputsOn(obs);
  const out: Expected[] = [];
  for (const o of obs) {
    if (qualityControl(o) || o.ActivityMediaName !== 'Surface Water' || !['River/Stream', 'Lake/Pond'].includes(o.MonitoringLocationType)) continue;
    for (const g of inventory) {
      const ambiguous = mayBe[o.CharacteristicName] !== undefined;
      if (!(g.characteristic === o.CharacteristicName || (mayBe[o.CharacteristicName] ?? []).includes(g.characteristic)) || g.media !== 'Water' || g.ecosystem !== 'Freshwater') continue;
      if (g.fractions.length > 0 && o.ResultSampleFraction !== null && !g.fractions.includes(o.ResultSampleFraction)) continue;
      if (g.speciation !== '' && o.MethodSpeciation !== null && g.speciation !== o.MethodSpeciation) continue;
      if (!g.jurisdictions.includes('CA') && !g.jurisdictions.includes('CA-AB')) continue;
      if (g.value === '' || notCompared.has(g.id)) continue;
      const day = days.get(`${o.LocationId}|${o.ActivityStartDate}`) ?? { values: {}, ids: {} };
      let value: Value;
      let formula: Input[] = [];
      const range = /^\[([\d.]+),([\d.]+)\]$/.exec(g.value);
      if (/^[\d.]+$/.test(g.value)) value = { lo: Number(g.value), hi: Number(g.value) };
      else if (range) value = { lo: Number(range[1]), hi: Number(range[2]) };
      else {
        const f = formulas[g.id];
        if (!f) throw new Error(`no independent implementation of guideline ${g.id} (${g.value}): add it to this test`);
        value = f(day.values);
        formula = (['hardness', 'pH', 'temperature', 'DOC'] as const).filter((n) => g.value.includes(n));
        if (value) value = { ...value, lo: value.lo ?? value.hi };
      }
      const bound = range ? 'range' : /oxygen/i.test(g.characteristic) ? 'minimum' : 'maximum';
      const rUnit = o.ResultUnit ?? o.ResultDetectionQuantitationLimitUnit ?? '';
      const conv = (x: number | undefined) => (x === undefined ? undefined : convert(x, g.unit, rUnit));
      const L = bound === 'maximum' || !value ? undefined : conv(value.lo);
      const U = bound === 'minimum' || !value ? undefined : conv(value.hi);
      const limit = o.ResultDetectionQuantitationLimitMeasure === null ? undefined : convert(o.ResultDetectionQuantitationLimitMeasure, o.ResultDetectionQuantitationLimitUnit ?? '', rUnit);
      const bounded = bound === 'maximum' ? U !== undefined : bound === 'minimum' ? L !== undefined : L !== undefined && U !== undefined;
      let verdict: Expected['verdict'] = 'indeterminate';
      let reason: RegExp | null = null;
      const cond = o.ResultDetectionCondition;
      const limited = ['Not Detected', 'Below Detection/Quantification Limit', 'Above Detection/Quantification Limit'].includes(cond ?? '');
      if (ambiguous) reason = /^'Ammonia' does not say whether total or un-ionized ammonia was measured/;
      else if (o.ResultValue === null && (limit === undefined || !limited)) reason = new RegExp(`^${cond}: no value or limit to compare$`);
      else if (convert(1, g.unit, rUnit) === undefined) reason = /does not convert/;
      else if (!bounded) reason = /measured at this location on this day/;
      else if (o.ResultValue !== null) verdict = (L !== undefined && o.ResultValue < L) || (U !== undefined && o.ResultValue > U) ? 'exceeds' : 'meets';
      else {
        reason = new RegExp(cond ?? 'no value');
        if (limit !== undefined && (cond === 'Not Detected' || cond === 'Below Detection/Quantification Limit')) {
          verdict = bound === 'maximum' ? (limit <= U! ? 'meets' : 'indeterminate') : limit <= L! ? 'exceeds' : 'indeterminate';
        } else if (limit !== undefined && cond === 'Above Detection/Quantification Limit') {
          verdict = bound === 'maximum' ? (limit >= U! ? 'exceeds' : 'indeterminate') : bound === 'minimum' ? (limit >= L! ? 'meets' : 'indeterminate') : 'indeterminate';
        }
      }
      if (ambiguous) verdict = 'indeterminate';
      if (reason === null && value?.clamped) reason = /calibrated range/;
      if (reason === null && formula.some((n) => day.values[n] === undefined) && bounded) reason = /the value the guideline gives without it is used/;
      out.push({
        ObservationId: o.Id, GuidelineId: g.id, Publisher: g.publisher, ProtectionLevel: g.level, LocationId: o.LocationId, Year: o.ActivityStartYear,
        variable: `${o.CharacteristicName}|${o.ResultSampleFraction ?? ''}|${o.MethodSpeciation ?? ''}`, L: L ?? null, U: U ?? null, verdict,
        x: o.ResultValue ?? limit ?? null, reason, inputs: formula.length > 0 ? day : null, formula,
      });
    }
  }
  return out;
}

/** CCME (2001) Water Quality Index, calculator 1.0 (shared README §5), from the expected comparisons. */
export function expectedIndex(cmp: readonly Expected[]) {
  const tests = new Map<string, Expected>();
  for (const c of cmp) {
    if (!c.ProtectionLevel.startsWith('Chronic') || c.verdict === 'indeterminate') continue;
    // The most protective guideline of the publisher stands for the variable: lowest maximum, highest minimum.
    const key = `${c.ObservationId}|${c.Publisher}`;
    const prev = tests.get(key);
    const stricter = (a: Expected, b: Expected) => (a.U ?? Infinity) - (b.U ?? Infinity) || (b.L ?? -Infinity) - (a.L ?? -Infinity) || a.GuidelineId - b.GuidelineId;
    if (!prev || stricter(c, prev) < 0) tests.set(key, c);
  }
  const groups = Map.groupBy(tests.values(), (t) => `${t.LocationId}|${t.Year}|${t.Publisher}`);
  const rows = [];
  for (const [key, ts] of groups) {
    const [LocationId, Year, Publisher] = key.split('|');
    const byVar = Map.groupBy(ts, (t) => t.variable);
    const kept = [...byVar.values()].filter((v) => v.length >= 4);
    const all = kept.flat();
    const failed = all.filter((t) => t.verdict === 'exceeds');
    const excursion = (t: Expected) => (t.U !== null && t.x! > t.U ? t.x! / t.U - 1 : t.L !== null && t.x! < t.L ? t.L / t.x! - 1 : 0);
    const V = kept.length;
    const row = { LocationId: Number(LocationId), Year: Number(Year), Publisher, Variables: V, Tests: all.length, FailedVariables: kept.filter((v) => v.some((t) => t.verdict === 'exceeds')).length, FailedTests: failed.length, WQI: null as number | null, Category: null as string | null, F1: null as number | null, F2: null as number | null, F3: null as number | null };
    if (V >= 4) {
      const F1 = (100 * row.FailedVariables) / V;
      const F2 = (100 * failed.length) / all.length;
      const nse = failed.reduce((s, t) => s + excursion(t), 0) / all.length;
      const F3 = nse / (0.01 * nse + 0.01);
      const WQI = 100 - Math.sqrt(F1 ** 2 + F2 ** 2 + F3 ** 2) / 1.732;
      Object.assign(row, { F1, F2, F3, WQI, Category: WQI >= 95 ? 'Excellent' : WQI >= 80 ? 'Good' : WQI >= 65 ? 'Fair' : WQI >= 45 ? 'Marginal' : 'Poor' });
    }
    rows.push(row);
  }
  return rows;
}
