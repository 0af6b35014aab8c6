/**
 * LWP's data checks and their notes, verbatim (../shared/trends/README.md §5): a list of values, each detected or
 * censored (face values for censored ones), gives `ok` or the first failing note.
 */

export interface CheckValue {
  readonly value: number;
  readonly censored: boolean;
}

export interface SeasonalCheckValue extends CheckValue {
  readonly season: string;
}

export const OK = 'ok';

/** §5 first tier: enough distinct and enough detected values. */
export function firstTier(values: readonly CheckValue[]): string {
  const detected = values.filter((v) => !v.censored).map((v) => v.value);
  if (new Set(detected).size < 3) return '< 3 unique values';
  if (detected.length < 5) return '< 5 Non-censored values';
  return OK;
}

/**
 * The longest run of equal consecutive differences v₍ₖ₊₁₎ − vₖ, compared exactly (2, 2, 2, 5 → differences 0, 0, 3:
 * 2); 0 for fewer than two values.
 */
export function longestRunOfDifferences(values: readonly number[]): number {
  let longest = 0;
  let run = 0;
  for (let k = 1; k < values.length; k++) {
    const difference = values[k]! - values[k - 1]!;
    run = k > 1 && difference === values[k - 1]! - values[k - 2]! ? run + 1 : 1;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** §5 both tiers, non-seasonal, on values in text order. */
export function nonSeasonalChecks(values: readonly CheckValue[]): string {
  const first = firstTier(values);
  if (first !== OK) return first;
  if (longestRunOfDifferences(values.map((v) => v.value)) / values.length > 0.5) return 'Long run of single value';
  return OK;
}

/**
 * §5 both tiers, seasonal, on values in text order; `levels` are the seasons that count (every season of the kind,
 * those without values included, except in the Sen interval's check, §8.6).
 */
export function seasonalChecks(values: readonly SeasonalCheckValue[], levels: readonly string[]): string {
  const first = firstTier(values);
  if (first !== OK) return first;
  const bySeason = new Map<string, number[]>(levels.map((level) => [level, []]));
  for (const v of values) {
    const season = bySeason.get(v.season);
    if (season === undefined) throw new Error(`seasonalChecks: ${v.season} is not among the levels`);
    season.push(v.value);
  }
  const seasons = [...bySeason.values()];
  if (seasons.some((s) => s.length < 3)) return '< 3non-NA values in Season';
  // LWP's note says 3; its test is fewer than 2 distinct values in a season that has values (§11).
  if (seasons.some((s) => s.length > 0 && new Set(s).size < 2)) return '< 3 unique values in Season';
  if (seasons.some((s) => s.length > 1 && longestRunOfDifferences(s) / s.length > 0.75)) return 'Long run of single value in a Season';
  return OK;
}
