/**
 * What the user has chosen, as one value: read from and written to the page URL (so a selection can be shared
 * and back/forward work), and turned into the `$filter` text the API accepts. URL keys are the API's own field
 * names, so a shared link reads like the query it stands for.
 */

import { parseShape, shapeFilter, shapeParam, type Shape } from './shape.js';

/** The multi-valued facets: any of the checked values matches (`in`), facets combine with `and`. */
export const LIST_FACETS = ['DOI', 'CharacteristicName', 'ActivityMediaName', 'ActivityGroupType', 'MonitoringLocationType'] as const;
export type ListFacet = (typeof LIST_FACETS)[number];

/**
 * Which rows the page shows and takes away: the observations, their guideline comparisons (each with its Verdict and
 * the Reason of an indeterminate one), or only the comparisons that exceed (issue 45).
 */
export const VIEWS = ['observations', 'comparisons', 'exceeds'] as const;
export type View = (typeof VIEWS)[number];

/** A period of the Trends rows (StartYear–EndYear): the map shows each site's trend over it (trends-layer.ts). */
export interface TrendPeriod {
  readonly startYear: number;
  readonly endYear: number;
}

export interface Selection {
  readonly view: View;
  readonly lists: Readonly<Record<ListFacet, readonly string[]>>;
  /** One region at a time: regions nest and overlap (a hub spans provinces), so counts stay exact sums. */
  readonly region: string | null;
  readonly yearFrom: number | null;
  readonly yearTo: number | null;
  /** Locations picked on the map for the chart; they do not narrow the other panels. */
  readonly locations: readonly number[];
  /** A polygon drawn on the map: only the locations inside it (shape.ts). */
  readonly shape: Shape | null;
  /** The trend period the map colours the locations by and the chart draws (null: the map shows exceedances). */
  readonly trend: TrendPeriod | null;
}

export const MAX_CHART_LOCATIONS = 4;

export function emptySelection(): Selection {
  return { view: 'observations', lists: { DOI: [], CharacteristicName: [], ActivityMediaName: [], ActivityGroupType: [], MonitoringLocationType: [] }, region: null, yearFrom: null, yearTo: null, locations: [], shape: null, trend: null };
}

const year = (v: string | null): number | null => (v !== null && /^\d{4}$/.test(v) ? Number(v) : null);

/** `2015-2024` → the period; anything else, or a period that ends before it starts, none. */
function trendPeriod(v: string | null): TrendPeriod | null {
  const m = v === null ? null : /^(\d{4})-(\d{4})$/.exec(v);
  return m && Number(m[1]) <= Number(m[2]) ? { startYear: Number(m[1]), endYear: Number(m[2]) } : null;
}

export function selectionFromSearch(search: string): Selection {
  const p = new URLSearchParams(search);
  const lists = Object.fromEntries(LIST_FACETS.map((f) => [f, [...new Set(p.getAll(f).filter(Boolean))]])) as Record<ListFacet, string[]>;
  const locations = p.getAll('LocationId').map(Number).filter((n) => Number.isSafeInteger(n) && n > 0).slice(0, MAX_CHART_LOCATIONS);
  const view = VIEWS.find((v) => v === p.get('view')) ?? 'observations';
  return { view, lists, region: p.get('RegionId') || null, yearFrom: year(p.get('YearFrom')), yearTo: year(p.get('YearTo')), locations, shape: parseShape(p.get('shape')), trend: trendPeriod(p.get('trend')) };
}

export function searchOfSelection(s: Selection): string {
  const p = new URLSearchParams();
  for (const f of LIST_FACETS) for (const v of s.lists[f]) p.append(f, v);
  if (s.region) p.set('RegionId', s.region);
  if (s.yearFrom !== null) p.set('YearFrom', String(s.yearFrom));
  if (s.yearTo !== null) p.set('YearTo', String(s.yearTo));
  for (const id of s.locations) p.append('LocationId', String(id));
  if (s.shape) p.set('shape', shapeParam(s.shape));
  if (s.view !== 'observations') p.set('view', s.view);
  if (s.trend) p.set('trend', `${s.trend.startYear}-${s.trend.endYear}`);
  const text = p.toString();
  return text ? `?${text}` : '';
}

/** An OData string literal: single quotes doubled, as the API's lexer reads them. */
export const quote = (v: string): string => `'${v.replaceAll("'", "''")}'`;

const clause = (field: string, values: readonly string[]): string | undefined =>
  values.length === 0 ? undefined : values.length === 1 ? `${field} eq ${quote(values[0]!)}` : `${field} in (${values.map(quote).join(',')})`;

/** The `$filter` text of a selection (locations left out); '' when nothing is chosen. */
export function filterText(s: Selection): string {
  const parts = [
    ...LIST_FACETS.map((f) => clause(f, s.lists[f])),
    s.region ? `RegionId eq ${quote(s.region)}` : undefined,
    s.yearFrom !== null ? `ActivityStartYear ge ${s.yearFrom}` : undefined,
    s.yearTo !== null ? `ActivityStartYear le ${s.yearTo}` : undefined,
    s.shape ? shapeFilter(s.shape) : undefined,
  ];
  return parts.filter((p): p is string => p !== undefined).join(' and ');
}

/** `base and extra`, either possibly empty. */
export const andFilter = (base: string, extra: string): string => (base && extra ? `${base} and ${extra}` : base || extra);

export interface Rows {
  readonly resource: 'Observations' | 'GuidelineComparisons';
  readonly filter: string;
}

/**
 * The comparisons the page counts, maps and lists: the governing ones, one per result, publisher and term (the
 * alternatives a result also stands among, e.g. dissolved oxygen's life stages, are in the API).
 */
export const GOVERNING = 'Governing eq true';

/** The resource and `$filter` of the rows the preview shows and the take-away downloads: exactly what is seen. */
export function rowsOf(s: Selection): Rows {
  const filter = filterText(s);
  if (s.view === 'observations') return { resource: 'Observations', filter };
  return { resource: 'GuidelineComparisons', filter: andFilter(filter, s.view === 'exceeds' ? `${GOVERNING} and Verdict eq 'exceeds'` : GOVERNING) };
}

export function toggled(s: Selection, facet: ListFacet, value: string, on: boolean): Selection {
  const current = s.lists[facet].filter((v) => v !== value);
  return { ...s, lists: { ...s.lists, [facet]: on ? [...current, value] : current } };
}
