import { firstTier, nonSeasonalChecks, OK, seasonalChecks } from './data-checks.js';
import { kendall, kendallTest, seasonalKendall, type KendallSums, type KendallValue } from './kendall.js';
import { seasonality, type Seasonality } from './seasonality.js';
import { seasonLevels, seasonOf, textOrder } from './seasons.js';
import { senSlope, substituted, type SlopePoint } from './sen-slope.js';
import type { Increment, SeriesPeriod, TimeIncrement, TrendStatistics } from './trend-types.js';

/**
 * One assessed series × period, start to end (§5–§8): the season, the Kendall stage with its checks, then the Sen
 * slope. Pure: the increments in, the statistics out; quadratic in the increments (at most 180).
 */

type Assessed = Exclude<TimeIncrement, 'unassessed'>;

/** The statistics of an assessed row, or undefined for an unassessed one. */
export function analyseSeries(period: SeriesPeriod): TrendStatistics | undefined {
  const increment = period.timeIncrement;
  if (increment === 'unassessed') return undefined;
  const incs = period.increments;
  const season = seasonality(incs, increment, period.observations);
  const base = {
    N: incs.length,
    NCensored: incs.filter((i) => i.censoring !== 'not').length,
    Seasonal: season.seasonal,
    Season: season.season,
    SeasonalityP: season.p,
  };
  const note = kendallChecks(period, increment, season);
  if (note !== OK) return { ...base, ...noStatistics, AnalysisNote: note };
  const sums = kendallSums(incs, season);
  const enough = season.seasonal ? incs.length >= 10 : sums.n >= 3;
  const Tau = sums.S / sums.D;
  if (!(enough && sums.VarS > 0)) {
    const why = season.seasonal ? 'Insufficent data to complete Seasonal Mann Kendall' : 'Not Analysed';
    return { ...base, ...noStatistics, S: sums.S, VarS: sums.VarS, Tau, AnalysisNote: why };
  }
  return { ...base, S: sums.S, VarS: sums.VarS, Tau, ...kendallTest(sums.S, sums.VarS), ...slopeStatistics(incs, increment, season) };
}

/** §8 over the increments: their values substituted, pairs within a season (all pairs when non-seasonal). */
function slopeStatistics(incs: readonly Increment[], increment: Assessed, season: Seasonality) {
  const points = incs.map((inc): SlopePoint => ({
    value: substituted(inc.value, inc.censoring),
    censoring: inc.censoring,
    day: inc.day,
    season: seasonIndex(inc, season),
    seasonYear: season.seasonal ? inc.year : inc.day,
  }));
  const sen = senSlope(points, textOrder(incs, increment), season.seasonal);
  return {
    Median: sen.median,
    SenSlope: sen.slope,
    SenSlopeLower90: sen.lower,
    SenSlopeUpper90: sen.upper,
    PercentAnnualChange: sen.percentAnnualChange,
    AnalysisNote: sen.note,
  };
}

const noStatistics = {
  S: null, VarS: null, Tau: null, Z: null, P: null, C: null, Cd: null,
  Median: null, SenSlope: null, SenSlopeLower90: null, SenSlopeUpper90: null, PercentAnnualChange: null,
} as const;

const seasonIndex = (inc: Increment, season: Seasonality) => (season.season === null ? 0 : seasonOf(season.season, inc.month));

/** The Kendall stage's checks (§5): the first tier on every observation of the period, then both on the increments. */
function kendallChecks(period: SeriesPeriod, increment: Assessed, season: Seasonality): string {
  const raw = period.distinctDetected === null ? OK : firstTier(period.detected, period.distinctDetected);
  if (raw !== OK) return raw;
  const incs = period.increments;
  const checked = textOrder(incs, increment).map((i) => ({ value: incs[i]!.value, censored: incs[i]!.censoring !== 'not', season: seasonIndex(incs[i]!, season) }));
  return season.season === null ? nonSeasonalChecks(checked) : seasonalChecks(checked, seasonLevels(season.season));
}

/** S, VarS, D: over all increments in time order, or per season with the year as the time key (§7). */
function kendallSums(incs: readonly Increment[], season: Seasonality): KendallSums {
  if (season.season === null) return kendall(incs.map((inc, i): KendallValue => ({ value: inc.value, censoring: inc.censoring, time: i })));
  const values = incs.map((inc) => ({ value: inc.value, censoring: inc.censoring, time: inc.year, season: seasonOf(season.season!, inc.month) }));
  return seasonalKendall([...Map.groupBy(values, (v) => v.season).values()]);
}
