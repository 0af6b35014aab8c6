/**
 * The P10–P90 band the chart shades behind each location's values (issue 48 part 4): the location's summary
 * (/LocationSummaries) of the charted characteristic, over its whole record. Drawn only where it is unambiguous:
 * exactly one summary of the location in a unit the chart's values are in (several fractions or speciations in
 * one unit would be several bands), with both percentiles (a characteristic of non-detects only has none).
 */

export interface SummaryRow {
  readonly LocationId: number;
  readonly ResultUnit: string | null;
  readonly P10: number | null;
  readonly P90: number | null;
}

export type Band = readonly [p10: number, p90: number];

/**
 * @example
 * bandsOf([{ LocationId: 3, ResultUnit: 'mg/L', P10: 1, P90: 4 }], [3], new Set(['mg/L'])) // Map { 3 => [1, 4] }
 */
export function bandsOf(summaries: readonly SummaryRow[], locations: readonly number[], units: ReadonlySet<string>): Map<number, Band> {
  const out = new Map<number, Band>();
  for (const id of locations) {
    const fitting = summaries.filter((s) => s.LocationId === id && s.ResultUnit !== null && units.has(s.ResultUnit) && s.P10 !== null && s.P90 !== null);
    if (fitting.length === 1) out.set(id, [fitting[0]!.P10!, fitting[0]!.P90!]);
  }
  return out;
}
