/**
 * Exact facet counts from two `$apply=groupby` answers fetched once: observations counted by every facet
 * field together (the "cube"), and the same by RegionId too. Each facet's counts under the other selections
 * are then sums over the cube's rows, computed in the page: a click costs no request (the API allows a client
 * a few per second; a facet panel of seven groupbys per click would be refused), and the sums are the API's
 * exact counts, not estimates. The browser test checks them against `$count` requests.
 */
import { allRows, query } from './api.js';
import { GOVERNING, LIST_FACETS, type ListFacet, type Selection } from './selection.js';

export interface CubeRow extends Readonly<Record<ListFacet, string>> {
  readonly ActivityStartYear: number;
  readonly RegionId?: string;
  readonly Count: number;
}

export interface Cube {
  readonly all: readonly CubeRow[];
  readonly byRegion: readonly CubeRow[];
  /** byRegion's rows of each region. */
  readonly regionRows: ReadonlyMap<string, readonly CubeRow[]>;
  /** Every value of each facet in the database, so a value the selection rules out still shows (with 0). */
  readonly values: Readonly<Record<Facet, readonly string[]>>;
}

const FIELDS = [...LIST_FACETS, 'ActivityStartYear'].join(',');

/** What a cube counts: the rows of a resource that has every facet field, under a filter of its own. */
export interface CubeSource {
  readonly path: string;
  readonly filter?: string;
}

/**
 * Exceedances (issue 45): the governing guideline comparisons whose Verdict is exceeds. A comparison has every facet
 * field (the observation's, its location's type and regions), so the same sums give each facet value's exceedances
 * under the other selections; a result counts once per publisher and term whatever alternatives it stands among (a
 * result exceeding CCME's long-term and short-term guidelines is two exceedances).
 */
export const EXCEEDANCES: CubeSource = { path: '/GuidelineComparisons', filter: `${GOVERNING} and Verdict eq 'exceeds'` };

export async function loadCube(source: CubeSource = { path: '/Observations' }): Promise<Cube> {
  const get = (fields: string) =>
    allRows<CubeRow>(`${source.path}${query({ $apply: `groupby((${fields}),aggregate($count as Count))`, $filter: source.filter, $top: '10000' })}`, undefined, 50);
  const [all, byRegion] = await Promise.all([get(FIELDS), get(`RegionId,${FIELDS}`)]);
  const distinct = (rows: readonly CubeRow[], key: (r: CubeRow) => string) => [...new Set(rows.map(key))];
  const values = Object.fromEntries(LIST_FACETS.map((f) => [f, distinct(all.rows, (r) => r[f])])) as Record<Facet, string[]>;
  values.RegionId = distinct(byRegion.rows, (r) => r.RegionId ?? '');
  values.ActivityStartYear = distinct(all.rows, (r) => String(r.ActivityStartYear));
  const regionRows = new Map<string, CubeRow[]>();
  for (const r of byRegion.rows) {
    const list = regionRows.get(r.RegionId ?? '');
    if (list) list.push(r);
    else regionRows.set(r.RegionId ?? '', [r]);
  }
  return { all: all.rows, byRegion: byRegion.rows, regionRows, values };
}

export type Facet = ListFacet | 'RegionId' | 'ActivityStartYear';

export interface FacetCounts {
  readonly total: number;
  readonly values: Cube['values'];
  /** Per facet, the count of each value under every selection but that facet's own. */
  readonly counts: Readonly<Record<Facet, ReadonlyMap<string, number>>>;
}

type Miss = undefined | Facet | null;

/** Which facet's selection the row fails: none (undefined), exactly one (that facet), or several (null). */
function missed(row: CubeRow, s: Selection): Miss {
  let miss: Miss = undefined;
  for (const f of LIST_FACETS) {
    if (s.lists[f].length && !s.lists[f].includes(row[f])) {
      if (miss !== undefined) return null;
      miss = f;
    }
  }
  if ((s.yearFrom !== null && row.ActivityStartYear < s.yearFrom) || (s.yearTo !== null && row.ActivityStartYear > s.yearTo)) {
    if (miss !== undefined) return null;
    miss = 'ActivityStartYear';
  }
  return miss;
}

const add = (m: Map<string, number>, key: string, n: number) => m.set(key, (m.get(key) ?? 0) + n);

/**
 * One pass over the cube: a row that meets every selection counts for the total and for its value of every
 * facet; a row that fails exactly one facet's selection counts for that facet only (its value is what checking
 * it would add); a row failing two counts nowhere.
 */
export function facetCounts(cube: Cube, s: Selection): FacetCounts {
  // With a region chosen, everything counts within it: that region's rows only.
  const rows = s.region ? cube.regionRows.get(s.region) ?? [] : cube.all;
  const counts = { RegionId: new Map(), ActivityStartYear: new Map() } as Record<Facet, Map<string, number>>;
  for (const f of LIST_FACETS) counts[f] = new Map();
  let total = 0;
  for (const r of rows) {
    const miss = missed(r, s);
    if (miss === null) continue;
    if (miss === undefined) {
      total += r.Count;
      for (const f of LIST_FACETS) add(counts[f], r[f], r.Count);
      add(counts.ActivityStartYear, String(r.ActivityStartYear), r.Count);
    } else add(counts[miss], miss === 'ActivityStartYear' ? String(r.ActivityStartYear) : r[miss as ListFacet], r.Count);
  }
  for (const r of cube.byRegion) if (missed(r, s) === undefined) add(counts.RegionId, r.RegionId ?? '', r.Count);
  return { total, counts, values: cube.values };
}
