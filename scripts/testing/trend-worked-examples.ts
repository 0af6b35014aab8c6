/**
 * Test support: the worked examples of shared/trends/README.md §12 as datasets of their own (the README's data,
 * written as DataStream uploads by trend-datasets.ts) with the figures the README gives, for the trend tests to
 * ingest with the real ingest and read back from the `trends` table and from the API.
 */
import { datedValues, type TestDataset, type TestObservation } from './trend-datasets.js';

/** The periods every example needs: `TRENDS_PERIODS` for one ingest of all four. */
export const WORKED_PERIODS = '1989-1996,1983-1985,2020-2024,2015-2024';

const series = (location: string, characteristic: string, unit: string, values: readonly { date: string; value: string }[], fraction?: string, speciation?: string): TestObservation[] =>
  values.map((v) => ({ location, characteristic, unit, ...(fraction ? { fraction } : {}), ...(speciation ? { speciation } : {}), ...v }));

/** §12.1: EPA 2009 Unified Guidance Example 17-6, sulfate (ppm), dated on the 1st of the month. */
export const sulfateValues = datedValues(`
1989: 06-01 480, 08-01 450
1990: 01-01 490, 03-01 520, 06-01 485, 08-01 510
1991: 01-01 510, 03-01 530, 06-01 510, 08-01 560
1992: 01-01 560, 06-01 540
1993: 01-01 590, 06-01 550
1994: 01-01 600, 06-01 700
1995: 01-01 570, 06-01 610, 08-01 650
1996: 01-01 620, 03-01 830, 06-01 720, 08-01 590`);

/** §12.2: EPA 2009 Example 14-10, monthly 1983–1985 (served as Chloride, mg/L). */
const chlorideByYear = {
  1983: '1.99 2.10 2.12 2.12 2.11 2.15 2.19 2.18 2.16 2.08 2.05 2.08',
  1984: '2.01 2.10 2.17 2.13 2.13 2.18 2.25 2.24 2.22 2.13 2.08 2.16',
  1985: '2.15 2.17 2.27 2.23 2.24 2.26 2.31 2.32 2.28 2.22 2.19 2.22',
};
export const chlorideValues = Object.entries(chlorideByYear).flatMap(([year, text]) =>
  text.split(' ').map((value, i) => ({ date: `${year}-${String(i + 1).padStart(2, '0')}-01`, value })),
);

/** §12.3: ammonia, left-censored, limits 0.01 → 0.005 → 0.02 mg/L. */
export const ammoniaValues = datedValues(`
2020: 01-09 0.018, 02-08 0.037, 03-15 0.015, 04-18 0.014, 05-18 0.017, 06-15 0.011, 07-20 0.016, 08-11 <0.01, 09-11 <0.01, 10-15 0.027, 11-15 <0.01, 12-20 0.02
2021: 01-17 0.028, 02-06 0.024, 03-11 0.021, 04-14 0.017, 05-14 0.011, 06-08 <0.01, 07-05 <0.01, 08-12 0.012, 09-23 <0.01, 10-24 0.011, 11-14 0.01, 12-15 0.027
2022: 01-24 0.013, 02-13 0.0061, 03-22 0.017, 04-17 0.011, 05-08 0.0064, 06-23 <0.005, 07-18 0.0071, 08-24 0.0091, 09-06 <0.005, 10-10 0.0084, 11-07 0.021, 12-05 0.023
2023: 01-15 0.011, 02-19 0.0097, 03-21 0.014, 04-10 0.0058, 05-08 0.017, 05-22 0.019, 06-05 0.0067, 07-07 0.006, 08-15 0.0062, 09-13 <0.005, 10-14 <0.005, 11-06 0.01, 12-21 0.0084
2024: 01-21 <0.02, 02-21 <0.02, 03-09 0.025, 04-18 <0.02, 05-13 <0.02, 06-12 <0.02, 07-11 <0.02, 08-09 <0.02, 09-22 <0.02, 10-07 <0.02, 11-19 <0.02, 12-14 <0.02`);

/** §12.4: E. coli (MPN/100mL) with `<` and `>` values, quarterly. */
export const ecoliValues = datedValues(`
2015: 02-13 58, 05-04 93, 08-05 745, 11-21 91
2016: 02-04 45, 05-05 97, 08-16 >2419.6, 11-20 197
2017: 02-16 87, 05-10 226, 08-23 165, 11-21 32
2018: 02-21 <10, 05-04 718, 08-20 1317, 11-07 95
2019: 02-20 62, 05-24 300, 08-08 2288, 11-09 376
2020: 02-14 123, 05-21 441, 08-04 454, 11-20 100
2021: 02-16 50, 05-17 79, 08-14 659, 11-25 1024
2022: 02-10 89, 05-18 339, 08-13 1072, 11-05 117
2023: 02-06 29, 05-13 245, 08-07 >2419.6, 11-24 182
2024: 02-05 61, 05-13 87, 08-13 >2419.6, 11-21 94`);

export const workedDatasets: readonly TestDataset[] = [
  { folder: 'epa-17-6', doi: '10.5072/trends-epa-17-6', name: 'EPA 2009 Example 17-6', observations: series('EPA-17-6', 'Sulfate', 'ppm', sulfateValues, 'Dissolved') },
  { folder: 'epa-14-10', doi: '10.5072/trends-epa-14-10', name: 'EPA 2009 Example 14-10', observations: series('EPA-14-10', 'Chloride', 'mg/L', chlorideValues, 'Dissolved') },
  { folder: 'ammonia', doi: '10.5072/trends-ammonia', name: 'Censored example 1', observations: series('NH4-1', 'Ammonia and ammonium', 'mg/L', ammoniaValues, 'Filtered', 'as N') },
  { folder: 'ecoli', doi: '10.5072/trends-ecoli', name: 'Censored example 2', observations: series('ECOLI-1', 'Escherichia coli', 'MPN/100mL', ecoliValues) },
];

/** A row's key in the examples: its characteristic and period. */
export interface WorkedRow {
  readonly CharacteristicName: string;
  readonly StartYear: number;
  readonly EndYear: number;
  /** Fields compared exactly (counts, text, S). */
  readonly exact: Readonly<Record<string, string | number | boolean | null>>;
  /** Fields compared to 1e-9 relative. */
  readonly close9: Readonly<Record<string, number>>;
  /** Fields compared to 1e-6 relative (1e-12 absolute near zero). */
  readonly close6: Readonly<Record<string, number>>;
}

/** Every figure §12 gives for a row of the `trends` table. */
export const workedRows: readonly WorkedRow[] = [
  {
    CharacteristicName: 'Sulfate', StartYear: 1989, EndYear: 1996,
    exact: { Period: 8, Observations: 23, Months: 23, Quarters: 20, Years: 8, TimeIncrement: 'unassessed', N: null, S: null, Direction: 'Not Analysed', Reason: 'unassessed', AnalysisNote: null },
    close9: {}, close6: {},
  },
  {
    CharacteristicName: 'Chloride', StartYear: 1983, EndYear: 1985,
    exact: { Period: 3, Months: 36, TimeIncrement: 'monthly', N: 36, NCensored: 0, Seasonal: true, Season: 'bi-month', S: 63, AnalysisNote: 'ok', Direction: 'Increasing', ImprovesWhen: 'decreasing', Category: 'Very likely degrading', Reason: null },
    close9: { VarS: 148.8, Tau: 0.7, Z: 5.0826502273256358, Median: 2.165 },
    close6: { SeasonalityP: 0.020812045403680382, P: 3.7220472106298424e-7, Cd: 1.8610236053149212e-7, SenSlope: 0.063357377675082913, SenSlopeLower90: 0.055328698208980051, SenSlopeUpper90: 0.070014943928331963, PercentAnnualChange: 2.9264377679022133 },
  },
  {
    CharacteristicName: 'Ammonia and ammonium', StartYear: 2020, EndYear: 2024,
    exact: { Observations: 61, Months: 60, TimeIncrement: 'monthly', N: 60, NCensored: 21, Seasonal: true, Season: 'quarter', S: -100, AnalysisNote: 'WARNING: Sen slope influenced by censored values', Direction: 'Decreasing', Category: 'Very likely improving', Reason: null },
    close9: { VarS: 1385.6739926739926, Tau: -0.23809523809523808, Z: -2.6595285795488777, C: 0.99608749545427189, Median: 0.01 },
    close6: { SeasonalityP: 0.024743564612736468, P: 0.0078250090914562948, Cd: 0.99608749545427189, SenSlope: -0.00039810596361774115, SenSlopeLower90: -0.0017574479689398308, SenSlopeUpper90: 0, PercentAnnualChange: -3.9810596361774113 },
  },
  {
    CharacteristicName: 'Escherichia coli', StartYear: 2020, EndYear: 2024,
    exact: { TimeIncrement: 'quarterly', N: 20, NCensored: 2, Seasonal: true, Season: 'quarter', S: -1, AnalysisNote: 'WARNING: Sen slope influenced by censored values', Direction: 'Indeterminate', Category: 'Indeterminate', Reason: null },
    close9: { VarS: 65.666666666666671, Tau: -0.025, Z: 0, Median: 152.5 },
    close6: { SeasonalityP: 0.0054738087815019397, P: 1, Cd: 0.5, SenSlope: -0.74948700410396718, SenSlopeLower90: -44.640525805274663, SenSlopeUpper90: 37.139795850309248, PercentAnnualChange: -0.4914668879370277 },
  },
  {
    CharacteristicName: 'Escherichia coli', StartYear: 2015, EndYear: 2024,
    exact: { TimeIncrement: 'quarterly', N: 40, NCensored: 4, Seasonal: true, Season: 'quarter', S: 25, AnalysisNote: 'ok', Direction: 'Increasing', Category: 'Likely degrading', Reason: null },
    close9: { VarS: 496.33333333333331, Tau: 0.1388888888888889, Z: 1.0772698871085742, Median: 144 },
    close6: { SeasonalityP: 1.042867025055444e-5, P: 0.28135971111695296, Cd: 0.14067985555847648, SenSlope: 3.4347348900220993, SenSlopeLower90: -1.3853067638411727, SenSlopeUpper90: 15.738401025718051, PercentAnnualChange: 2.385232562515347 },
  },
];

/** Whether `actual` is `expected` to `rel` relative (`abs` absolute near zero). */
export function closeTo(actual: unknown, expected: number, rel: number, abs = 1e-12): boolean {
  return typeof actual === 'number' && Math.abs(actual - expected) <= Math.max(abs, rel * Math.abs(expected));
}
