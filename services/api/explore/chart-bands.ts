/**
 * The P10–P90 band the chart shades behind each location's values (issue 48 part 4): the location's summary
 * (/LocationSummaries) of the charted characteristic, over its whole record. Drawn only where it is unambiguous:
 * exactly one summary of the location in a unit the chart's values are in (several fractions or speciations in
 * one unit would be several bands), with both percentiles (a summary that estimates nothing has none). A percentile
 * beyond a detection limit on the band's outer side (P10 `<0.5`, P90 `>2419.6`) is known only to lie past that
 * bound, so that end is open: the band runs to the plot's edge (issue 52).
 */

export interface SummaryRow {
  readonly LocationId: number;
  readonly ResultUnit: string | null;
  readonly P10: number | null;
  readonly P10Qualifier: string | null;
  readonly P90: number | null;
  readonly P90Qualifier: string | null;
}

/** The band's ends; null where it is open (the percentile lies beyond its bound, outward). */
export type Band = readonly [p10: number | null, p90: number | null];

/**
 * @example
 * bandsOf([{ LocationId: 3, ResultUnit: 'mg/L', P10: 1, P10Qualifier: '<', P90: 4, P90Qualifier: null }], [3], new Set(['mg/L'])) // Map { 3 => [null, 4] }
 */
export function bandsOf(summaries: readonly SummaryRow[], locations: readonly number[], units: ReadonlySet<string>): Map<number, Band> {
  const out = new Map<number, Band>();
  for (const id of locations) {
    const fitting = summaries.filter((s) => s.LocationId === id && s.ResultUnit !== null && units.has(s.ResultUnit) && s.P10 !== null && s.P90 !== null);
    if (fitting.length !== 1) continue;
    const s = fitting[0]!;
    const band: Band = [s.P10Qualifier === '<' ? null : s.P10, s.P90Qualifier === '>' ? null : s.P90];
    // Open at both ends it would shade the whole plot and say nothing.
    if (band[0] !== null || band[1] !== null) out.set(id, band);
  }
  return out;
}
