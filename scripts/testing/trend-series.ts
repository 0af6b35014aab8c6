/**
 * From stored rows to series (../shared/trends/README.md §1) and the periods of §2, so a test can run the trends
 * oracle over a whole generated hub.
 */
import { ABOVE, BELOW, isQualityControl, type StoredResult } from './stored-result.js';
import { compareCanonical, type TrendObservation } from './trend-increments.js';

/** A series: location × characteristic × fraction × speciation × unit (blanks are null, a null is a value). */
export interface SeriesKey {
  readonly LocationId: number;
  readonly CharacteristicName: string;
  readonly ResultSampleFraction: string | null;
  readonly MethodSpeciation: string | null;
  readonly ResultUnit: string | null;
}

export interface TrendSeries {
  readonly key: SeriesKey;
  /** In canonical order (§1). */
  readonly observations: readonly TrendObservation[];
}

/** Blank text is null (§1). */
const blankToNull = (text: string | null): string | null => (text === null || text.trim() === '' ? null : text);

/**
 * §1: a stored row's observation and unit when it is usable for trends — not quality control, and a value, or a
 * `Below…`/`Above…` condition with a limit (in the limit's unit; units are never converted) — else undefined.
 * `Not Detected` is never used here, limit or not.
 */
export function usableTrendObservation(row: StoredResult): { observation: TrendObservation; unit: string | null } | undefined {
  if (isQualityControl(row) || row.ActivityStartDate === undefined || row.Id === undefined) return undefined;
  const at = { date: row.ActivityStartDate, time: row.ActivityStartTime ?? null, id: row.Id };
  if (row.ResultValue !== null) return { observation: { ...at, value: row.ResultValue, censoring: null }, unit: blankToNull(row.ResultUnit) };
  const limit = row.ResultDetectionQuantitationLimitMeasure;
  const censoring = row.ResultDetectionCondition === BELOW ? '<' : row.ResultDetectionCondition === ABOVE ? '>' : undefined;
  if (censoring === undefined || limit === null) return undefined;
  return { observation: { ...at, value: limit, censoring }, unit: blankToNull(row.ResultDetectionQuantitationLimitUnit) };
}

/** Every series of a set of stored rows, each with its usable observations in canonical order. */
export function trendSeries(rows: readonly StoredResult[]): TrendSeries[] {
  const series = new Map<string, { key: SeriesKey; observations: TrendObservation[] }>();
  for (const row of rows) {
    const usable = usableTrendObservation(row);
    if (usable === undefined) continue;
    if (row.LocationId === undefined) throw new Error('trendSeries: a row without LocationId');
    const key: SeriesKey = {
      LocationId: row.LocationId,
      CharacteristicName: row.CharacteristicName,
      ResultSampleFraction: blankToNull(row.ResultSampleFraction),
      MethodSpeciation: blankToNull(row.MethodSpeciation),
      ResultUnit: usable.unit,
    };
    const id = JSON.stringify([key.LocationId, key.CharacteristicName, key.ResultSampleFraction, key.MethodSpeciation, key.ResultUnit]);
    const entry = series.get(id) ?? { key, observations: [] };
    entry.observations.push(usable.observation);
    series.set(id, entry);
  }
  return [...series.values()].map((s) => ({ key: s.key, observations: s.observations.sort(compareCanonical) }));
}

/** §2: `TRENDS_END_YEAR` when set, else the latest year of any usable observation of the whole hub. */
export function hubEndYear(rows: readonly StoredResult[], setting?: string): number | undefined {
  if (setting !== undefined && setting.trim() !== '') return Number(setting);
  let latest: number | undefined;
  for (const row of rows) {
    const usable = usableTrendObservation(row);
    if (usable === undefined) continue;
    const year = Number(usable.observation.date.slice(0, 4));
    latest = latest === undefined ? year : Math.max(latest, year);
  }
  return latest;
}

/** A period: calendar years StartYear … EndYear inclusive. */
export interface Period {
  readonly startYear: number;
  readonly endYear: number;
}

/** §2: `TRENDS_PERIODS` (default `5,10,15`): `N` is the N years ending at EndYear, `A-B` the years A … B. */
export function parsePeriods(setting: string, endYear: number): Period[] {
  return setting.split(',').map((item) => {
    const text = item.trim();
    const range = /^(\d{4})-(\d{4})$/.exec(text);
    if (range !== null) return { startYear: Number(range[1]), endYear: Number(range[2]) };
    if (!/^\d+$/.test(text)) throw new Error(`parsePeriods: ${text} is neither N nor A-B`);
    return { startYear: endYear - Number(text) + 1, endYear };
  });
}
