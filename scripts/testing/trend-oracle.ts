/**
 * Independent oracle for `Trends` (../shared/trends/README.md): one series' rows, one per period, with every §10 field,
 * LWP-Trends as LAWA runs it with every quirk of §11, written from the README alone for tests of the production's
 * trends stage. Readable first: it is the reference a reviewer checks the production against.
 */
import { firstTier, nonSeasonalChecks, OK, seasonalChecks } from './trend-checks.js';
import { category, direction, improvesWhen, reason, type ImprovesWhen } from './trend-direction.js';
import { coverage, inTextOrder, keepIncrements, seasonLabel, seasonLevels, type Increment, type SeasonKind, type TimeIncrement, type TrendObservation } from './trend-increments.js';
import { kendall, kendallTest, kruskalWallis } from './trend-kendall.js';
import { median, senSlope, substitute, type SenResult } from './trend-sen.js';
import { parsePeriods, type Period } from './trend-series.js';

export type { TrendObservation } from './trend-increments.js';
export { hubEndYear, parsePeriods, trendSeries, usableTrendObservation, type Period, type SeriesKey, type TrendSeries } from './trend-series.js';

export const TRENDS_METHOD = 'LWP-Trends 2502 (LAWA rules)';

/** One `Trends` row's computed fields (§10), the series' key aside. */
export interface TrendRow {
  readonly Period: number; readonly StartYear: number; readonly EndYear: number;
  readonly Observations: number; readonly Months: number; readonly Quarters: number; readonly Years: number;
  readonly TimeIncrement: TimeIncrement;
  readonly N: number | null; readonly NCensored: number | null;
  readonly Seasonal: boolean | null; readonly Season: SeasonKind | null; readonly SeasonalityP: number | null;
  readonly S: number | null; readonly VarS: number | null; readonly Tau: number | null;
  readonly Z: number | null; readonly P: number | null; readonly C: number | null; readonly Cd: number | null;
  readonly Median: number | null;
  readonly SenSlope: number | null; readonly SenSlopeLower90: number | null; readonly SenSlopeUpper90: number | null;
  readonly PercentAnnualChange: number | null;
  readonly AnalysisNote: string | null;
  readonly Direction: string; readonly ImprovesWhen: ImprovesWhen; readonly Category: string | null; readonly Reason: string | null;
  readonly Method: string;
}

/** A seasonality candidate (§6): its checks' note and, when usable, Kruskal–Wallis. */
export interface SeasonCandidate {
  readonly season: SeasonKind;
  readonly note: string;
  readonly usable: boolean;
  readonly H: number | null;
  readonly p: number | null;
}

/** What a test may look at beyond the row: the candidates of §6 and the slope stage of §8. */
export interface TrendDetail {
  readonly row: TrendRow;
  readonly increments: readonly Increment[];
  readonly candidates: readonly SeasonCandidate[];
  readonly sen: SenResult | null;
}

export interface TrendOptions {
  readonly endYear: number;
  /** `TRENDS_PERIODS` as the setting reads (`5,10,15`, `2020-2024`), or the periods themselves. */
  readonly periods: string | readonly Period[];
  /** For the polarity (§9); a characteristic outside §9's lists improves when decreasing. */
  readonly characteristicName: string;
}

/** One series' usable observations → its rows, one per period that has observations (§2). */
export function trendRows(observations: readonly TrendObservation[], options: TrendOptions): TrendRow[] {
  return trendDetails(observations, options).map((d) => d.row);
}

/** trendRows with what led to each row: the kept increments, the season candidates and the slope stage. */
export function trendDetails(observations: readonly TrendObservation[], options: TrendOptions): TrendDetail[] {
  const periods = typeof options.periods === 'string' ? parsePeriods(options.periods, options.endYear) : options.periods;
  return periods.flatMap((period) => {
    const inPeriod = observations.filter((o) => o.date >= `${period.startYear}-01-01` && o.date <= `${period.endYear}-12-31`);
    return inPeriod.length === 0 ? [] : [analysePeriod(inPeriod, period, options.characteristicName)];
  });
}

const NO_STATISTICS = {
  S: null, VarS: null, Tau: null, Z: null, P: null, C: null, Cd: null,
  Median: null, SenSlope: null, SenSlopeLower90: null, SenSlopeUpper90: null, PercentAnnualChange: null,
} as const;

/** One period of one series, its observations already cut to the period. */
export function analysePeriod(observations: readonly TrendObservation[], period: Period, characteristicName: string): TrendDetail {
  const length = period.endYear - period.startYear + 1;
  const counts = coverage(observations, length);
  const polarity = improvesWhen(characteristicName);
  const base = { Period: length, StartYear: period.startYear, EndYear: period.endYear, ...counts, ImprovesWhen: polarity, Method: TRENDS_METHOD };
  const verdict = (Cd: number | null, unassessed = false) =>
    ({ Direction: direction(Cd), Category: category(Cd, polarity), Reason: reason(unassessed, Cd, polarity) });
  if (counts.TimeIncrement === 'unassessed') {
    const row = { ...base, N: null, NCensored: null, Seasonal: null, Season: null, SeasonalityP: null, ...NO_STATISTICS, AnalysisNote: null, ...verdict(null, true) };
    return { row, increments: [], candidates: [], sen: null };
  }
  const increments = keepIncrements(observations, counts.TimeIncrement);
  const candidates = seasonCandidates(increments, observations.length, counts.TimeIncrement);
  const chosen = chooseSeason(candidates);
  const seasonality = {
    N: increments.length,
    NCensored: increments.filter((i) => i.observation.censoring !== null).length,
    Seasonal: chosen !== undefined,
    Season: chosen?.season ?? null,
    SeasonalityP: chosen?.p ?? candidates[0]!.p,
  };
  const stage = kendallStage(observations, increments, chosen?.season);
  if (stage.kind === 'failed') {
    const row = { ...base, ...seasonality, ...NO_STATISTICS, ...stage.statistics, AnalysisNote: stage.note, ...verdict(null) };
    return { row, increments, candidates, sen: null };
  }
  const sen = senSlope(increments.map((i) => ({
    value: substitute(i.observation.value, i.observation.censoring), censoring: i.observation.censoring,
    day: i.day, year: i.year, season: chosen === undefined ? null : seasonLabel(i.month, chosen.season), text: i.text,
  })));
  const Median = median(increments.map((i) => substitute(i.observation.value, i.observation.censoring)));
  const row = {
    ...base, ...seasonality, ...stage.statistics, Median,
    SenSlope: sen.SenSlope, SenSlopeLower90: sen.SenSlopeLower90, SenSlopeUpper90: sen.SenSlopeUpper90,
    PercentAnnualChange: Median === 0 ? null : (sen.SenSlope / Math.abs(Median)) * 100,
    AnalysisNote: sen.AnalysisNote, ...verdict(stage.statistics.Cd),
  };
  return { row, increments, candidates, sen };
}

/** §6: the candidates in order: month, bi-month, quarter, half-year for monthly increments; quarter, half-year for quarterly. */
export function seasonCandidates(increments: readonly Increment[], observations: number, increment: 'monthly' | 'quarterly'): SeasonCandidate[] {
  const kinds: SeasonKind[] = increment === 'monthly' ? ['month', 'bi-month', 'quarter', 'half-year'] : ['quarter', 'half-year'];
  const faces = increments.map((i) => i.observation.value);
  const textOrder = inTextOrder(increments);
  return kinds.map((season) => {
    const note = seasonalChecks(checkValues(textOrder, season), seasonLevels(season));
    const usable = note === OK && observations > 5 && new Set(faces).size > 1;
    if (!usable) return { season, note, usable, H: null, p: null };
    const { H, p } = kruskalWallis(faces, increments.map((i) => seasonLabel(i.month, season)));
    return { season, note, usable, H, p };
  });
}

/** §6: among usable candidates with p < 0.05, the largest H; the earlier candidate on equal H. */
export function chooseSeason(candidates: readonly SeasonCandidate[]): SeasonCandidate | undefined {
  return candidates
    .filter((c) => c.usable && c.p! < 0.05)
    .reduce<SeasonCandidate | undefined>((best, c) => (best === undefined || c.H! > best.H! ? c : best), undefined);
}

function checkValues(increments: readonly Increment[], season: SeasonKind) {
  return increments.map((i) => ({ value: i.observation.value, censored: i.observation.censoring !== null, season: seasonLabel(i.month, season) }));
}

type KendallStage =
  | { kind: 'ok'; statistics: { S: number; VarS: number; Tau: number; Z: number; P: number; C: number; Cd: number } }
  | { kind: 'failed'; note: string; statistics: { S: number; VarS: number; Tau: number } | Record<string, never> };

/** §7: the checks, then S, VarS, D (per season and summed when seasonal), then Z … Cd when they can be computed. */
function kendallStage(observations: readonly TrendObservation[], increments: readonly Increment[], season: SeasonKind | undefined): KendallStage {
  let note = firstTier(observations.map((o) => ({ value: o.value, censored: o.censoring !== null })));
  if (note === OK) {
    const textOrder = inTextOrder(increments);
    note = season === undefined
      ? nonSeasonalChecks(textOrder.map((i) => ({ value: i.observation.value, censored: i.observation.censoring !== null })))
      : seasonalChecks(checkValues(textOrder, season), seasonLevels(season));
  }
  if (note !== OK) return { kind: 'failed', note, statistics: {} };
  const { S, VarS, D } = season === undefined
    ? kendall(increments.map((i) => ({ value: i.observation.value, censoring: i.observation.censoring, timeKey: i.text })))
    : seasonalKendall(increments, season);
  const enough = season === undefined ? increments.length >= 3 : increments.length >= 10;
  if (!(enough && VarS > 0)) {
    const failed = season === undefined ? 'Not Analysed' : 'Insufficent data to complete Seasonal Mann Kendall';
    return { kind: 'failed', note: failed, statistics: { S, VarS, Tau: S / D } };
  }
  return { kind: 'ok', statistics: { S, VarS, Tau: S / D, ...kendallTest(S, VarS) } };
}

/** §7: one Kendall computation per season, over its increments in time order, tied in time within a year. */
function seasonalKendall(increments: readonly Increment[], season: SeasonKind): { S: number; VarS: number; D: number } {
  const labels = [...new Set(increments.map((i) => seasonLabel(i.month, season)))];
  return labels.reduce((total, label) => {
    const k = kendall(increments
      .filter((i) => seasonLabel(i.month, season) === label)
      .map((i) => ({ value: i.observation.value, censoring: i.observation.censoring, timeKey: String(i.year) })));
    return { S: total.S + k.S, VarS: total.VarS + k.VarS, D: total.D + k.D };
  }, { S: 0, VarS: 0, D: 0 });
}
