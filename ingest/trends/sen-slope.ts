import { OK, seasonalChecks } from './data-checks.js';
import { kendall, seasonalKendall, type KendallValue } from './kendall.js';
import type { Censoring } from './trend-types.js';

/**
 * The Sen slope, its 90 % interval, the Median and the percent annual change (§8), as LWP's `SenSlope` and
 * `SeasonalSenSlope` compute them over the increments with censored values substituted (`<` by half its limit, `>`
 * by 1.1 times it).
 */

/** An increment as the slope sees it: the substituted value v′, its censoring, its date, season and year. */
export interface SlopePoint {
  readonly value: number;
  readonly censoring: Censoring;
  readonly day: number;
  /** The season of a seasonal test (slopes pair points of one season); 0 for every point of a non-seasonal one. */
  readonly season: number;
  /**
   * Points of one season with the same key are of one season-year (§8.2: not paired, unless both are censored the
   * same way): the year in a seasonal test; in a non-seasonal one every increment is its own (its day).
   */
  readonly seasonYear: number;
}

export interface SenSlope {
  readonly slope: number;
  readonly lower: number;
  readonly upper: number;
  readonly note: string;
  readonly median: number;
  readonly percentAnnualChange: number | null;
}

/** The 95th percentile of the standard normal: the interval is 90 %. */
const Z95 = 1.6448536269514722;

/** The value a censored observation takes in the slope (§8.1). */
export function substituted(value: number, censoring: Censoring): number {
  return censoring === 'lt' ? value * 0.5 : censoring === 'gt' ? value * 1.1 : value;
}

/** R's median: the middle value, or the mean of the two middle ones. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Slope {
  readonly slope: number;
  /** Both ends censored (`<` or `>`), and whether either is. */
  readonly bothCensored: boolean;
  readonly anyCensored: boolean;
}

/** A pair's slope (i earlier, j later) after LWP's censoring rules (§8.3); undefined for a pair left out (§8.2). */
function pairSlope(i: SlopePoint, j: SlopePoint): Slope | undefined {
  const both = i.censoring !== 'not' && j.censoring !== 'not';
  const any = i.censoring !== 'not' || j.censoring !== 'not';
  const sameKind = both && i.censoring === j.censoring;
  if (sameKind) return { slope: 0, bothCensored: true, anyCensored: true };
  if (i.season === j.season && i.seasonYear === j.seasonYear) return undefined;
  const raw = (j.value - i.value) / ((j.day - i.day) / 365.25);
  const later = j.censoring;
  const earlier = i.censoring;
  const zeroed =
    (raw > 0 && later === 'lt' && earlier === 'not') ||
    (raw < 0 && later === 'not' && earlier === 'lt') ||
    (raw > 0 && later === 'not' && earlier === 'gt') ||
    (raw < 0 && later === 'gt' && earlier === 'not');
  return { slope: zeroed ? 0 : raw, bothCensored: both, anyCensored: any };
}

/** Every slope: all pairs non-seasonal (one season), pairs within a season when seasonal. */
function allSlopes(points: readonly SlopePoint[]): Slope[] {
  const slopes: Slope[] = [];
  for (let a = 0; a < points.length; a++) {
    for (let b = a + 1; b < points.length; b++) {
      if (points[a]!.season !== points[b]!.season) continue;
      const s = pairSlope(points[a]!, points[b]!);
      if (s) slopes.push(s);
    }
  }
  return slopes;
}

/** §8.5: what the slopes nearest the median say about censoring. */
function slopeNote(slopes: readonly Slope[], senSlope: number): string {
  const distance = Math.min(...slopes.map((s) => Math.abs(s.slope - senSlope)));
  const nearest = slopes.filter((s) => Math.abs(s.slope - senSlope) === distance);
  if (nearest.some((s) => s.anyCensored)) {
    return nearest.every((s) => s.bothCensored) ? 'WARNING: Sen slope based on two censored values' : 'WARNING: Sen slope influenced by censored values';
  }
  return senSlope === 0 ? 'WARNING: Sen slope based on tied non-censored values' : OK;
}

/** The bound at rank `r` of the sorted slopes (rank interpolation); undefined outside 1 … M or when r is not a number. */
function atRank(sorted: readonly number[], r: number): number | undefined {
  if (!(r >= 1 && r <= sorted.length)) return undefined;
  const lo = Math.floor(r);
  return lo === r ? sorted[lo - 1]! : sorted[lo - 1]! + (r - lo) * (sorted[lo]! - sorted[lo - 1]!);
}

/**
 * VarS′ of §8.6: the Kendall variance of v′ all treated as detected. Seasonal: after the seasonal checks on v′ (in
 * text order, the seasons present as levels), summed over the seasons; NaN when they fail.
 */
function intervalVariance(points: readonly SlopePoint[], textOrdered: readonly number[], seasonal: boolean): number {
  const detected = points.map((p): KendallValue & { season: number } => ({ value: p.value, censoring: 'not', time: p.seasonYear, season: p.season }));
  if (!seasonal) return kendall(detected).VarS;
  const checked = textOrdered.map((i) => ({ value: detected[i]!.value, censored: false, season: detected[i]!.season }));
  const levels = Math.max(...points.map((p) => p.season)) + 1;
  if (seasonalChecks(checked, levels, true) !== OK) return Number.NaN;
  return seasonalKendall([...Map.groupBy(detected, (p) => p.season).values()]).VarS;
}

/**
 * §8 over the increments (time order, values already substituted); `textOrdered` lists their indices in text order
 * (the seasonal interval's run check reads them so).
 */
export function senSlope(points: readonly SlopePoint[], textOrdered: readonly number[], seasonal: boolean): SenSlope {
  const slopes = allSlopes(points);
  const slope = median(slopes.map((s) => s.slope));
  const sorted = slopes.map((s) => s.slope).sort((a, b) => a - b);
  const spread = Z95 * Math.sqrt(intervalVariance(points, textOrdered, seasonal));
  const m = sorted.length;
  const mid = median(points.map((p) => p.value));
  return {
    slope,
    lower: atRank(sorted, (m - spread) / 2) ?? sorted[0]!,
    upper: atRank(sorted, (m + spread) / 2) ?? sorted[m - 1]!,
    note: slopeNote(slopes, slope),
    median: mid,
    percentAnnualChange: mid === 0 ? null : (slope / Math.abs(mid)) * 100,
  };
}
