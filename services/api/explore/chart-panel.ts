/**
 * ResultValue over ActivityStartDate for one CharacteristicName at the locations picked on the map (uPlot,
 * canvas). Each location is a line with dots; its detection-limit results (no ResultValue, a
 * ResultDetectionCondition) are series of hollow markers drawn at the reported limit, never at zero: the results
 * below a detection limit, and apart (larger, thicker) those above a quantification limit. A result with neither a
 * value nor a limit cannot be placed and is counted in the note instead. Behind each location's values, its P10–P90
 * range over its whole record (its LocationSummaries row, non-detects counted) is shaded in its colour, open to the
 * plot's edge where a percentile lies beyond a detection limit (chart-bands.ts).
 * Over them, the guidelines that apply to the charted results (their GuidelineComparisons rows) are dashed step
 * lines, and each result that exceeds one is ringed in red (chart-guidelines.ts). With a trend period picked, each
 * location's trend: its Sen slope as LWP draws it, the observations the analysis kept marked, and the row in words
 * (trend-chart.ts).
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ApiProblem, getJson, query, type Page } from './api.js';
import { bandsOf, type Band, type SummaryRow } from './chart-bands.js';
import { exceedingIds, guidelineLines, type ComparisonRow } from './chart-guidelines.js';
import { fmt, h, say } from './dom.js';
import { inPlotArea } from './plot-area.js';
import { andFilter, quote, type TrendPeriod } from './selection.js';
import { drawIntervals, keptRows, loadChartTrends, trendOverlay, trendWords, type ChartTrendRow, type TrendOverlay } from './trend-chart.js';

interface ChartRow {
  readonly Id: number;
  readonly LocationId: number;
  readonly ActivityStartDate: string;
  readonly ActivityStartTime: string | null;
  readonly ResultValue: number | null;
  readonly ResultUnit: string | null;
  readonly ResultDetectionCondition: string | null;
  readonly ResultDetectionQuantitationLimitMeasure: number | null;
  readonly ResultDetectionQuantitationLimitUnit: string | null;
}

const COLOURS = ['#1d4ed8', '#b91c1c', '#047857', '#7c2d12'];
/** A result above the quantification limit: its limit is a lower bound, drawn apart from the non-detects. */
const ABOVE = 'Above Detection/Quantification Limit';
const SELECT = 'Id,LocationId,ActivityStartDate,ActivityStartTime,ResultValue,ResultUnit,ResultDetectionCondition,ResultDetectionQuantitationLimitMeasure,ResultDetectionQuantitationLimitUnit';
const MAX_ROWS = 10_000;
const COMPARISON_SELECT = 'ObservationId,LocationId,GuidelineId,ActivityStartDate,Publisher,ProtectionLevel,ResultUnit,GuidelineLower,GuidelineUpper,Verdict';
const EXCEEDS_COLOUR = '#dc2626';

interface Series {
  readonly label: string;
  readonly colour: string;
  readonly kind: 'values' | 'below' | 'above' | 'guideline' | 'exceeds' | 'trend' | 'kept' | 'kept-censored';
  readonly points: [number, number][];
}

/** A band's fill: the location's colour, faint enough that the points stay readable over it. */
const BAND_ALPHA = '22';

/** Shades each band across the plot area, under the series (uPlot's drawClear hook runs before they are drawn). */
function shadeBands(bands: readonly { readonly band: Band; readonly colour: string }[]) {
  return (u: uPlot): void =>
    inPlotArea(u, (ctx, { left, top, width, height }) => {
      for (const { band: [p10, p90], colour } of bands) {
        // An open end runs to the plot's edge: the percentile lies somewhere past its bound.
        const y90 = p90 === null ? top : u.valToPos(p90, 'y', true);
        const y10 = p10 === null ? top + height : u.valToPos(p10, 'y', true);
        ctx.fillStyle = `${colour}${BAND_ALPHA}`;
        ctx.fillRect(left, y90, width, Math.max(1, y10 - y90));
      }
    });
}

/** The trend's series: each location's Sen slope in its colour, then the kept observations (all locations together). */
function trendSeries(overlay: TrendOverlay, locations: readonly number[]): Series[] {
  const colourOf = (id: number) => COLOURS[locations.indexOf(id) % COLOURS.length]!;
  return [
    ...overlay.lines.map((l): Series => ({ label: l.label, colour: colourOf(l.row.LocationId), kind: 'trend', points: l.sen.map(([t, y]) => [t, y]) })),
    ...(overlay.kept.length ? [{ label: 'Kept for the trend (one a month or quarter)', colour: '#111827', kind: 'kept', points: [...overlay.kept] } satisfies Series] : []),
    ...(overlay.keptCensored.length ? [{ label: 'Kept for the trend, censored (at the limit)', colour: '#111827', kind: 'kept-censored', points: [...overlay.keptCensored] } satisfies Series] : []),
  ];
}

/** Seconds since the epoch; a point without a time sits at noon. Times are drawn as given (local to the site). */
const when = (r: Pick<ChartRow, 'ActivityStartDate' | 'ActivityStartTime'>): number => Date.parse(`${r.ActivityStartDate}T${r.ActivityStartTime ?? '12:00:00'}Z`) / 1000;

/** One x axis for every series (uPlot's aligned data), keeping every point: a repeated time moves on a second. */
function aligned(series: readonly Series[]): uPlot.AlignedData {
  const placed = series.map((s) => {
    const seen = new Set<number>();
    return s.points.sort((a, b) => a[0] - b[0]).map(([t, y]) => {
      while (seen.has(t)) t += 1;
      seen.add(t);
      return [t, y] as const;
    });
  });
  const xs = [...new Set(placed.flatMap((p) => p.map(([t]) => t)))].sort((a, b) => a - b);
  const index = new Map(xs.map((t, i) => [t, i]));
  const ys = placed.map((p) => {
    const y: (number | null)[] = new Array<number | null>(xs.length).fill(null);
    for (const [t, v] of p) y[index.get(t)!] = v;
    return y;
  });
  return [xs, ...ys] as uPlot.AlignedData;
}

/** The y axis from the values' range widened to the bands', with uPlot's own padding when nothing widens it. */
function yRange(lo: number | null, hi: number | null, bands: readonly Band[]): uPlot.Range.MinMax {
  const all = [lo, hi, ...bands.flat()].filter((v): v is number => v !== null && Number.isFinite(v));
  if (all.length === 0) return [0, 1];
  const [min, max] = [Math.min(...all), Math.max(...all)];
  const pad = (max - min) * 0.05 || Math.abs(max) * 0.05 || 1;
  return [min - pad, max + pad];
}

export interface ChartPanel {
  /** `trend`: the period whose trends are drawn too (none: no trend). */
  show(characteristic: string | undefined, locations: readonly number[], names: ReadonlyMap<number, string>, filter: string, signal: AbortSignal, trend?: TrendPeriod | null): Promise<void>;
}

/** `trendText`: where each charted trend is said in words. */
export function chartPanel(figure: HTMLElement, note: HTMLElement, trendText: HTMLElement): ChartPanel {
  let plot: uPlot | undefined;
  const size = (width: number) => ({ width, height: Math.round(Math.min(320, width * 0.6)) });
  // The page reflows between laptop and phone widths: the canvas follows its figure.
  new ResizeObserver(() => {
    const width = Math.max(280, figure.clientWidth);
    if (plot && Math.abs(plot.width - width) > 4) plot.setSize(size(width));
  }).observe(figure);
  const clear = () => {
    plot?.destroy();
    plot = undefined;
    figure.querySelector('.plot')?.replaceChildren();
    delete figure.dataset['seriesLengths'];
    delete figure.dataset['guidelines'];
    delete figure.dataset['exceeding'];
    for (const key of ['trends', 'kept', 'keptCensored']) delete figure.dataset[key];
    trendText.replaceChildren();
  };

  return {
    async show(characteristic, locations, names, filter, signal, trend = null) {
      if (!characteristic || locations.length === 0) {
        clear();
        say(note, characteristic ? 'Click up to four locations on the map to chart them.' : 'Choose exactly one characteristic, then click up to four locations on the map, to chart its values over time.');
        return;
      }
      say(note, 'Loading…');
      const inLocations = `LocationId in (${locations.join(',')})`;
      const ofCharacteristic = `CharacteristicName eq ${quote(characteristic)} and ${inLocations}`;
      const [page, summaries, comparisons, trends] = await Promise.all([
        getJson<Page<ChartRow>>(`/Observations${query({ $filter: andFilter(filter, inLocations), $select: SELECT, $top: String(MAX_ROWS) })}`, signal),
        getJson<Page<SummaryRow>>(`/LocationSummaries${query({ $filter: ofCharacteristic, $select: 'LocationId,ResultUnit,P10Qualifier,P10,P90Qualifier,P90' })}`, signal),
        // The locations' comparisons of the characteristic; only those of the charted results are drawn, so the
        // rest of the filter need not be repeated. A publication without comparisons charts without guidelines.
        getJson<Page<ComparisonRow>>(`/GuidelineComparisons${query({ $filter: ofCharacteristic, $select: COMPARISON_SELECT, $top: String(MAX_ROWS) })}`, signal)
          .catch((err: unknown) => {
            if (signal.aborted || !(err instanceof ApiProblem)) throw err;
            return { value: [] } as Page<ComparisonRow>;
          }),
        // A publication without trends charts without them, as without comparisons.
        trend ? loadChartTrends(characteristic, locations, trend, signal).catch((err: unknown) => {
          if (signal.aborted || !(err instanceof ApiProblem)) throw err;
          return [] as ChartTrendRow[];
        }) : ([] as ChartTrendRow[]),
      ]);
      const overlay = trendOverlay(trends, trends.length ? await keptRows(trends, page.value, characteristic, signal) : new Map(), names, when);
      const charted = new Set(page.value.map((r) => r.Id));
      const compared = comparisons.value.filter((c) => charted.has(c.ObservationId));
      const exceeding = exceedingIds(compared);
      const series: Series[] = [];
      const marked: [number, number][] = [];
      let unplaced = 0;
      const units = new Set<string>();
      locations.forEach((id, i) => {
        const name = names.get(id) ?? `Location ${id}`;
        const rows = page.value.filter((r) => r.LocationId === id);
        const values: [number, number][] = [], below: [number, number][] = [], above: [number, number][] = [];
        for (const r of rows) {
          const y = r.ResultValue ?? r.ResultDetectionQuantitationLimitMeasure;
          if (r.ResultValue !== null) (values.push([when(r), r.ResultValue]), r.ResultUnit && units.add(r.ResultUnit));
          else if (r.ResultDetectionQuantitationLimitMeasure !== null) {
            (r.ResultDetectionCondition === ABOVE ? above : below).push([when(r), r.ResultDetectionQuantitationLimitMeasure]);
            if (r.ResultDetectionQuantitationLimitUnit) units.add(r.ResultDetectionQuantitationLimitUnit);
          } else unplaced++;
          if (y !== null && exceeding.has(r.Id)) marked.push([when(r), y]);
        }
        const colour = COLOURS[i % COLOURS.length]!;
        series.push({ label: name, colour, kind: 'values', points: values });
        if (below.length) series.push({ label: `${name}: below detection limit (at the limit)`, colour, kind: 'below', points: below });
        if (above.length) series.push({ label: `${name}: above quantification limit (at the limit)`, colour, kind: 'above', points: above });
      });
      const lines = guidelineLines(compared, units);
      for (const line of lines) {
        const i = locations.indexOf(line.locationId);
        const name = names.get(line.locationId) ?? `Location ${line.locationId}`;
        series.push({ label: `${name}: guideline ${line.label}`, colour: COLOURS[i % COLOURS.length]!, kind: 'guideline', points: line.points.map(([d, v]) => [Date.parse(`${d}T12:00:00Z`) / 1000, v]) });
      }
      if (marked.length) series.push({ label: 'Exceeds a guideline', colour: EXCEEDS_COLOUR, kind: 'exceeds', points: marked });
      series.push(...trendSeries(overlay, locations));
      const bands = bandsOf(summaries.value, locations, units);
      const shaded = locations.flatMap((id, i) => (bands.has(id) ? [{ band: bands.get(id)!, colour: COLOURS[i % COLOURS.length]! }] : []));
      clear();
      const unit = [...units].join(', ') || 'no unit given';
      const target = figure.querySelector<HTMLElement>('.plot')!;
      plot = new uPlot({
        ...size(Math.max(280, figure.clientWidth)),
        title: characteristic,
        // The y range takes the bands in too, so a band beyond every charted value is still seen.
        scales: { x: { time: true }, y: { range: (_u, lo, hi) => yRange(lo, hi, shaded.map((s) => s.band)) } },
        hooks: { drawClear: [shadeBands(shaded)], draw: [drawIntervals(overlay.lines.map((line) => ({ line, colour: COLOURS[locations.indexOf(line.row.LocationId) % COLOURS.length]! })))] },
        // A legend of names only: live values beside each name wrap badly at phone widths.
        legend: { live: false },
        // The title names the characteristic; the axis its unit (a long name would be cut at phone widths).
        axes: [{}, { label: unit, size: 60 }],
        series: [
          { label: 'Date' },
          ...series.map((s): uPlot.Series => {
            switch (s.kind) {
              case 'below': return { label: s.label, stroke: s.colour, width: 0, paths: () => null, points: { show: true, size: 9, width: 2, fill: '#ffffff', stroke: s.colour } };
              case 'above': return { label: s.label, stroke: s.colour, width: 0, paths: () => null, points: { show: true, size: 12, width: 3, fill: '#ffffff', stroke: s.colour } };
              // A bound holds from one comparison day to the next: a step, dashed so it is not read as results.
              case 'guideline': return { label: s.label, stroke: s.colour, width: 2, dash: [8, 4], spanGaps: true, paths: uPlot.paths.stepped!({ align: 1 }), points: { show: false } };
              case 'exceeds': return { label: s.label, stroke: s.colour, width: 0, paths: () => null, points: { show: true, size: 14, width: 2, fill: 'transparent', stroke: s.colour } };
              case 'values': return { label: s.label, stroke: s.colour, width: 1.5, spanGaps: true, points: { show: true, size: 4, fill: s.colour } };
              // LWP's line: two points, joined across the other series' times.
              case 'trend': return { label: s.label, stroke: s.colour, width: 3, spanGaps: true, points: { show: false } };
              case 'kept': return { label: s.label, stroke: s.colour, width: 0, paths: () => null, points: { show: true, size: 8, width: 1, fill: s.colour, stroke: '#ffffff' } };
              case 'kept-censored': return { label: s.label, stroke: s.colour, width: 0, paths: () => null, points: { show: true, size: 11, width: 2.5, fill: '#ffffff', stroke: s.colour } };
            }
          }),
        ],
      }, aligned(series), target);
      const results = series.filter((s) => s.kind === 'values' || s.kind === 'below' || s.kind === 'above');
      figure.dataset['seriesLengths'] = results.map((s) => s.points.length).join(',');
      figure.dataset['guidelines'] = lines.map((l) => `${l.locationId}:${l.guidelineId}:${l.bound}:${l.points.length}`).join(',');
      figure.dataset['exceeding'] = String(marked.length);
      figure.dataset['unplaced'] = String(unplaced);
      figure.dataset['trends'] = overlay.lines.map((l) => `${l.row.Id}:${l.sen.flat().join(':')}`).join(',');
      figure.dataset['kept'] = overlay.keptIds.join(',');
      figure.dataset['keptCensored'] = overlay.censoredIds.join(',');
      trendText.replaceChildren(...(trends.length ? [trendWords(trends, locations, names)] : []));
      figure.dataset['bands'] = locations.filter((id) => bands.has(id)).map((id) => `${id}:${bands.get(id)!.map((end) => end ?? 'open').join('..')}`).join(',');
      const cut = page['@odata.nextLink'] ? ` Only the first ${fmt(MAX_ROWS)} results are drawn.` : '';
      const mixed = units.size > 1 ? ` Mixed units: ${unit}.` : '';
      const lost = unplaced ? ` ${fmt(unplaced)} result(s) with neither a value nor a detection limit are not drawn.` : '';
      const open = shaded.some((s) => s.band.includes(null)) ? ' (to the edge where a percentile lies beyond a detection limit)' : '';
      const band = shaded.length ? ` Shaded: each location's 10th to 90th percentile over its whole record, non-detects counted${open}.` : '';
      const trendNote = trends.length ? ` Thick: each location's Sen slope over the period, as LWP-Trends draws it (through the median of the kept values at the middle of their span), dotted: its 90 % interval; black: the observations the analysis kept${overlay.unplaced ? ` (${fmt(overlay.unplaced)} could not be placed)` : ''}.` : trend ? ' No trend of this characteristic at these locations for the period.' : '';
      const guide = lines.length ? ` Dashed: the guidelines that apply, at each result's day (a bound computed from hardness or another input moves with it); ${fmt(marked.length)} result(s) ringed in red exceed one.` : '';
      say(note, `${fmt(page.value.length)} results at ${locations.length} location(s); hollow markers are results below a detection limit (larger: above a quantification limit), drawn at the limit.${band}${guide}${trendNote}${mixed}${cut}${lost}`);
      target.append(h('p', { class: 'visually-hidden' }, `Chart of ${characteristic} in ${unit} over time.`));
    },
  };
}
