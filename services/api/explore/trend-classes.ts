/**
 * How the explorer shows a Trends row (issue 54): its class on the map and in words. A characteristic with an
 * improving direction is shown by LAWA's five categories (`Category`); one without (pH, temperature: `ImprovesWhen`
 * null, `Category` null) by its `Direction`, which says nothing of better or worse. Colours are ColorBrewer's
 * colour-blind-safe diverging schemes (RdYlBu for categories: blue improving, red degrading; PuOr for directions),
 * and the confidence is also the marker's size, so no class rests on hue alone; every class is named in words too.
 * Pure: the layer (trends-layer.ts) and the chart (trend-chart.ts) use it, and trend-classes.test.ts checks it.
 */
import { andFilter, filterText, type Selection, type TrendPeriod } from './selection.js';

/** The Trends fields the map and the chart's words read. */
export interface TrendRow {
  readonly Id: number;
  readonly LocationId: number;
  readonly ResultSampleFraction: string | null;
  readonly MethodSpeciation: string | null;
  readonly ResultUnit: string | null;
  readonly StartYear: number;
  readonly EndYear: number;
  readonly Observations: number;
  readonly TimeIncrement: string;
  readonly N: number | null;
  readonly NCensored: number | null;
  readonly Season: string | null;
  readonly Cd: number | null;
  readonly Median: number | null;
  readonly SenSlope: number | null;
  readonly SenSlopeLower90: number | null;
  readonly SenSlopeUpper90: number | null;
  readonly PercentAnnualChange: number | null;
  readonly AnalysisNote: string | null;
  readonly Direction: string;
  readonly ImprovesWhen: string | null;
  readonly Category: string | null;
  readonly Reason: string | null;
}

export const TREND_SELECT =
  'Id,LocationId,ResultSampleFraction,MethodSpeciation,ResultUnit,StartYear,EndYear,Observations,TimeIncrement,N,NCensored,Season,Cd,Median,' +
  'SenSlope,SenSlopeLower90,SenSlopeUpper90,PercentAnnualChange,AnalysisNote,Direction,ImprovesWhen,Category,Reason';

/** A class of the map's key: the value it stands for, its marker and its words. */
export interface TrendClass {
  readonly value: string;
  readonly fill: string;
  readonly stroke: string;
  readonly radius: number;
  /** Dashed outline: nothing was concluded. */
  readonly dashed?: true;
  readonly label: string;
}

const NOT_ANALYSED: TrendClass = { value: 'Not Analysed', fill: '#ffffff', stroke: '#4b5563', radius: 4, dashed: true, label: 'Not analysed (too few data, or LWP’s checks)' };

/** LAWA's categories, improving to degrading, then Not Analysed. */
export const CATEGORY_CLASSES: readonly TrendClass[] = [
  { value: 'Very likely improving', fill: '#2c7bb6', stroke: '#111827', radius: 7, label: 'Very likely improving' },
  { value: 'Likely improving', fill: '#abd9e9', stroke: '#111827', radius: 6, label: 'Likely improving' },
  { value: 'Indeterminate', fill: '#ffffbf', stroke: '#111827', radius: 5, label: 'Indeterminate' },
  { value: 'Likely degrading', fill: '#fdae61', stroke: '#111827', radius: 6, label: 'Likely degrading' },
  { value: 'Very likely degrading', fill: '#d7191c', stroke: '#111827', radius: 7, label: 'Very likely degrading' },
  NOT_ANALYSED,
];

/** Directions, for a characteristic without an improving direction: no colour of better or worse. */
export const DIRECTION_CLASSES: readonly TrendClass[] = [
  { value: 'Increasing', fill: '#e66101', stroke: '#111827', radius: 6, label: 'Increasing' },
  { value: 'Indeterminate', fill: '#f7f7f7', stroke: '#111827', radius: 5, label: 'Indeterminate' },
  { value: 'Decreasing', fill: '#5e3c99', stroke: '#111827', radius: 6, label: 'Decreasing' },
  NOT_ANALYSED,
];

/** A location of the map without a row for the period (no usable observation in it). */
export const NO_TREND: TrendClass = { value: 'none', fill: '#9ca3af', stroke: '#4b5563', radius: 3, label: 'no observation in the period' };

/** Whether a row is read by its Category (the characteristic has an improving direction) or by its Direction. */
export const byCategory = (row: TrendRow): boolean => row.ImprovesWhen !== null;

export function classOf(row: TrendRow): TrendClass {
  const [classes, value] = byCategory(row) ? [CATEGORY_CLASSES, row.Category] : [DIRECTION_CLASSES, row.Direction];
  return classes.find((c) => c.value === value) ?? NOT_ANALYSED;
}

/**
 * The Trends `$filter` of a selection and period: what Trends can filter by of the page's filters (datasets,
 * characteristics, location types, region, drawn shape). Medium, activity group and years select observations,
 * which a trend is not: each row covers its period's usable results of every medium and group but quality control.
 */
export function trendsFilter(s: Selection, period: TrendPeriod): string {
  const ofTrends = filterText({ ...s, lists: { ...s.lists, ActivityMediaName: [], ActivityGroupType: [] }, yearFrom: null, yearTo: null });
  return andFilter(ofTrends, `StartYear eq ${period.startYear} and EndYear eq ${period.endYear}`);
}

const analysed = (r: TrendRow): number => (r.Cd === null ? 0 : 1);

/**
 * The row each location shows when it has several series of the characteristic (fractions, speciations, units):
 * an analysed one first, then the one with the most increments, then the most observations, then the lowest Id.
 *
 * @example
 * shownRows([{ LocationId: 3, Id: 1, Cd: null, N: 60, … }, { LocationId: 3, Id: 2, Cd: 0.9, N: 20, … }]).get(3)!.shown.Id // 2
 */
export function shownRows<T extends TrendRow>(rows: readonly T[]): Map<number, { readonly shown: T; readonly rows: readonly T[] }> {
  const out = new Map<number, { shown: T; rows: T[] }>();
  for (const [location, own] of Map.groupBy(rows, (r) => r.LocationId)) {
    const sorted = [...own].sort((a, b) => analysed(b) - analysed(a) || (b.N ?? -1) - (a.N ?? -1) || b.Observations - a.Observations || a.Id - b.Id);
    out.set(location, { shown: sorted[0]!, rows: sorted });
  }
  return out;
}

/** A number as the popup writes one: three significant digits. */
export const digits = (v: number): string => String(Number(v.toPrecision(3)));

/** The series beside the characteristic: `Unfiltered, as P, mg/L`. */
export const seriesText = (r: TrendRow): string => [r.ResultSampleFraction, r.MethodSpeciation, r.ResultUnit].filter((v) => v !== null && v !== '').join(', ');

/** The slope in words: `−0.0004 mg/L a year (90 % interval −0.0018 to 0), −4 % a year`; '' when there is none. */
export function slopeText(r: TrendRow): string {
  if (r.SenSlope === null) return '';
  const unit = r.ResultUnit ? ` ${r.ResultUnit}` : '';
  const interval = r.SenSlopeLower90 !== null && r.SenSlopeUpper90 !== null ? ` (90 % interval ${digits(r.SenSlopeLower90)} to ${digits(r.SenSlopeUpper90)})` : '';
  const percent = r.PercentAnnualChange === null ? '' : `, ${digits(r.PercentAnnualChange)} % a year`;
  return `Sen slope ${digits(r.SenSlope)}${unit} a year${interval}${percent}`;
}

/** Why a row has no trend, in words: its Reason and LWP's note. */
export function whyNoTrend(r: TrendRow): string {
  if (r.TimeIncrement === 'unassessed') return `not assessed: too few months or quarters, or years, with data (${r.Observations} observations in ${r.EndYear - r.StartYear + 1} years)`;
  return `not analysed: ${r.AnalysisNote ?? 'no note'}`;
}

/** A row's class and its figures in one line, as the tooltip, the table and the chart's words write it. */
export function trendText(r: TrendRow): string {
  const klass = classOf(r);
  if (klass === NOT_ANALYSED) return `${klass.value}: ${whyNoTrend(r)}`;
  const direction = byCategory(r) ? ` (${r.Direction.toLowerCase()})` : '';
  return `${klass.label}${direction}; ${slopeText(r)}`;
}
