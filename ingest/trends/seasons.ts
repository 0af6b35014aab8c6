import type { Increment, SeasonKind, TimeIncrement } from './trend-types.js';

/**
 * Seasons and the text order of increments (§4). A season is an index 0 … levels−1 of its kind, from the kept
 * observation's month. LWP holds increments in the byte order of `<label>-<year>`, and its run checks (§5) read
 * them in that order, so the labels are LWP's own.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const monthsPerSeason: Readonly<Record<SeasonKind, number>> = { month: 1, 'bi-month': 2, quarter: 3, 'half-year': 6 };

/** How many seasons of a kind a year has: 12, 6, 4 or 2. */
export function seasonLevels(kind: SeasonKind): number {
  return 12 / monthsPerSeason[kind];
}

/** The season (0-based) of a month 1 … 12. */
export function seasonOf(kind: SeasonKind, month: number): number {
  return Math.floor((month - 1) / monthsPerSeason[kind]);
}

/** LWP's label of a season: `Jan`, `Jan.to.Feb`, `Jan.to.Mar`, `Jan.to.Jun`. */
export function seasonLabel(kind: SeasonKind, season: number): string {
  const span = monthsPerSeason[kind];
  const first = MONTHS[season * span]!;
  return span === 1 ? first : `${first}.to.${MONTHS[season * span + span - 1]!}`;
}

/** The season kind of an increment: its month or its quarter. */
export function incrementSeason(increment: Exclude<TimeIncrement, 'unassessed'>): SeasonKind {
  switch (increment) {
    case 'monthly':
      return 'month';
    case 'quarterly':
      return 'quarter';
    default: {
      const never: never = increment;
      throw new Error(`no season for increment ${String(never)}`);
    }
  }
}

/** The candidate seasons of an increment (§6), in the order they are tried. */
export function candidateSeasons(increment: Exclude<TimeIncrement, 'unassessed'>): readonly SeasonKind[] {
  return increment === 'monthly' ? ['month', 'bi-month', 'quarter', 'half-year'] : ['quarter', 'half-year'];
}

/** Indices of `increments` in LWP's text order of `<label>-<year>` (byte order; labels are ASCII). */
export function textOrder(increments: readonly Increment[], increment: Exclude<TimeIncrement, 'unassessed'>): number[] {
  const kind = incrementSeason(increment);
  const keys = increments.map((inc) => `${seasonLabel(kind, seasonOf(kind, inc.month))}-${inc.year}`);
  return keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
}
