/**
 * The guidelines the chart draws over a location's values (issue 45): from the charted results' comparisons
 * (/GuidelineComparisons), one line per location, guideline and bound. A bound that depends on an input (hardness,
 * pH, temperature, DOC) is computed for each result's day, so its line is drawn through each comparison date and
 * moves as the input does; a fixed bound is a flat line. Bounds are in the result's unit, so a line is kept only in
 * a unit the chart's values are in.
 */

export interface ComparisonRow {
  readonly ObservationId: number;
  readonly LocationId: number;
  readonly GuidelineId: number;
  readonly ActivityStartDate: string;
  readonly Publisher: string;
  readonly ProtectionLevel: string;
  readonly ResultUnit: string | null;
  readonly GuidelineLower: number | null;
  readonly GuidelineUpper: number | null;
  readonly Verdict: string;
}

export interface GuidelineLine {
  readonly locationId: number;
  readonly guidelineId: number;
  readonly bound: 'lower' | 'upper';
  readonly label: string;
  /** [date, bound] by date, one per day (a day's comparisons share its inputs, so its bound). */
  readonly points: readonly (readonly [date: string, value: number])[];
}

/**
 * @example
 * guidelineLines([{ ObservationId: 1, LocationId: 3, GuidelineId: 7, ActivityStartDate: '2020-01-01', Publisher: 'CCME',
 *   ProtectionLevel: 'Chronic', ResultUnit: 'mg/L', GuidelineLower: null, GuidelineUpper: 2, Verdict: 'meets' }], new Set(['mg/L']))
 * // [{ locationId: 3, guidelineId: 7, bound: 'upper', label: 'CCME Chronic (maximum)', points: [['2020-01-01', 2]] }]
 */
export function guidelineLines(rows: readonly ComparisonRow[], units: ReadonlySet<string>): GuidelineLine[] {
  const lines = new Map<string, { line: GuidelineLine; days: Map<string, number> }>();
  for (const r of rows) {
    if (r.ResultUnit === null || !units.has(r.ResultUnit)) continue;
    const both = r.GuidelineLower !== null && r.GuidelineUpper !== null;
    for (const [bound, value] of [['lower', r.GuidelineLower], ['upper', r.GuidelineUpper]] as const) {
      if (value === null || !Number.isFinite(value)) continue;
      const key = `${r.LocationId}|${r.GuidelineId}|${bound}|${r.ResultUnit}`;
      let entry = lines.get(key);
      if (!entry) {
        const side = both ? (bound === 'lower' ? 'range low' : 'range high') : bound === 'lower' ? 'minimum' : 'maximum';
        entry = { line: { locationId: r.LocationId, guidelineId: r.GuidelineId, bound, label: `${r.Publisher} ${r.ProtectionLevel} (${side})`, points: [] }, days: new Map() };
        lines.set(key, entry);
      }
      if (!entry.days.has(r.ActivityStartDate)) entry.days.set(r.ActivityStartDate, value);
    }
  }
  return [...lines.values()].map(({ line, days }) => ({ ...line, points: [...days].sort(([a], [b]) => a.localeCompare(b)) }));
}

/** The Ids of the observations that exceed at least one of their guidelines. */
export const exceedingIds = (rows: readonly ComparisonRow[]): Set<number> => new Set(rows.filter((r) => r.Verdict === 'exceeds').map((r) => r.ObservationId));
