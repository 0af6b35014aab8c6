/**
 * The trend over the chart (issue 54): for each charted location, its Trends rows of the characteristic over the
 * picked period. The observations the analysis kept (one a month or quarter) are the row's stored
 * `IncrementObservationIds`, never chosen again here; they are marked, a censored one hollow at its limit as every
 * non-detect of the chart is. The Sen slope is drawn as LWP-Trends draws it (`GGPlotTrend`, called by `SenSlope`):
 * from the first kept observation's date to the last, through the row's `Median` (of the kept values, censored ones
 * substituted) at the middle of that span, rising `SenSlope` per 365.25 days; its 90 % interval as two dotted
 * lines through the same point. Beside the chart, each row in words: its category, slope and interval, LWP's note.
 */
import type uPlot from 'uplot';
import { allRows, getJson, query, type Page } from './api.js';
import { h } from './dom.js';
import { inPlotArea } from './plot-area.js';
import { quote, type TrendPeriod } from './selection.js';
import { seriesText, TREND_SELECT, trendText, type TrendRow } from './trend-classes.js';

export interface ChartTrendRow extends TrendRow {
  readonly IncrementObservationIds: readonly number[] | null;
}

/** What the chart knows of an observation, enough to place a kept one. */
export interface KeptRow {
  readonly Id: number;
  readonly LocationId: number;
  readonly ActivityStartDate: string;
  readonly ActivityStartTime: string | null;
  readonly ResultValue: number | null;
  readonly ResultDetectionQuantitationLimitMeasure: number | null;
}

const KEPT_SELECT = 'Id,LocationId,ActivityStartDate,ActivityStartTime,ResultValue,ResultDetectionQuantitationLimitMeasure';
const DAY_SECONDS = 86_400;
const YEAR_DAYS = 365.25;

/** The charted locations' rows of the characteristic over the period, with the Ids they kept: one request. */
export async function loadChartTrends(characteristic: string, locations: readonly number[], period: TrendPeriod, signal: AbortSignal): Promise<ChartTrendRow[]> {
  const filter = `CharacteristicName eq ${quote(characteristic)} and LocationId in (${locations.join(',')}) and StartYear eq ${period.startYear} and EndYear eq ${period.endYear}`;
  const page = await getJson<Page<ChartTrendRow>>(`/Trends${query({ $filter: filter, $select: `${TREND_SELECT},IncrementObservationIds`, $top: '1000' })}`, signal);
  return page.value;
}

/**
 * The kept observations by Id: those the chart already holds, and, when some are not among them (the page's filters
 * leave them out, or the chart's first rows end before them), the period's observations of the characteristic at
 * those locations, one more request.
 */
export async function keptRows(rows: readonly ChartTrendRow[], charted: readonly KeptRow[], characteristic: string, signal: AbortSignal): Promise<Map<number, KeptRow>> {
  const byId = new Map(charted.map((r) => [r.Id, r]));
  const wanted = rows.flatMap((r) => r.IncrementObservationIds ?? []);
  const absent = rows.filter((r) => (r.IncrementObservationIds ?? []).some((id) => !byId.has(id)));
  if (absent.length === 0) return new Map(wanted.flatMap((id) => (byId.has(id) ? [[id, byId.get(id)!] as const] : [])));
  const from = Math.min(...absent.map((r) => r.StartYear)), to = Math.max(...absent.map((r) => r.EndYear));
  const filter = `CharacteristicName eq ${quote(characteristic)} and LocationId in (${[...new Set(absent.map((r) => r.LocationId))].join(',')}) and ActivityStartYear ge ${from} and ActivityStartYear le ${to}`;
  const { rows: period } = await allRows<KeptRow>(`/Observations${query({ $filter: filter, $select: KEPT_SELECT, $top: '10000' })}`, signal, 3);
  for (const r of period) byId.set(r.Id, r);
  return new Map(wanted.flatMap((id) => (byId.has(id) ? [[id, byId.get(id)!] as const] : [])));
}

const dayOf = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 1000 / DAY_SECONDS;
const noon = (day: number): number => day * DAY_SECONDS + DAY_SECONDS / 2;

/**
 * LWP's line: its two ends, x in seconds (at noon of the first and last kept dates, as the chart places a day),
 * through `median` at the span's middle, `slope` per 365.25 days.
 *
 * @example
 * senLine('2020-01-01', '2022-01-01', 10, 1) // [[t0, 10 − 731/365.25/2], [t1, 10 + 731/365.25/2]]
 */
export function senLine(first: string, last: string, median: number, slope: number): [[number, number], [number, number]] {
  const [d0, d1] = [dayOf(first), dayOf(last)];
  const half = (d1 - d0) / YEAR_DAYS / 2;
  return [[noon(d0), median - slope * half], [noon(d1), median + slope * half]];
}

export interface TrendLine {
  readonly row: ChartTrendRow;
  readonly label: string;
  /** The Sen slope's line and the 90 % interval's, each [start, end]. */
  readonly sen: readonly [number, number][];
  readonly lower: readonly [number, number][] | null;
  readonly upper: readonly [number, number][] | null;
}

export interface TrendOverlay {
  readonly lines: readonly TrendLine[];
  /** Kept observations placed at [time, value or limit]; detected and censored apart. */
  readonly kept: readonly [number, number][];
  readonly keptCensored: readonly [number, number][];
  readonly keptIds: readonly number[];
  readonly censoredIds: readonly number[];
  /** Kept Ids that could not be placed (not found, or neither a value nor a limit). */
  readonly unplaced: number;
}

/** The lines and kept markers of `rows`, the kept ones placed by `at` (the chart's time of an observation). */
export function trendOverlay(rows: readonly ChartTrendRow[], kept: ReadonlyMap<number, KeptRow>, names: ReadonlyMap<number, string>, at: (r: KeptRow) => number): TrendOverlay {
  const out = { lines: [] as TrendLine[], kept: [] as [number, number][], keptCensored: [] as [number, number][], keptIds: [] as number[], censoredIds: [] as number[], unplaced: 0 };
  for (const row of rows) {
    const own = (row.IncrementObservationIds ?? []).map((id) => kept.get(id));
    for (const r of own) {
      const y = r?.ResultValue ?? r?.ResultDetectionQuantitationLimitMeasure ?? null;
      if (!r || y === null) out.unplaced++;
      else if (r.ResultValue === null) (out.keptCensored.push([at(r), y]), out.censoredIds.push(r.Id));
      else (out.kept.push([at(r), y]), out.keptIds.push(r.Id));
    }
    const dates = own.flatMap((r) => (r ? [r.ActivityStartDate] : [])).sort();
    if (row.SenSlope === null || row.Median === null || dates.length < 2) continue;
    const several = rows.filter((r) => r.LocationId === row.LocationId).length > 1;
    const label = `${names.get(row.LocationId) ?? `Location ${row.LocationId}`}: Sen slope, ${row.EndYear - row.StartYear + 1} years${several ? ` (${seriesText(row)})` : ''}`;
    const line = (slope: number | null) => (slope === null ? null : senLine(dates[0]!, dates.at(-1)!, row.Median!, slope));
    out.lines.push({ row, label, sen: line(row.SenSlope)!, lower: line(row.SenSlopeLower90), upper: line(row.SenSlopeUpper90) });
  }
  return out;
}

/** Each trend's 90 % interval: two dotted lines in its location's colour, over the series (uPlot's draw hook). */
export function drawIntervals(lines: readonly { readonly line: TrendLine; readonly colour: string }[]) {
  return (u: uPlot): void =>
    inPlotArea(u, (ctx) => {
      ctx.setLineDash([2, 4]);
      ctx.lineWidth = 1.5;
      for (const { line, colour } of lines) {
        ctx.strokeStyle = colour;
        for (const ends of [line.lower, line.upper]) {
          if (!ends) continue;
          ctx.beginPath();
          ctx.moveTo(u.valToPos(ends[0]![0], 'x', true), u.valToPos(ends[0]![1], 'y', true));
          ctx.lineTo(u.valToPos(ends[1]![0], 'x', true), u.valToPos(ends[1]![1], 'y', true));
          ctx.stroke();
        }
      }
    });
}

/** One row in words: the category, the slope and its interval, the kept values, LWP's note. */
function rowWords(r: ChartTrendRow): string {
  if (r.SenSlope === null) return `${trendText(r)}.`;
  const season = r.Season ? `seasonal (by ${r.Season})` : 'not seasonal';
  return `${trendText(r)}. ${r.N} ${r.TimeIncrement} values kept (${r.NCensored} censored), ${season}; LWP's note: ${r.AnalysisNote}.`;
}

/** Each row's words, by location as charted. */
export function trendWords(rows: readonly ChartTrendRow[], locations: readonly number[], names: ReadonlyMap<number, string>): HTMLElement {
  const sorted = [...rows].sort((a, b) => locations.indexOf(a.LocationId) - locations.indexOf(b.LocationId) || a.Id - b.Id);
  return h('ul', {}, ...sorted.map((r) =>
    h('li', { 'data-trend': r.Id }, h('strong', {}, `${names.get(r.LocationId) ?? `Location ${r.LocationId}`}`, r.ResultUnit ? ` (${seriesText(r)})` : '', `, ${r.StartYear}–${r.EndYear}: `), rowWords(r))));
}
