/**
 * Test support: the worked examples of ../shared/trends/README.md §12 (their data and figures as the oracle's
 * trend-examples.ts holds them) as datasets of their own, written as DataStream uploads by trend-datasets.ts, for the
 * trend tests to ingest with the real ingest and read back from the `trends` table and from the API.
 */
import { agreesWithin, ammonia, ecoli, ex1410, sulfateEx176, trendExpected } from './trend-examples.js';
import type { TestDataset, TestObservation } from './trend-datasets.js';
import type { TrendObservation } from './trend-increments.js';

export { agreesWithin };

/** The periods every example needs: `TRENDS_PERIODS` for one ingest of all four. */
export const WORKED_PERIODS = '1989-1996,1983-1985,2020-2024,2015-2024';

/** An observation as the upload carries its value: `0.01`, `<0.01`, `>2419.6`. */
function upload(location: string, characteristic: string, unit: string, extra: Partial<TestObservation> = {}) {
  return (o: TrendObservation): TestObservation => ({ location, characteristic, unit, date: o.date, value: `${o.censoring ?? ''}${o.value}`, ...extra });
}

export const workedDatasets: readonly TestDataset[] = [
  { folder: 'epa-17-6', doi: '10.5072/trends-epa-17-6', name: 'EPA 2009 Example 17-6', observations: sulfateEx176.map(upload('EPA-17-6', 'Sulfate', 'ppm', { fraction: 'Dissolved' })) },
  { folder: 'epa-14-10', doi: '10.5072/trends-epa-14-10', name: 'EPA 2009 Example 14-10', observations: ex1410.map(upload('EPA-14-10', 'Chloride', 'mg/L', { fraction: 'Dissolved' })) },
  { folder: 'ammonia', doi: '10.5072/trends-ammonia', name: 'Censored example 1', observations: ammonia.map(upload('NH4-1', 'Ammonia and ammonium', 'mg/L', { fraction: 'Filtered', speciation: 'as N' })) },
  { folder: 'ecoli', doi: '10.5072/trends-ecoli', name: 'Censored example 2', observations: ecoli.map(upload('ECOLI-1', 'Escherichia coli', 'MPN/100mL')) },
];

/** A row of the `trends` table the README gives figures for, with those figures (compared by `agreesWithin`). */
export interface WorkedRow {
  readonly location: string;
  readonly CharacteristicName: string;
  readonly StartYear: number;
  readonly EndYear: number;
  readonly expected: Readonly<Record<string, unknown>>;
}

const unassessed = { N: null, S: null, AnalysisNote: null, Period: 8 };

export const workedRows: readonly WorkedRow[] = [
  { location: 'EPA-17-6', CharacteristicName: 'Sulfate', StartYear: 1989, EndYear: 1996, expected: { ...trendExpected.sulfateEx176, ...unassessed } },
  { location: 'EPA-14-10', CharacteristicName: 'Chloride', StartYear: 1983, EndYear: 1985, expected: { ...trendExpected.ex1410, Period: 3, NCensored: 0, AnalysisNote: 'ok' } },
  { location: 'NH4-1', CharacteristicName: 'Ammonia and ammonium', StartYear: 2020, EndYear: 2024, expected: { ...trendExpected.ammonia, Reason: null } },
  { location: 'ECOLI-1', CharacteristicName: 'Escherichia coli', StartYear: 2020, EndYear: 2024, expected: { ...trendExpected.ecoli2020, Reason: null } },
  { location: 'ECOLI-1', CharacteristicName: 'Escherichia coli', StartYear: 2015, EndYear: 2024, expected: { ...trendExpected.ecoli2015, Reason: null } },
];

/** Every field of `row` that disagrees with the README's figure, as `field: ours vs README`. */
export function workedDisagreements(row: Readonly<Record<string, unknown>>, w: WorkedRow): string[] {
  return Object.entries(w.expected)
    .filter(([k, v]) => !agreesWithin(k, row[k], v))
    .map(([k, v]) => `${k}: ${String(row[k])} vs ${String(v)}`);
}
