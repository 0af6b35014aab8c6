/**
 * Coverage, the time increment, one value per increment and seasons: ../shared/trends/README.md §3 and §4, written
 * from the README alone as the reference the production's trends stage is checked against.
 */

/** One usable observation of one series (§1): its face value is its limit when censored. */
export interface TrendObservation {
  /** `YYYY-MM-DD`. */
  readonly date: string;
  readonly time: string | null;
  readonly id: number;
  readonly value: number;
  readonly censoring: '<' | '>' | null;
}

export type TimeIncrement = 'monthly' | 'quarterly' | 'unassessed';
export type SeasonKind = 'month' | 'bi-month' | 'quarter' | 'half-year';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** How many months each season spans. */
const SEASON_MONTHS: Readonly<Record<SeasonKind, number>> = { month: 1, 'bi-month': 2, quarter: 3, 'half-year': 6 };

/** §4's labels: `Jan`…; `Jan.to.Feb`, `Mar.to.Apr`…; `Jan.to.Mar`…; `Jan.to.Jun`, `Jul.to.Dec`. */
export function seasonLabel(month: number, kind: SeasonKind): string {
  const span = SEASON_MONTHS[kind];
  const first = Math.floor((month - 1) / span) * span;
  return span === 1 ? MONTHS[first]! : `${MONTHS[first]}.to.${MONTHS[first + span - 1]}`;
}

/** Every season of a kind, those without any value included (§5's season levels). */
export function seasonLevels(kind: SeasonKind): string[] {
  return [...new Set(MONTHS.map((_, i) => seasonLabel(i + 1, kind)))];
}

/** Canonical order (§1): date, then time with a missing time first, then Id. */
export function compareCanonical(a: TrendObservation, b: TrendObservation): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  if (a.time !== b.time) return a.time === null ? -1 : b.time === null ? 1 : a.time < b.time ? -1 : 1;
  return a.id - b.id;
}

const yearOf = (date: string): number => Number(date.slice(0, 4));
const monthOf = (date: string): number => Number(date.slice(5, 7));

/** Days since 1970-01-01 of a `YYYY-MM-DD` date. */
export function dayNumber(date: string): number {
  return Date.UTC(yearOf(date), monthOf(date) - 1, Number(date.slice(8, 10))) / 86_400_000;
}

export interface Coverage {
  readonly Observations: number;
  readonly Months: number;
  readonly Quarters: number;
  readonly Years: number;
  readonly TimeIncrement: TimeIncrement;
}

/** §3's thresholds, "≥ 90 %" in whole numbers. */
export function coverageThresholds(period: number): { months: number; quarters: number; years: number } {
  const div10 = (x: number) => Math.floor(x / 10);
  return { months: div10(108 * period + 9), quarters: div10(36 * period + 9), years: div10(9 * period + 9) };
}

/** §3: the period's counts and its time increment, monthly first, then quarterly. */
export function coverage(observations: readonly TrendObservation[], period: number): Coverage {
  const distinct = (key: (o: TrendObservation) => string) => new Set(observations.map(key)).size;
  const Months = distinct((o) => o.date.slice(0, 7));
  const Quarters = distinct((o) => `${yearOf(o.date)}-${Math.ceil(monthOf(o.date) / 3)}`);
  const Years = distinct((o) => o.date.slice(0, 4));
  const need = coverageThresholds(period);
  const TimeIncrement: TimeIncrement = Years < need.years ? 'unassessed'
    : Months >= need.months ? 'monthly' : Quarters >= need.quarters ? 'quarterly' : 'unassessed';
  return { Observations: observations.length, Months, Quarters, Years, TimeIncrement };
}

/** The observation kept for one year × increment (§4), with what the later stages read of it. */
export interface Increment {
  readonly observation: TrendObservation;
  readonly year: number;
  readonly month: number;
  /** Days since 1970-01-01 of the kept observation's date. */
  readonly day: number;
  /** `<label>-<year>`, e.g. `Apr-2015` or `Apr.to.Jun-2015`: LWP's text order (§4). */
  readonly text: string;
}

/** §4: the middle of increment k (0 … m−1) of a year with m increments, in days after 1 January. */
export function incrementMiddle(k: number, perYear: number): number {
  return (365 / perYear / 2 + k * (365 / perYear)) - 1;
}

/**
 * §4: within each year × increment, the observation closest to the increment's middle; on equal distance (only
 * same-date observations can tie) the first in canonical order. Returned in time order.
 */
export function keepIncrements(observations: readonly TrendObservation[], increment: 'monthly' | 'quarterly'): Increment[] {
  const perYear = increment === 'monthly' ? 12 : 4;
  const kind: SeasonKind = increment === 'monthly' ? 'month' : 'quarter';
  const best = new Map<string, { observation: TrendObservation; distance: number }>();
  for (const observation of [...observations].sort(compareCanonical)) {
    const year = yearOf(observation.date);
    const k = Math.floor((monthOf(observation.date) - 1) / (12 / perYear));
    const middle = dayNumber(`${year}-01-01`) + incrementMiddle(k, perYear);
    const distance = Math.abs(dayNumber(observation.date) - middle);
    const key = `${seasonLabel(monthOf(observation.date), kind)}-${year}`;
    const current = best.get(key);
    if (current === undefined || distance < current.distance) best.set(key, { observation, distance });
  }
  return [...best].map(([text, { observation }]) => ({
    observation, text, year: yearOf(observation.date), month: monthOf(observation.date), day: dayNumber(observation.date),
  })).sort((a, b) => compareCanonical(a.observation, b.observation));
}

/** Increments in LWP's text order (§4: byte order of `<label>-<year>`), which only the run checks read. */
export function inTextOrder<T extends { readonly text: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
}
