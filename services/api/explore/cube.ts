/**
 * Exact facet counts from two `$apply=groupby` answers fetched once: observations counted by every facet
 * field together (the "cube"), and the same by RegionId too. Each facet's counts under the other selections
 * are then sums over the cube's rows, computed in the page: a click costs no request (the API allows a client
 * a few per second; a facet panel of seven groupbys per click would be refused), and the sums are the API's
 * exact counts, not estimates. The browser test checks them against `$count` requests.
 */
import { allRows, query } from './api.js';
import { LIST_FACETS, type ListFacet, type Selection } from './selection.js';

export interface CubeRow extends Readonly<Record<ListFacet, string>> {
  readonly ActivityStartYear: number;
  readonly RegionId?: string;
  readonly Count: number;
}

export interface Cube {
  readonly all: readonly CubeRow[];
  readonly byRegion: readonly CubeRow[];
  /** Every value of each facet in the database, so a value the selection rules out still shows (with 0). */
  readonly values: Readonly<Record<Facet, readonly string[]>>;
}

const FIELDS = [...LIST_FACETS, 'ActivityStartYear'].join(',');

export async function loadCube(): Promise<Cube> {
  const get = (fields: string) => allRows<CubeRow>(`/Observations${query({ $apply: `groupby((${fields}),aggregate($count as Count))`, $top: '10000' })}`, undefined, 50);
  const [all, byRegion] = await Promise.all([get(FIELDS), get(`RegionId,${FIELDS}`)]);
  const distinct = (rows: readonly CubeRow[], key: (r: CubeRow) => string) => [...new Set(rows.map(key))];
  const values = Object.fromEntries(LIST_FACETS.map((f) => [f, distinct(all.rows, (r) => r[f])])) as Record<Facet, string[]>;
  values.RegionId = distinct(byRegion.rows, (r) => r.RegionId ?? '');
  values.ActivityStartYear = distinct(all.rows, (r) => String(r.ActivityStartYear));
  return { all: all.rows, byRegion: byRegion.rows, values };
}

export type Facet = ListFacet | 'RegionId' | 'ActivityStartYear';

export interface FacetCounts {
  readonly total: number;
  readonly values: Cube['values'];
  /** Per facet, the count of each value under every selection but that facet's own. */
  readonly counts: Readonly<Record<Facet, ReadonlyMap<string, number>>>;
}

function matches(row: CubeRow, s: Selection, except: Facet): boolean {
  for (const f of LIST_FACETS) if (f !== except && s.lists[f].length && !s.lists[f].includes(row[f])) return false;
  if (except !== 'ActivityStartYear') {
    if (s.yearFrom !== null && row.ActivityStartYear < s.yearFrom) return false;
    if (s.yearTo !== null && row.ActivityStartYear > s.yearTo) return false;
  }
  return true;
}

function countBy(rows: readonly CubeRow[], s: Selection, facet: Facet, key: (r: CubeRow) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) if (matches(r, s, facet)) out.set(key(r), (out.get(key(r)) ?? 0) + r.Count);
  return out;
}

export function facetCounts(cube: Cube, s: Selection): FacetCounts {
  // With a region chosen, the other facets count within it: the rows of that region only.
  const rows = s.region ? cube.byRegion.filter((r) => r.RegionId === s.region) : cube.all;
  const counts = {} as Record<Facet, Map<string, number>>;
  for (const f of LIST_FACETS) counts[f] = countBy(rows, s, f, (r) => r[f]);
  counts.ActivityStartYear = countBy(rows, s, 'ActivityStartYear', (r) => String(r.ActivityStartYear));
  counts.RegionId = countBy(cube.byRegion, s, 'RegionId', (r) => r.RegionId ?? '');
  let total = 0;
  for (const r of rows) if (matches(r, s, 'RegionId')) total += r.Count;
  return { total, counts, values: cube.values };
}
