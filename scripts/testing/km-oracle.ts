/**
 * Independent oracle for statistics with non-detects (../shared/statistics/README.md): a LocationSummaries row's
 * statistics (§5, §6) and the `$apply` km methods (§7), from the README alone and in exact arithmetic, for tests
 * of the production's SQL. Readable first: it is the reference a reviewer checks the production against.
 */
import { assertNever } from '../../services/api/assert-never.js';
import { Fraction } from './fraction.js';
import { chooseMethod, kmCurve, type Curve, type Method, type UsableValues } from './km-curve.js';
import { classifyResult, groupUnitOf, locationSummaryGroups, type Convert, type KmRow, type SummaryKey } from './km-rows.js';
import type { StoredResult } from './stored-result.js';

export type { Convert, KmRow, SummaryKey } from './km-rows.js';
export { classifyResult, groupUnitOf, limitInUnit, locationSummaryGroups } from './km-rows.js';
export type { Method } from './km-curve.js';

export type Qualifier = '<' | '>' | null;

/** A statistic and its qualifier (§5.5): null, `<` (the statistic is below the number) or `>`. */
interface Qualified {
  readonly value: number;
  readonly qualifier: Qualifier;
}

/** Every §5/§6 output of one LocationSummaries group, under the served field names. */
export interface KmSummary {
  readonly Count: number;
  readonly NonDetects: number;
  readonly LeftCensored: number;
  readonly RightCensored: number;
  readonly Unusable: number;
  readonly Method: Method;
  readonly MethodReason: string;
  readonly Min: number | null;
  readonly MinQualifier: Qualifier;
  readonly Max: number | null;
  readonly MaxQualifier: Qualifier;
  readonly P10: number | null;
  readonly P10Qualifier: Qualifier;
  readonly Median: number | null;
  readonly MedianQualifier: Qualifier;
  readonly P90: number | null;
  readonly P90Qualifier: Qualifier;
  readonly Mean: number | null;
}

/** §5.1's ε, exactly: the production compares doubles with it; the oracle applies it to exact probabilities. */
const EPSILON = Fraction.of(1n, 1_000_000_000n);
const PERCENTILES = { P10: Fraction.of(1, 10), Median: Fraction.of(1, 2), P90: Fraction.of(9, 10) } as const;

function usableValues(rows: readonly KmRow[]): UsableValues {
  const pick = (kind: KmRow['kind']) => rows.flatMap((r) => (r.kind === kind && 'value' in r ? [r.value] : []));
  return { detected: pick('detected'), left: pick('left'), right: pick('right') };
}

/** One group's statistics from its rows classified in the group's unit (km-rows.ts `classifyResult`). */
export function kmSummary(rows: readonly KmRow[]): KmSummary {
  const values = usableValues(rows);
  const { Method, MethodReason } = chooseMethod(values);
  const min = extreme(values, 'min');
  const max = extreme(values, 'max');
  const stats = statistics(Method, values);
  return {
    Count: rows.length,
    NonDetects: rows.length - values.detected.length,
    LeftCensored: values.left.length,
    RightCensored: values.right.length,
    Unusable: rows.length - values.detected.length - values.left.length - values.right.length,
    Method,
    MethodReason,
    Min: min?.value ?? null, MinQualifier: min?.qualifier ?? null,
    Max: max?.value ?? null, MaxQualifier: max?.qualifier ?? null,
    P10: stats.P10?.value ?? null, P10Qualifier: stats.P10?.qualifier ?? null,
    Median: stats.Median?.value ?? null, MedianQualifier: stats.Median?.qualifier ?? null,
    P90: stats.P90?.value ?? null, P90Qualifier: stats.P90?.qualifier ?? null,
    Mean: stats.Mean,
  };
}

interface Statistics {
  readonly P10: Qualified | null;
  readonly Median: Qualified | null;
  readonly P90: Qualified | null;
  readonly Mean: number | null;
}

function statistics(method: Method, values: UsableValues): Statistics {
  switch (method) {
    case 'none':
      return { P10: null, Median: null, P90: null, Mean: null };
    case 'exact': {
      const sorted = [...values.detected].sort((a, b) => a - b);
      const at = (p: Fraction): Qualified => ({ value: type7(sorted, p), qualifier: null });
      return { P10: at(PERCENTILES.P10), Median: at(PERCENTILES.Median), P90: at(PERCENTILES.P90), Mean: exactMean(sorted) };
    }
    case 'km': {
      const curve = kmCurve(values);
      const at = (p: Fraction) => kmPercentile(curve, values, p);
      return { P10: at(PERCENTILES.P10), Median: at(PERCENTILES.Median), P90: at(PERCENTILES.P90), Mean: kmMean(curve) };
    }
    default:
      return assertNever(method);
  }
}

/** §5.1: a detected value or a bound, never interpolated; on a flat part the lower end. */
export function kmPercentile(curve: Curve, values: UsableValues, p: Fraction): Qualified {
  const d1 = curve.steps[0]!.value;
  const dk = curve.steps.at(-1)!.value;
  if (p.le(curve.mLow.add(EPSILON))) {
    // L*: the largest left limit ≤ d₁; every weight below d₁ belongs to rows censored at limits ≤ d₁.
    return { value: Math.max(...values.left.filter((l) => l <= d1)), qualifier: '<' };
  }
  if (p.gt(Fraction.one.sub(curve.mHigh).add(EPSILON))) {
    return { value: Math.min(...values.right.filter((r) => r >= dk)), qualifier: '>' };
  }
  const step = curve.steps.find((s) => s.F.ge(p.sub(EPSILON)));
  if (step === undefined) throw new Error('kmPercentile: F(d_k) = 1 − m_high, so a step is always found');
  return { value: step.value, qualifier: null };
}

/** §5.3: the area under the curve with the weight below d₁ placed at d₁; null when weight lies above d_k. */
export function kmMean(curve: Curve): number | null {
  if (!curve.mHigh.isZero()) return null;
  let sum = Fraction.fromNumber(curve.steps[0]!.value).mul(curve.mLow);
  for (const s of curve.steps) sum = sum.add(Fraction.fromNumber(s.value).mul(s.F.sub(s.Fminus)));
  return sum.toNumber();
}

/** Hyndman & Fan type 7 (§5.2, docs/api.md): x⌊h⌋ + (h − ⌊h⌋)(x⌊h⌋₊₁ − x⌊h⌋), h = (n − 1)p, computed exactly. */
export function type7(sorted: readonly number[], p: Fraction): number {
  const h = Fraction.of(sorted.length - 1).mul(p);
  const lo = Number(h.num / h.den);
  if (lo + 1 >= sorted.length) return sorted[lo]!;
  const x0 = Fraction.fromNumber(sorted[lo]!);
  const x1 = Fraction.fromNumber(sorted[lo + 1]!);
  return x0.add(h.sub(Fraction.of(lo)).mul(x1.sub(x0))).toNumber();
}

function exactMean(values: readonly number[]): number {
  const sum = values.reduce((s, v) => s.add(Fraction.fromNumber(v)), Fraction.zero);
  return sum.mul(Fraction.of(1, values.length)).toNumber();
}

/**
 * §5.4: the extremes as reported. At the minimum `<` wins over a detected value, which wins over `>`; at the
 * maximum `>` wins, then detected, then `<`.
 */
export function extreme(values: UsableValues, which: 'min' | 'max'): Qualified | undefined {
  const candidates: Qualified[] = [
    ...values.detected.map((value) => ({ value, qualifier: null })),
    ...values.left.map((value) => ({ value, qualifier: '<' as const })),
    ...values.right.map((value) => ({ value, qualifier: '>' as const })),
  ];
  if (candidates.length === 0) return undefined;
  const rank = (q: Qualifier) => (q === '<' ? 0 : q === null ? 1 : 2);
  const sign = which === 'min' ? 1 : -1;
  return candidates.reduce((best, c) => {
    const byValue = sign * (c.value - best.value);
    const byQualifier = sign * (rank(c.qualifier) - rank(best.qualifier));
    return byValue < 0 || (byValue === 0 && byQualifier < 0) ? c : best;
  });
}

/** A location's LocationSummaries rows (§2.2, §2.4, §5, §6): key and statistics, sorted by key. */
export function kmLocationSummaries(rows: readonly StoredResult[], convert: Convert): { key: SummaryKey; summary: KmSummary }[] {
  return locationSummaryGroups(rows, convert).map((g) => ({ key: g.key, summary: kmSummary(g.classified) }));
}

/** The `$apply` km methods' values over one group's rows (§7), or the 400 `mixed_units`. */
export type KmAggregate =
  | {
    readonly kind: 'ok';
    readonly unit: string | null;
    readonly km_median: number | null; readonly km_median_qualifier: Qualifier;
    readonly km_p10: number | null; readonly km_p10_qualifier: Qualifier;
    readonly km_p90: number | null; readonly km_p90_qualifier: Qualifier;
    readonly km_mean: number | null;
    readonly km_method: Method;
  }
  | { readonly kind: 'mixed_units'; readonly units: readonly (string | null)[] };

/**
 * §7: every row the group holds, quality control included (the filter decides). Each usable row's unit is §2.2's;
 * a censored row whose limit does not convert into its own unit is unusable and counts towards no unit.
 */
export function kmAggregate(rows: readonly StoredResult[], convert: Convert): KmAggregate {
  const units = new Set<string | null>();
  for (const row of rows) {
    const unit = groupUnitOf(row);
    if (classifyResult(row, unit, convert).kind !== 'unusable') units.add(unit);
  }
  if (units.size > 1) return { kind: 'mixed_units', units: [...units] };
  const unit = units.size === 1 ? [...units][0]! : null;
  // Each row in its own unit: a limit that does not convert into it stays unusable, whatever the group's unit.
  const s = kmSummary(rows.map((r) => classifyResult(r, groupUnitOf(r), convert)));
  return {
    kind: 'ok', unit,
    km_median: s.Median, km_median_qualifier: s.MedianQualifier,
    km_p10: s.P10, km_p10_qualifier: s.P10Qualifier,
    km_p90: s.P90, km_p90_qualifier: s.P90Qualifier,
    km_mean: s.Mean, km_method: s.Method,
  };
}

