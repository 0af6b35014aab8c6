/**
 * ResultValue over ActivityStartDate for one CharacteristicName at the locations picked on the map (uPlot,
 * canvas). Each location is a line with dots; its detection-limit results (no ResultValue, a
 * ResultDetectionCondition) are a second series of hollow markers drawn at the reported limit, never at zero.
 * A result with neither a value nor a limit cannot be placed and is counted in the note instead.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { getJson, query, type Page } from './api.js';
import { fmt, h, say } from './dom.js';
import { andFilter } from './selection.js';

interface ChartRow {
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
const SELECT = 'LocationId,ActivityStartDate,ActivityStartTime,ResultValue,ResultUnit,ResultDetectionCondition,ResultDetectionQuantitationLimitMeasure,ResultDetectionQuantitationLimitUnit';
const MAX_ROWS = 10_000;

interface Series {
  readonly label: string;
  readonly colour: string;
  readonly limit: boolean;
  readonly points: [number, number][];
}

/** Seconds since the epoch; a point without a time sits at noon. Times are drawn as given (local to the site). */
const when = (r: ChartRow): number => Date.parse(`${r.ActivityStartDate}T${r.ActivityStartTime ?? '12:00:00'}Z`) / 1000;

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

export interface ChartPanel {
  show(characteristic: string | undefined, locations: readonly number[], names: ReadonlyMap<number, string>, filter: string, signal: AbortSignal): Promise<void>;
}

export function chartPanel(figure: HTMLElement, note: HTMLElement): ChartPanel {
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
  };

  return {
    async show(characteristic, locations, names, filter, signal) {
      if (!characteristic || locations.length === 0) {
        clear();
        say(note, characteristic ? 'Click up to four locations on the map to chart them.' : 'Choose exactly one characteristic, then click up to four locations on the map, to chart its values over time.');
        return;
      }
      say(note, 'Loading…');
      const page = await getJson<Page<ChartRow>>(`/Observations${query({ $filter: andFilter(filter, `LocationId in (${locations.join(',')})`), $select: SELECT, $top: String(MAX_ROWS) })}`, signal);
      const series: Series[] = [];
      let unplaced = 0;
      const units = new Set<string>();
      locations.forEach((id, i) => {
        const name = names.get(id) ?? `Location ${id}`;
        const rows = page.value.filter((r) => r.LocationId === id);
        const values: [number, number][] = [], limits: [number, number][] = [];
        for (const r of rows) {
          if (r.ResultValue !== null) (values.push([when(r), r.ResultValue]), r.ResultUnit && units.add(r.ResultUnit));
          else if (r.ResultDetectionQuantitationLimitMeasure !== null) (limits.push([when(r), r.ResultDetectionQuantitationLimitMeasure]), r.ResultDetectionQuantitationLimitUnit && units.add(r.ResultDetectionQuantitationLimitUnit));
          else unplaced++;
        }
        const colour = COLOURS[i % COLOURS.length]!;
        series.push({ label: name, colour, limit: false, points: values });
        if (limits.length) series.push({ label: `${name}: below detection limit (at the limit)`, colour, limit: true, points: limits });
      });
      clear();
      const unit = [...units].join(', ') || 'no unit given';
      const target = figure.querySelector<HTMLElement>('.plot')!;
      plot = new uPlot({
        ...size(Math.max(280, figure.clientWidth)),
        title: characteristic,
        scales: { x: { time: true } },
        // A legend of names only: live values beside each name wrap badly at phone widths.
        legend: { live: false },
        // The title names the characteristic; the axis its unit (a long name would be cut at phone widths).
        axes: [{}, { label: unit, size: 60 }],
        series: [
          { label: 'Date' },
          ...series.map((s) => s.limit
            ? { label: s.label, stroke: s.colour, width: 0, paths: () => null, points: { show: true, size: 9, width: 2, fill: '#ffffff', stroke: s.colour } }
            : { label: s.label, stroke: s.colour, width: 1.5, spanGaps: true, points: { show: true, size: 4, fill: s.colour } }),
        ],
      }, aligned(series), target);
      figure.dataset['seriesLengths'] = series.map((s) => s.points.length).join(',');
      figure.dataset['unplaced'] = String(unplaced);
      const cut = page['@odata.nextLink'] ? ` Only the first ${fmt(MAX_ROWS)} results are drawn.` : '';
      const mixed = units.size > 1 ? ` Mixed units: ${unit}.` : '';
      const lost = unplaced ? ` ${fmt(unplaced)} result(s) with neither a value nor a detection limit are not drawn.` : '';
      say(note, `${fmt(page.value.length)} results at ${locations.length} location(s); hollow markers are detection-limit results.${mixed}${cut}${lost}`);
      target.append(h('p', { class: 'visually-hidden' }, `Chart of ${characteristic} in ${unit} over time.`));
    },
  };
}
