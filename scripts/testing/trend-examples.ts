/**
 * The worked examples of ../shared/trends/README.md §12 as data, for the oracle's tests and for production tests that
 * build datasets from them, with the README's expected figures and its tolerances (§10, end).
 */
import type { TrendObservation } from './trend-increments.js';

/** `2020-08-11 <0.01` style pairs → observations in listing order (Id 1, 2, …; no time). */
export function trendObservations(pairs: readonly (readonly [date: string, value: string])[]): TrendObservation[] {
  return pairs.map(([date, text], i) => {
    const censoring = text.startsWith('<') ? '<' : text.startsWith('>') ? '>' : null;
    const value = Number(censoring === null ? text : text.slice(1));
    if (!Number.isFinite(value) || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`trendObservations: ${date} ${text}`);
    return { date, time: null, id: i + 1, value, censoring };
  });
}

/** `YYYY: MM-DD value, …` blocks, one per year, as the README lists the censored examples. */
function byYear(text: string): [string, string][] {
  return text.trim().split('\n').flatMap((line) => {
    const [year, rest] = line.split(':') as [string, string];
    return rest.split(',').map((item) => {
      const [monthDay, value] = item.trim().split(/\s+/) as [string, string];
      return [`${year.trim()}-${monthDay}`, value] as [string, string];
    });
  });
}

/** Values for consecutive months from January of `firstYear`, each dated on the 1st. */
function monthly(firstYear: number, values: string): [string, string][] {
  return values.trim().split(/\s+/).map((v, i) => {
    const year = firstYear + Math.floor(i / 12);
    return [`${year}-${String((i % 12) + 1).padStart(2, '0')}-01`, v];
  });
}

/** §12.1: EPA (2009) Unified Guidance Example 17-6, sulfate (ppm), dated on the 1st of the month. */
export const sulfateEx176 = trendObservations(
  `1989-06 480, 1989-08 450, 1990-01 490, 1990-03 520, 1990-06 485, 1990-08 510, 1991-01 510, 1991-03 530, 1991-06 510,
   1991-08 560, 1992-01 560, 1992-06 540, 1993-01 590, 1993-06 550, 1994-01 600, 1994-06 700, 1995-01 570, 1995-06 610,
   1995-08 650, 1996-01 620, 1996-03 830, 1996-06 720, 1996-08 590`
    .split(',').map((item) => {
      const [month, value] = item.trim().split(' ') as [string, string];
      return [`${month}-01`, value] as const;
    }),
);

/** §12.2: EPA (2009) Unified Guidance Example 14-10 (EnvStats `EPA.09.Ex.14.8.df`), monthly 1983–1985. */
export const ex1410 = trendObservations(monthly(1983, `
  1.99 2.10 2.12 2.12 2.11 2.15 2.19 2.18 2.16 2.08 2.05 2.08
  2.01 2.10 2.17 2.13 2.13 2.18 2.25 2.24 2.22 2.13 2.08 2.16
  2.15 2.17 2.27 2.23 2.24 2.26 2.31 2.32 2.28 2.22 2.19 2.22`));

/** §12.3: ammonia (`Ammonia and ammonium`, mg/L), left-censored with limits 0.01 → 0.005 → 0.02. */
export const ammonia = trendObservations(byYear(`
2020: 01-09 0.018, 02-08 0.037, 03-15 0.015, 04-18 0.014, 05-18 0.017, 06-15 0.011, 07-20 0.016, 08-11 <0.01, 09-11 <0.01, 10-15 0.027, 11-15 <0.01, 12-20 0.02
2021: 01-17 0.028, 02-06 0.024, 03-11 0.021, 04-14 0.017, 05-14 0.011, 06-08 <0.01, 07-05 <0.01, 08-12 0.012, 09-23 <0.01, 10-24 0.011, 11-14 0.01, 12-15 0.027
2022: 01-24 0.013, 02-13 0.0061, 03-22 0.017, 04-17 0.011, 05-08 0.0064, 06-23 <0.005, 07-18 0.0071, 08-24 0.0091, 09-06 <0.005, 10-10 0.0084, 11-07 0.021, 12-05 0.023
2023: 01-15 0.011, 02-19 0.0097, 03-21 0.014, 04-10 0.0058, 05-08 0.017, 05-22 0.019, 06-05 0.0067, 07-07 0.006, 08-15 0.0062, 09-13 <0.005, 10-14 <0.005, 11-06 0.01, 12-21 0.0084
2024: 01-21 <0.02, 02-21 <0.02, 03-09 0.025, 04-18 <0.02, 05-13 <0.02, 06-12 <0.02, 07-11 <0.02, 08-09 <0.02, 09-22 <0.02, 10-07 <0.02, 11-19 <0.02, 12-14 <0.02`));

/** §12.4: E. coli (`Escherichia coli`, MPN/100mL), quarterly, with `<` and `>` values. */
export const ecoli = trendObservations(byYear(`
2015: 02-13 58, 05-04 93, 08-05 745, 11-21 91
2016: 02-04 45, 05-05 97, 08-16 >2419.6, 11-20 197
2017: 02-16 87, 05-10 226, 08-23 165, 11-21 32
2018: 02-21 <10, 05-04 718, 08-20 1317, 11-07 95
2019: 02-20 62, 05-24 300, 08-08 2288, 11-09 376
2020: 02-14 123, 05-21 441, 08-04 454, 11-20 100
2021: 02-16 50, 05-17 79, 08-14 659, 11-25 1024
2022: 02-10 89, 05-18 339, 08-13 1072, 11-05 117
2023: 02-06 29, 05-13 245, 08-07 >2419.6, 11-24 182
2024: 02-05 61, 05-13 87, 08-13 >2419.6, 11-21 94`));

/** §10's agreement between implementations: exact, or relative (with 1e-12 absolute near zero). */
export function trendTolerance(field: string): 'exact' | number {
  if (['VarS', 'Tau', 'Z', 'C', 'Median'].includes(field)) return 1e-9;
  if (['P', 'Cd', 'SeasonalityP', 'SenSlope', 'SenSlopeLower90', 'SenSlopeUpper90', 'PercentAnnualChange'].includes(field)) return 1e-6;
  return 'exact';
}

/** Whether `actual` agrees with `expected` within §10's tolerance for `field`. */
export function agreesWithin(field: string, actual: unknown, expected: unknown): boolean {
  const tolerance = trendTolerance(field);
  if (tolerance === 'exact' || typeof actual !== 'number' || typeof expected !== 'number') return actual === expected;
  const difference = Math.abs(actual - expected);
  return difference <= 1e-12 || difference <= tolerance * Math.max(Math.abs(actual), Math.abs(expected));
}

/** §12's figures through Trends (the whole row as the README gives it), by example and period. */
export const trendExpected = {
  sulfateEx176: { Observations: 23, Months: 23, Quarters: 20, Years: 8, TimeIncrement: 'unassessed', Direction: 'Not Analysed', Reason: 'unassessed' },
  ex1410: {
    TimeIncrement: 'monthly', Months: 36, N: 36, Seasonal: true, Season: 'bi-month', SeasonalityP: 0.020812045403680382,
    S: 63, VarS: 148.8, Tau: 0.7, Z: 5.0826502273256358, P: 3.7220472106298424e-07, Cd: 1.8610236053149212e-07,
    SenSlope: 0.063357377675082913, SenSlopeLower90: 0.055328698208980051, SenSlopeUpper90: 0.070014943928331963,
    Median: 2.165, PercentAnnualChange: 2.9264377679022133, Direction: 'Increasing', ImprovesWhen: 'decreasing',
    Category: 'Very likely degrading', Reason: null,
  },
  ammonia: {
    Observations: 61, Months: 60, TimeIncrement: 'monthly', N: 60, NCensored: 21, Seasonal: true, Season: 'quarter',
    SeasonalityP: 0.024743564612736468, S: -100, VarS: 1385.6739926739926, Tau: -0.23809523809523808,
    Z: -2.6595285795488777, P: 0.0078250090914562948, C: 0.99608749545427189, Cd: 0.99608749545427189,
    SenSlope: -0.00039810596361774115, SenSlopeLower90: -0.0017574479689398308, SenSlopeUpper90: 0, Median: 0.01,
    PercentAnnualChange: -3.9810596361774113, AnalysisNote: 'WARNING: Sen slope influenced by censored values',
    Direction: 'Decreasing', Category: 'Very likely improving',
  },
  ecoli2020: {
    TimeIncrement: 'quarterly', N: 20, NCensored: 2, Seasonal: true, Season: 'quarter', SeasonalityP: 0.0054738087815019397,
    S: -1, VarS: 65.666666666666671, Tau: -0.025, Z: 0, P: 1, Cd: 0.5, SenSlope: -0.74948700410396718,
    SenSlopeLower90: -44.640525805274663, SenSlopeUpper90: 37.139795850309248, Median: 152.5,
    PercentAnnualChange: -0.4914668879370277, AnalysisNote: 'WARNING: Sen slope influenced by censored values',
    Direction: 'Indeterminate', Category: 'Indeterminate',
  },
  ecoli2015: {
    TimeIncrement: 'quarterly', N: 40, NCensored: 4, Seasonal: true, Season: 'quarter', SeasonalityP: 1.042867025055444e-05,
    S: 25, VarS: 496.33333333333331, Tau: 0.1388888888888889, Z: 1.0772698871085742, P: 0.28135971111695296,
    Cd: 0.14067985555847648, SenSlope: 3.4347348900220993, SenSlopeLower90: -1.3853067638411727,
    SenSlopeUpper90: 15.738401025718051, Median: 144, PercentAnnualChange: 2.385232562515347, AnalysisNote: 'ok',
    Direction: 'Increasing', Category: 'Likely degrading',
  },
} as const;
