/**
 * Kendall's S with censored values and its variance (../shared/trends/README.md §7.1–7.3, as LWP's `GetKendal` after
 * NADA's `cenken`), the test's Z and p (§7.5), and Kruskal–Wallis for seasonality (§6), written from the README.
 */
import { chiSquareUpperTail, twoSidedNormalP } from './distributions.js';

export interface KendallValue {
  readonly value: number;
  readonly censoring: '<' | '>' | null;
  /** Values sharing a key are tied in time: (season, year) in the seasonal test, one key per increment otherwise. */
  readonly timeKey: string;
}

export interface Kendall {
  readonly n: number;
  readonly S: number;
  readonly VarS: number;
  readonly D: number;
}

/** §7.1: every `>` value becomes the largest `>` limit + 0.1, detected, so all `>` values tie with each other. */
function raiseRightCensored(values: readonly KendallValue[]): KendallValue[] {
  const right = values.filter((v) => v.censoring === '>').map((v) => v.value);
  if (right.length === 0) return [...values];
  const tie = Math.max(...right) + 0.1;
  return values.map((v) => (v.censoring === '>' ? { ...v, value: tie, censoring: null } : v));
}

/** §7.2: the score of a pair, i earlier, j later. */
function pairScore(i: KendallValue, j: KendallValue): number {
  if (i.timeKey === j.timeKey) return 0;
  if (i.censoring === '<' && j.censoring === '<') return 0;
  if (i.censoring === '<') return j.value >= i.value ? 1 : 0;
  if (j.censoring === '<') return i.value >= j.value ? -1 : 0;
  return Math.sign(j.value - i.value);
}

/** The sizes of the groups of equal keys. */
function groupSizes<T>(items: readonly T[], key: (item: T) => unknown): number[] {
  const sizes = new Map<unknown, number>();
  for (const item of items) sizes.set(key(item), (sizes.get(key(item)) ?? 0) + 1);
  return [...sizes.values()];
}

const sum = (xs: readonly number[], f: (x: number) => number): number => xs.reduce((s, x) => s + f(x), 0);

/** x / y where a 0/0 is 0: the tie terms of §7.3 vanish with their numerators for n < 3. */
const ratio = (x: number, y: number): number => (x === 0 ? 0 : x / y);

/** One Kendall computation over values in time order (§7.1–7.3). */
export function kendall(input: readonly KendallValue[]): Kendall {
  const values = raiseRightCensored(input);
  const n = values.length;
  let S = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) S += pairScore(values[i]!, values[j]!);

  const lessThan = values.filter((v) => v.censoring === '<');
  const limitGroups = [...new Set(lessThan.map((v) => v.value))].map((limit) => ({
    t: lessThan.filter((v) => v.value === limit).length,
    k: values.filter((v) => v.value < limit).length,
  }));
  const A = limitGroups.reduce((s, { t }) => s + (t * (t - 1) * (2 * t + 5)) / 18, 0);
  const B = limitGroups.reduce((s, { t, k }) => s + t * k + (t * (t - 1)) / 2 - (t - 1), 0);
  const u = groupSizes(values.filter((v) => v.censoring === null), (v) => v.value);
  const w = groupSizes(values, (v) => v.timeKey);
  const C = (sum(u, (x) => x * (x - 1) * (2 * x + 5)) + sum(w, (x) => x * (x - 1) * (2 * x + 5))) / 18
    - ratio(sum(u, (x) => x * (x - 1) * (x - 2)) * sum(w, (x) => x * (x - 1) * (x - 2)), 9 * n * (n - 1) * (n - 2))
    - ratio(sum(u, (x) => x * (x - 1)) * sum(w, (x) => x * (x - 1)), 2 * n * (n - 1));
  const VarS = (n * (n - 1) * (2 * n + 5)) / 18 - A - B - C;
  return { n, S, VarS, D: (n * (n - 1)) / 2 };
}

export interface KendallTest {
  readonly Z: number;
  readonly P: number;
  readonly C: number;
  readonly Cd: number;
}

/** §7.5–7.6: Z with the continuity correction, the two-sided p, and the confidences C and Cd. */
export function kendallTest(S: number, VarS: number): KendallTest {
  const Z = S > 0 ? (S - 1) / Math.sqrt(VarS) : S < 0 ? (S + 1) / Math.sqrt(VarS) : 0;
  const P = Z === 0 ? 1 : twoSidedNormalP(Z);
  const C = 1 - P / 2;
  return { Z, P, C, Cd: S > 0 ? P / 2 : C };
}

/** Average ranks (1-based), ties sharing the mean of their positions. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.value === order[start]!.value) end++;
    for (let k = start; k <= end; k++) ranks[order[k]!.index] = (start + end) / 2 + 1;
    start = end + 1;
  }
  return ranks;
}

/** §6: Kruskal–Wallis H with the tie correction, on (number of groups with values − 1) degrees of freedom. */
export function kruskalWallis(values: readonly number[], groups: readonly string[]): { H: number; df: number; p: number } {
  const n = values.length;
  const ranks = averageRanks(values);
  const rankSums = new Map<string, { sum: number; count: number }>();
  groups.forEach((g, i) => {
    const s = rankSums.get(g) ?? { sum: 0, count: 0 };
    rankSums.set(g, { sum: s.sum + ranks[i]!, count: s.count + 1 });
  });
  const between = [...rankSums.values()].reduce((s, g) => s + (g.sum * g.sum) / g.count, 0);
  const ties = groupSizes(values, (v) => v).reduce((s, t) => s + (t ** 3 - t), 0);
  const H = ((12 * between) / (n * (n + 1)) - 3 * (n + 1)) / (1 - ties / (n ** 3 - n));
  const df = rankSums.size - 1;
  return { H, df, p: chiSquareUpperTail(H, df) };
}
