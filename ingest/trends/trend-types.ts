/**
 * The values a trend is computed from and what it computes (../shared/trends/README.md is the contract: section
 * numbers below are its). One series × period arrives from SQL as a `SeriesPeriod`; `analyseSeries` turns it into
 * a `TrendStatistics`.
 */

/** `not`: detected; `lt`: below its limit (`<`); `gt`: above it (`>`). A censored value's `value` is its limit. */
export type Censoring = 'not' | 'lt' | 'gt';

export type TimeIncrement = 'monthly' | 'quarterly' | 'unassessed';

/** The candidate seasons, in the order §6 tries them. */
export const seasonKinds = ['month', 'bi-month', 'quarter', 'half-year'] as const;
export type SeasonKind = (typeof seasonKinds)[number];

/** One kept observation per year × month or quarter (§4). */
export interface Increment {
  /** The kept observation's Id: stored in `IncrementObservationIds` so a chart marks what was kept. */
  readonly observationId: bigint;
  /** Its date, in days since 1970-01-01. */
  readonly day: number;
  readonly year: number;
  /** 1 … 12, the month of its date. */
  readonly month: number;
  /** The face value: the result, or the limit of a censored one. */
  readonly value: number;
  readonly censoring: Censoring;
}

/** A series' observations in one period, counted (§3), with its increments when it is assessed (§4). */
export interface SeriesPeriod {
  readonly startYear: number;
  readonly endYear: number;
  readonly observations: number;
  readonly years: number;
  readonly months: number;
  readonly quarters: number;
  /** Detected observations of the period (the Kendall stage's first tier reads it, §5). */
  readonly detected: number;
  /**
   * How many distinct values they have, counted only when fewer than 5 are detected (null otherwise). With 5 or more,
   * the first tier over the period's observations says what the same tier over the increments (a subset of them)
   * says: distinct ones fewer than 3 fail both with the same note, and otherwise the period's pass and the
   * increments' decide.
   */
  readonly distinctDetected: number | null;
  readonly timeIncrement: TimeIncrement;
  /** In time order; empty when unassessed. */
  readonly increments: readonly Increment[];
}

/** Everything §5–§8 compute for an assessed row; null where the analysis stopped before it. */
export interface TrendStatistics {
  readonly N: number;
  readonly NCensored: number;
  readonly Seasonal: boolean;
  readonly Season: SeasonKind | null;
  readonly SeasonalityP: number | null;
  readonly S: number | null;
  readonly VarS: number | null;
  readonly Tau: number | null;
  readonly Z: number | null;
  readonly P: number | null;
  readonly C: number | null;
  readonly Cd: number | null;
  readonly Median: number | null;
  readonly SenSlope: number | null;
  readonly SenSlopeLower90: number | null;
  readonly SenSlopeUpper90: number | null;
  readonly PercentAnnualChange: number | null;
  readonly AnalysisNote: string;
}
