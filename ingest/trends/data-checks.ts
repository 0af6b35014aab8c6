/**
 * LWP's data checks (§5): a list of values, each detected or censored (a censored one by its face value), gives
 * `ok` or the first failing note, verbatim (LWP's spelling and numbers: its notes are what users search for).
 */

export interface CheckedValue {
  readonly value: number;
  readonly censored: boolean;
}

export const OK = 'ok';

/** First tier: enough distinct and enough detected values. */
export function firstTier(detected: number, distinctDetected: number): string {
  if (distinctDetected < 3) return '< 3 unique values';
  if (detected < 5) return '< 5 Non-censored values';
  return OK;
}

/** The first tier over a list of values. */
export function firstTierOf(values: readonly CheckedValue[]): string {
  const detected = values.filter((v) => !v.censored);
  return firstTier(detected.length, new Set(detected.map((v) => v.value)).size);
}

/**
 * r, the longest run of equal consecutive differences v[k+1] − v[k] (compared exactly, as R's rle does): values
 * 2, 2, 2, 5 have differences 0, 0, 3, so r = 2. Zero for fewer than two values.
 */
export function longestRun(values: readonly number[]): number {
  let longest = 0;
  let run = 0;
  for (let k = 1; k < values.length; k++) {
    const diff = values[k]! - values[k - 1]!;
    run = k > 1 && diff === values[k - 1]! - values[k - 2]! ? run + 1 : 1;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** Both tiers, non-seasonal; `values` in text order (§4). */
export function nonSeasonalChecks(values: readonly CheckedValue[]): string {
  const first = firstTierOf(values);
  if (first !== OK) return first;
  return longestRun(values.map((v) => v.value)) / values.length > 0.5 ? 'Long run of single value' : OK;
}

/**
 * Both tiers, seasonal: `values` in text order, each with its season 0 … levels−1. Every level counts in the
 * first seasonal check, those without any value included (LWP's season factor has them all), unless `presentOnly`
 * (the interval's check, §8.6, re-levels its factor to the seasons present).
 */
export function seasonalChecks(values: readonly (CheckedValue & { readonly season: number })[], levels: number, presentOnly = false): string {
  const first = firstTierOf(values);
  if (first !== OK) return first;
  const bySeason = Array.from({ length: levels }, () => [] as number[]);
  for (const v of values) bySeason[v.season]!.push(v.value);
  const seasons = presentOnly ? bySeason.filter((s) => s.length > 0) : bySeason;
  if (seasons.some((s) => s.length < 3)) return '< 3non-NA values in Season';
  const present = seasons.filter((s) => s.length > 0);
  if (present.some((s) => new Set(s).size < 2)) return '< 3 unique values in Season';
  if (present.some((s) => s.length > 1 && longestRun(s) / s.length > 0.75)) return 'Long run of single value in a Season';
  return OK;
}
