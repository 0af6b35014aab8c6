/**
 * The Sen slope, its note and its 90 % interval, Median and PercentAnnualChange: ../shared/trends/README.md §8,
 * written from the README alone.
 */
import { OK, seasonalChecks } from './trend-checks.js';
import { kendall } from './trend-kendall.js';

/** One kept increment as the slope stage reads it: its substituted value v′ (§8.1) and its original censoring. */
export interface SenIncrement {
  readonly value: number;
  readonly censoring: '<' | '>' | null;
  readonly day: number;
  readonly year: number;
  /** The season of the seasonal test, or null in the non-seasonal one. */
  readonly season: string | null;
  /** `<label>-<year>`, for the seasonal check's text order (§5). */
  readonly text: string;
}

export interface Slope {
  readonly slope: number;
  /** The censoring of the later and the earlier increment. */
  readonly later: '<' | '>' | null;
  readonly earlier: '<' | '>' | null;
}

/** §8.1: `<` values at half their limit, `>` values at 1.1 times it. */
export function substitute(value: number, censoring: '<' | '>' | null): number {
  return censoring === '<' ? value * 0.5 : censoring === '>' ? value * 1.1 : value;
}

/** §8.3: the per-year slope of a pair, then the censoring rules by (later, earlier). */
function pairSlope(earlier: SenIncrement, later: SenIncrement): Slope {
  const raw = (later.value - earlier.value) / ((later.day - earlier.day) / 365.25);
  const pair = { later: later.censoring, earlier: earlier.censoring };
  const zero = (later.censoring !== null && later.censoring === earlier.censoring)
    || (raw > 0 && ((later.censoring === '<' && earlier.censoring === null) || (later.censoring === null && earlier.censoring === '>')))
    || (raw < 0 && ((later.censoring === null && earlier.censoring === '<') || (later.censoring === '>' && earlier.censoring === null)));
  return { slope: zero ? 0 : raw, ...pair };
}

/**
 * §8.2: every pair (non-seasonal), or every pair within a season except those of one season and year — where a
 * pair of two `<` or two `>` values still counts, with slope 0 (LWP zeroes such pairs before it drops the rest).
 */
export function pairSlopes(increments: readonly SenIncrement[]): Slope[] {
  const ordered = [...increments].sort((a, b) => a.day - b.day);
  const slopes: Slope[] = [];
  for (let i = 0; i < ordered.length; i++) {
    for (let j = i + 1; j < ordered.length; j++) {
      const [a, b] = [ordered[i]!, ordered[j]!];
      if (a.season !== b.season) continue;
      const sameSeasonYear = a.season !== null && a.year === b.year;
      const sameCensoring = a.censoring !== null && a.censoring === b.censoring;
      if (sameSeasonYear && !sameCensoring) continue;
      slopes.push(sameSeasonYear ? { slope: 0, later: b.censoring, earlier: a.censoring } : pairSlope(a, b));
    }
  }
  return slopes;
}

/** R's median: the middle value, or the mean of the two middle values rounded once. */
export function median(values: readonly number[]): number {
  return medianOfSorted([...values].sort((a, b) => a - b));
}

function medianOfSorted(sorted: readonly number[]): number {
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

/** §8.5: the note from the slopes nearest the median. */
export function senNote(slopes: readonly Slope[], senSlope: number): string {
  const nearest = Math.min(...slopes.map((s) => Math.abs(s.slope - senSlope)));
  const chosen = slopes.filter((s) => Math.abs(s.slope - senSlope) === nearest);
  if (chosen.some((s) => s.later !== null || s.earlier !== null)) {
    return chosen.every((s) => s.later !== null && s.earlier !== null)
      ? 'WARNING: Sen slope based on two censored values'
      : 'WARNING: Sen slope influenced by censored values';
  }
  return senSlope === 0 ? 'WARNING: Sen slope based on tied non-censored values' : OK;
}

/** The 95th normal percentile (§8.6). */
const Z95 = 1.6448536269514722;

/**
 * §8.6: VarS′ of the substituted values all treated as detected (ties in value and in time only; seasonal: summed
 * over the seasons, after the seasonal checks on v′ with only the seasons that have values as levels), or undefined
 * when those checks fail.
 */
export function intervalVariance(increments: readonly SenIncrement[]): number | undefined {
  const seasons = [...new Set(increments.map((i) => i.season))];
  if (seasons[0] === null) {
    return kendall(increments.map((i) => ({ value: i.value, censoring: null, timeKey: i.text }))).VarS;
  }
  const textOrder = [...increments].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const note = seasonalChecks(textOrder.map((i) => ({ value: i.value, censored: false, season: i.season! })), seasons as string[]);
  if (note !== OK) return undefined;
  return seasons.reduce((sum, season) => sum + kendall(increments
    .filter((i) => i.season === season)
    .sort((a, b) => a.day - b.day)
    .map((i) => ({ value: i.value, censoring: null, timeKey: String(i.year) }))).VarS, 0);
}

/** §8.6: the bound at rank R by linear interpolation; outside 1 … M the smallest or largest slope. */
function bound(sorted: readonly number[], rank: number, outside: 'lower' | 'upper'): number {
  const M = sorted.length;
  if (!(rank >= 1 && rank <= M)) return outside === 'lower' ? sorted[0]! : sorted[M - 1]!;
  const lo = Math.floor(rank);
  if (lo === rank) return sorted[lo - 1]!;
  return sorted[lo - 1]! + (rank - lo) * (sorted[lo]! - sorted[lo - 1]!);
}

export interface SenResult {
  readonly SenSlope: number;
  readonly SenSlopeLower90: number;
  readonly SenSlopeUpper90: number;
  readonly AnalysisNote: string;
  readonly slopes: readonly Slope[];
  readonly VarSPrime: number | undefined;
}

/** §8.2–8.6 over the kept increments (values already substituted). */
export function senSlope(increments: readonly SenIncrement[]): SenResult {
  const slopes = pairSlopes(increments);
  const sorted = slopes.map((s) => s.slope).sort((a, b) => a - b);
  const SenSlope = medianOfSorted(sorted);
  const VarSPrime = intervalVariance(increments);
  const M = sorted.length;
  const spread = VarSPrime === undefined ? NaN : Z95 * Math.sqrt(VarSPrime);
  return {
    SenSlope,
    SenSlopeLower90: bound(sorted, (M - spread) / 2, 'lower'),
    SenSlopeUpper90: bound(sorted, (M + spread) / 2, 'upper'),
    AnalysisNote: senNote(slopes, SenSlope),
    slopes,
    VarSPrime,
  };
}
