import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { facetCounts, type Cube, type CubeRow, type Facet } from './cube.js';
import { LIST_FACETS, type Selection } from './selection.js';

// Small value sets so random selections and rows collide often.
const pick = (values: string[]) => fc.constantFrom(...values);
const row = fc.record({
  DOI: pick(['d1', 'd2', 'd3']),
  CharacteristicName: pick(['pH', 'Nitrate', "O'Brien index"]),
  ActivityMediaName: pick(['Surface Water', 'Groundwater']),
  ActivityGroupType: pick(['Lab Sample', 'Field Measure']),
  MonitoringLocationType: pick(['River/Stream', 'Lake/Pond']),
  ActivityStartYear: fc.integer({ min: 2015, max: 2019 }),
  RegionId: pick(['r1', 'r2', 'r3']),
  Count: fc.integer({ min: 1, max: 1000 }),
});
const some = (values: string[]) => fc.subarray(values, { maxLength: 2 });
const selection: fc.Arbitrary<Selection> = fc.record({
  view: fc.constantFrom('observations' as const, 'exceeds' as const),
  lists: fc.record({
    DOI: some(['d1', 'd2', 'd3']),
    CharacteristicName: some(['pH', 'Nitrate', "O'Brien index"]),
    ActivityMediaName: some(['Surface Water', 'Groundwater']),
    ActivityGroupType: some(['Lab Sample', 'Field Measure']),
    MonitoringLocationType: some(['River/Stream', 'Lake/Pond']),
  }),
  region: fc.constantFrom(null, 'r1', 'r2'),
  yearFrom: fc.constantFrom(null, 2016, 2017),
  yearTo: fc.constantFrom(null, 2017, 2018),
  locations: fc.constant([]),
  // The cube counts no shape: the page counts a drawn shape's selection with the API (main.ts).
  shape: fc.constant(null),
  // A trend period colours the map; it selects no observation.
  trend: fc.constantFrom(null, { startYear: 2015, endYear: 2019 }),
});

/** The definition, the slow way: rows matching every selection but `except`'s, summed per value. */
function bruteForce(rows: readonly CubeRow[], s: Selection, except: Facet | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) {
    if (except !== 'RegionId' && s.region && r.RegionId !== s.region) continue;
    if (LIST_FACETS.some((f) => f !== except && s.lists[f].length && !s.lists[f].includes(r[f]))) continue;
    if (except !== 'ActivityStartYear' && ((s.yearFrom !== null && r.ActivityStartYear < s.yearFrom) || (s.yearTo !== null && r.ActivityStartYear > s.yearTo))) continue;
    const key = except === undefined ? 'total' : except === 'ActivityStartYear' ? String(r.ActivityStartYear) : String(r[except]);
    out.set(key, (out.get(key) ?? 0) + r.Count);
  }
  return out;
}

describe('facetCounts', () => {
  it('equals, for every facet, the sum over rows meeting every other selection', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 60 }), selection, (byRegion, s) => {
        // The cube without regions is the by-region cube of one region each location lies in (r1 here).
        const all = byRegion.filter((r) => r.RegionId === 'r1').map(({ RegionId: _, ...r }) => r);
        const regionRows = Map.groupBy(byRegion, (r) => r.RegionId);
        const cube: Cube = { all, byRegion, regionRows, values: { DOI: [], CharacteristicName: [], ActivityMediaName: [], ActivityGroupType: [], MonitoringLocationType: [], RegionId: [], ActivityStartYear: [] } };
        const got = facetCounts(cube, s);
        const source = s.region ? byRegion : all;
        expect(got.total).toBe(bruteForce(source, s, undefined).get('total') ?? 0);
        for (const f of [...LIST_FACETS, 'ActivityStartYear'] as const) expect(Object.fromEntries(got.counts[f])).toEqual(Object.fromEntries(bruteForce(source, s, f)));
        expect(Object.fromEntries(got.counts.RegionId)).toEqual(Object.fromEntries(bruteForce(byRegion, s, 'RegionId')));
      }),
      { numRuns: 300 },
    );
  });
});
