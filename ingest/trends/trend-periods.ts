import type { TrendsMeta } from '../meta-rows.js';

/**
 * TRENDS_PERIODS and EndYear (§2): an item `N` is the N calendar years ending at EndYear, an item `A-B` the years
 * A … B. The text stored in tributary_meta is the items in a canonical order, so a publication can tell whether the
 * periods changed (then every series is recomputed).
 */

export type PeriodItem = { readonly kind: 'years'; readonly years: number } | { readonly kind: 'range'; readonly from: number; readonly to: number };

export interface Period {
  readonly startYear: number;
  readonly endYear: number;
}

/** The trends settings of a publish: TRENDS_END_YEAR (when given) and TRENDS_PERIODS. */
export interface TrendSettings {
  readonly endYear?: number;
  readonly periods: readonly PeriodItem[];
}

export const DEFAULT_PERIODS = '5,10,15';

const YEAR_MAX = 9999;

/** Parses TRENDS_PERIODS; throws a message naming the item at fault. */
export function parsePeriods(text: string): PeriodItem[] {
  const items = text.split(',').map((t) => t.trim());
  if (items.some((t) => t === '')) throw new Error(`must be a comma-separated list such as ${DEFAULT_PERIODS} or 2015-2024, got '${text}'`);
  const parsed = items.map((item): PeriodItem => {
    const years = /^\d{1,2}$/.exec(item);
    if (years && Number(item) >= 1) return { kind: 'years', years: Number(item) };
    const range = /^(\d{1,4})-(\d{1,4})$/.exec(item);
    if (range && Number(range[1]) >= 1 && Number(range[1]) <= Number(range[2]) && Number(range[2]) <= YEAR_MAX) return { kind: 'range', from: Number(range[1]), to: Number(range[2]) };
    throw new Error(`'${item}' is neither a number of years (1 to 99) nor a range of years such as 2015-2024`);
  });
  return canonical(parsed);
}

/** The items without repeats, numbers of years first, each kind ascending. */
function canonical(items: readonly PeriodItem[]): PeriodItem[] {
  const key = (p: PeriodItem) => (p.kind === 'years' ? [0, p.years, 0] : [1, p.from, p.to]);
  const unique = new Map(items.map((p) => [key(p).join(':'), p]));
  return [...unique.values()].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return ka[0]! - kb[0]! || ka[1]! - kb[1]! || ka[2]! - kb[2]!;
  });
}

/** The items as TRENDS_PERIODS spells them, in canonical order. */
export function periodsText(items: readonly PeriodItem[]): string {
  return items.map((p) => (p.kind === 'years' ? String(p.years) : `${p.from}-${p.to}`)).join(',');
}

/** The periods of a publication, ordered by StartYear then EndYear; `N` items need an EndYear (none: no data). */
export function resolvePeriods(items: readonly PeriodItem[], endYear: number | null): Period[] {
  const periods = items.flatMap((p): Period[] => {
    if (p.kind === 'range') return [{ startYear: p.from, endYear: p.to }];
    return endYear === null ? [] : [{ startYear: endYear - p.years + 1, endYear }];
  });
  const unique = new Map(periods.map((p) => [`${p.startYear}-${p.endYear}`, p]));
  return [...unique.values()].sort((a, b) => a.startYear - b.startYear || a.endYear - b.endYear);
}

/** Why every series is computed, or undefined when only the delta's are (§2: EndYear and the periods are the hub's). */
export function recomputeReason(delta: boolean, published: TrendsMeta | undefined, meta: TrendsMeta): string | undefined {
  if (!delta || published === undefined) return 'a new file';
  if (published.endYear !== meta.endYear) return `the end year moved from ${published.endYear ?? 'none'} to ${meta.endYear ?? 'none'}`;
  if (published.periods !== meta.periods) return `the periods changed from ${published.periods} to ${meta.periods}`;
  return undefined;
}

