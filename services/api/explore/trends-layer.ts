/**
 * The map's trends (issue 54): "Colour the locations by" offers, beside the guideline exceedances, each period of
 * the Trends rows (5, 10, 15 years by default: the periods the publication holds, read once with one groupby).
 * With one characteristic chosen and a period picked, one request (`/Trends` under the page's filters as Trends
 * takes them, trend-classes.ts) gives every location's rows; each location is drawn by its class (LAWA's category,
 * or the direction of a characteristic without an improving direction), with a key that counts each class and a
 * table of every location's trend in words, the map's text alternative.
 */
import { allRows, query } from './api.js';
import { fmt, h, say } from './dom.js';
import type { TrendPeriod, Selection } from './selection.js';
import { byCategory, CATEGORY_CLASSES, classOf, DIRECTION_CLASSES, NO_TREND, seriesText, shownRows, TREND_SELECT, trendsFilter, trendText, type TrendClass, type TrendRow } from './trend-classes.js';

/** A period of the publication's Trends rows. */
export interface PeriodOption extends TrendPeriod {
  readonly period: number;
}

/** What the map draws for a location: its class, and its trend in words (the tooltip). */
export interface TrendMark {
  readonly klass: TrendClass;
  readonly text: string;
}

/** Rows of the table at most; the key's counts are of every location. */
const TABLE_ROWS = 1000;

/** The periods the publication's Trends rows have, shortest first; none when it has none (or cannot say). */
export async function loadTrendPeriods(): Promise<PeriodOption[]> {
  try {
    const { rows } = await allRows<{ Period: number; StartYear: number; EndYear: number }>(`/Trends${query({ $apply: 'groupby((Period,StartYear,EndYear),aggregate($count as Rows))' })}`);
    return rows.map((r) => ({ period: r.Period, startYear: r.StartYear, endYear: r.EndYear })).sort((a, b) => a.period - b.period || a.startYear - b.startYear);
  } catch {
    return [];
  }
}

const periodValue = (p: TrendPeriod): string => `${p.startYear}-${p.endYear}`;
const periodText = (p: PeriodOption): string => `${p.period}-year trend (${p.startYear}–${p.endYear})`;

export interface TrendsLayerElements {
  /** "Colour the locations by" (its first option: the exceedances). */
  readonly select: HTMLSelectElement;
  /** The key: classes and their counts, or why there is none. */
  readonly legend: HTMLElement;
  /** A <details> holding the table of every location's trend. */
  readonly sites: HTMLDetailsElement;
}

export interface TrendsLayer {
  /** The select shows the selection's period; the key and table hide outside trend mode. */
  show(selection: Selection): void;
  /**
   * Each shown location's trend over the selection's period, with the key and table drawn; undefined when there is
   * nothing to draw (no period picked, or not exactly one characteristic: the key says so).
   */
  load(selection: Selection, names: ReadonlyMap<number, string>, shown: ReadonlySet<number>, signal: AbortSignal): Promise<Map<number, TrendMark> | undefined>;
}

export function trendsLayer(els: TrendsLayerElements, periods: readonly PeriodOption[], onPick: (period: TrendPeriod | null) => void): TrendsLayer {
  els.select.replaceChildren(new Option('Guideline exceedances', ''), ...periods.map((p) => new Option(periodText(p), periodValue(p))));
  els.select.closest('p')!.hidden = periods.length === 0;
  els.select.addEventListener('change', () => onPick(periods.find((p) => periodValue(p) === els.select.value) ?? null));
  const periodOf = (t: TrendPeriod) => periods.find((p) => p.startYear === t.startYear && p.endYear === t.endYear);

  return {
    show(selection) {
      els.select.value = selection.trend && periodOf(selection.trend) ? periodValue(selection.trend) : '';
      els.legend.hidden = selection.trend === null;
      // Shown again by load, which alone knows whether there are rows; show runs again when counts arrive.
      if (selection.trend === null) els.sites.hidden = true;
    },
    async load(selection, names, shown, signal) {
      const period = selection.trend && periodOf(selection.trend);
      if (!period) {
        // A shared link to a period this publication has not (its periods changed since): say so, offer the list.
        if (selection.trend) say(els.legend, `This publication has no trends for ${selection.trend.startYear}–${selection.trend.endYear}: pick a period in "Colour the locations by".`);
        return undefined;
      }
      const chars = selection.lists.CharacteristicName;
      if (chars.length !== 1) {
        say(els.legend, 'Trends are mapped for one characteristic at a time: choose exactly one in the filters.');
        return undefined;
      }
      say(els.legend, 'Loading the trends…');
      const { rows, complete } = await allRows<TrendRow>(`/Trends${query({ $filter: trendsFilter(selection, period), $select: TREND_SELECT, $top: '10000' })}`, signal, 5);
      if (signal.aborted) return undefined;
      const sites = [...shownRows(rows.filter((r) => shown.has(r.LocationId)))];
      const marks = new Map(sites.map(([id, { shown: row, rows: all }]) => [id, { klass: classOf(row), text: tooltip(row, all.length) }]));
      const classes = rows.length && !byCategory(rows[0]!) ? DIRECTION_CLASSES : CATEGORY_CLASSES;
      drawKey(els.legend, chars[0]!, period, classes, marks, shown.size - marks.size, complete);
      drawTable(els.sites, sites, names);
      return marks;
    },
  };
}

function tooltip(row: TrendRow, series: number): string {
  const more = series > 1 ? ` (${seriesText(row)}; ${series - 1} other series here)` : '';
  return `${trendText(row)}${more}`;
}

/** The key: one swatch per class with its count of locations, and what the colours are of. */
function drawKey(el: HTMLElement, characteristic: string, period: PeriodOption, classes: readonly TrendClass[], marks: ReadonlyMap<number, TrendMark>, without: number, complete: boolean): void {
  const counts = new Map<TrendClass, number>();
  for (const m of marks.values()) counts.set(m.klass, (counts.get(m.klass) ?? 0) + 1);
  const swatch = (c: TrendClass, n: number) =>
    h('li', { 'data-class': c.value }, h('span', { class: `dot${c.dashed ? ' dashed' : ''}`, style: `background:${c.fill};border-color:${c.stroke}` }), `${c.label}: ${fmt(n)}`);
  const what = classes === DIRECTION_CLASSES ? 'its direction (no direction is better for this characteristic)' : "LAWA's category";
  el.dataset['kind'] = 'info';
  el.replaceChildren(
    h('span', {}, `${period.period}-year trend of ${characteristic}, ${period.startYear}–${period.endYear}, by ${what} (LWP-Trends); locations:`),
    h('ul', {}, ...classes.map((c) => swatch(c, counts.get(c) ?? 0)), without > 0 ? swatch(NO_TREND, without) : null),
    ...(complete ? [] : [h('span', {}, 'Only the first trends are drawn: narrow the selection to see them all.')]),
  );
}

/** Every location's trend as a table: the map's text alternative. */
function drawTable(details: HTMLDetailsElement, sites: readonly (readonly [number, { readonly shown: TrendRow }])[], names: ReadonlyMap<number, string>): void {
  const order = (r: TrendRow) => [...CATEGORY_CLASSES, ...DIRECTION_CLASSES].indexOf(classOf(r));
  const sorted = [...sites].sort(([a, x], [b, y]) => order(x.shown) - order(y.shown) || (names.get(a) ?? '').localeCompare(names.get(b) ?? ''));
  const row = ([id, { shown: r }]: (typeof sorted)[number]) =>
    h('tr', { 'data-location': id }, h('th', { scope: 'row' }, names.get(id) ?? `Location ${id}`), h('td', {}, classOf(r).label), h('td', {}, seriesText(r)), h('td', {}, trendText(r)));
  details.hidden = sites.length === 0;
  details.querySelector('summary')!.textContent = `Each location's trend, as a table (${fmt(sites.length)})`;
  details.querySelector('table')!.replaceChildren(
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Location'), h('th', { scope: 'col' }, 'Trend'), h('th', { scope: 'col' }, 'Series'), h('th', { scope: 'col' }, 'In words'))),
    h('tbody', {}, ...sorted.slice(0, TABLE_ROWS).map(row)),
    ...(sorted.length > TABLE_ROWS ? [h('tfoot', {}, h('tr', {}, h('td', { colspan: 4 }, `The first ${fmt(TABLE_ROWS)} of ${fmt(sorted.length)}: narrow the selection for the rest.`)))] : []),
  );
}
