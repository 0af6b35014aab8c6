import { OK, seasonalChecks } from './data-checks.js';
import { chiSquareUpperTail } from './distributions.js';
import { candidateSeasons, incrementSeason, seasonLevels, seasonOf, textOrder } from './seasons.js';
import type { Increment, SeasonKind, TimeIncrement } from './trend-types.js';

/**
 * Seasonality and the season used (§6): each candidate season is tested by Kruskal–Wallis on the increments' face
 * values; the data are seasonal when a usable candidate has p < 0.05, and the season is then the one with the
 * largest H (LWP 2502's `GetSeason`).
 */

export interface KruskalWallis {
  readonly H: number;
  readonly p: number;
}

/** Average ranks (1-based) of `values`, ties sharing the mean of their ranks. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && values[order[end + 1]!] === values[order[start]!]) end++;
    const rank = (start + end + 2) / 2;
    for (let k = start; k <= end; k++) ranks[order[k]!] = rank;
    start = end + 1;
  }
  return ranks;
}

/** Kruskal–Wallis H with the tie correction, and its χ² p on (groups with values − 1) degrees of freedom. */
export function kruskalWallis(values: readonly number[], groups: readonly number[]): KruskalWallis | undefined {
  const n = values.length;
  const ranks = averageRanks(values);
  const sums = new Map<number, { r: number; n: number }>();
  ranks.forEach((r, i) => {
    const g = sums.get(groups[i]!) ?? { r: 0, n: 0 };
    sums.set(groups[i]!, { r: g.r + r, n: g.n + 1 });
  });
  if (sums.size < 2) return undefined;
  let statistic = 0;
  for (const g of sums.values()) statistic += (g.r * g.r) / g.n;
  const ties = [...Map.groupBy(values, (v) => v).values()].reduce((acc, t) => acc + (t.length ** 3 - t.length), 0);
  const H = ((12 * statistic) / (n * (n + 1)) - 3 * (n + 1)) / (1 - ties / (n ** 3 - n));
  return { H, p: chiSquareUpperTail(H, sums.size - 1) };
}

/** A candidate's test, or undefined when it is not usable (its checks fail, too few observations, no variation). */
export function candidateTest(increments: readonly Increment[], kind: SeasonKind, order: readonly number[], observations: number): KruskalWallis | undefined {
  const seasons = increments.map((inc) => seasonOf(kind, inc.month));
  const checked = order.map((i) => ({ value: increments[i]!.value, censored: increments[i]!.censoring !== 'not', season: seasons[i]! }));
  if (seasonalChecks(checked, seasonLevels(kind)) !== OK) return undefined;
  if (observations <= 5 || new Set(increments.map((inc) => inc.value)).size <= 1) return undefined;
  return kruskalWallis(increments.map((inc) => inc.value), seasons);
}

export interface Seasonality {
  readonly seasonal: boolean;
  /** The season of a seasonal test; null when non-seasonal. */
  readonly season: SeasonKind | null;
  /** The chosen season's p, or for a non-seasonal test the increment's own candidate's (null when not usable). */
  readonly p: number | null;
}

export function seasonality(increments: readonly Increment[], increment: Exclude<TimeIncrement, 'unassessed'>, observations: number): Seasonality {
  const order = textOrder(increments, increment);
  let best: { kind: SeasonKind; test: KruskalWallis } | undefined;
  let own: KruskalWallis | undefined;
  for (const kind of candidateSeasons(increment)) {
    const test = candidateTest(increments, kind, order, observations);
    if (kind === incrementSeason(increment)) own = test;
    if (test && test.p < 0.05 && (!best || test.H > best.test.H)) best = { kind, test };
  }
  return best ? { seasonal: true, season: best.kind, p: best.test.p } : { seasonal: false, season: null, p: own?.p ?? null };
}
