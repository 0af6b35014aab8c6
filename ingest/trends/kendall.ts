import { twoSidedNormalP } from './distributions.js';
import type { Censoring } from './trend-types.js';

/**
 * Kendall's S and its variance with censored values (§7), as LWP's `GetKendal` computes them after NADA's `cenken`
 * (Helsel 2005): `<` values are tied with each other whatever their limits and with any detected value below their
 * limit; `>` values become one tie just above the largest `>` limit; pairs tied in time count nothing.
 */

export interface KendallValue {
  readonly value: number;
  readonly censoring: Censoring;
  /** Values with the same key are tied in time (the same season and year in a seasonal test). */
  readonly time: number;
}

export interface KendallSums {
  readonly n: number;
  readonly S: number;
  readonly VarS: number;
  readonly D: number;
}

/** The values' `>` ones made detected at the largest `>` limit + 0.1 (in the data's unit), as LWP does. */
function withRightCensoredTied(values: readonly KendallValue[]): readonly KendallValue[] {
  const gt = values.filter((v) => v.censoring === 'gt');
  if (gt.length === 0) return values;
  const tied = Math.max(...gt.map((v) => v.value)) + 0.1;
  return values.map((v) => (v.censoring === 'gt' ? { ...v, value: tied, censoring: 'not' } : v));
}

/** One pair's contribution to S, i earlier, j later (§7.2). */
function pairSign(i: KendallValue, j: KendallValue): number {
  if (i.time === j.time) return 0;
  const li = i.censoring === 'lt';
  const lj = j.censoring === 'lt';
  if (li && lj) return 0;
  if (li) return j.value >= i.value ? 1 : 0;
  if (lj) return i.value >= j.value ? -1 : 0;
  return Math.sign(j.value - i.value);
}

/** Sizes of the groups of equal keys. */
function groupSizes<T>(items: readonly T[], key: (item: T) => number): number[] {
  const counts = new Map<number, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts.values()];
}

const sum = (xs: readonly number[], f: (x: number) => number) => xs.reduce((acc, x) => acc + f(x), 0);

/** A and B of §7.3: the `<` values' ties among themselves and with the values below their limit. */
function censoredTies(values: readonly KendallValue[]): { A: number; B: number } {
  const lt = values.filter((v) => v.censoring === 'lt');
  const byLimit = Map.groupBy(lt, (v) => v.value);
  let A = 0;
  let B = 0;
  for (const [limit, group] of byLimit) {
    const t = group.length;
    const below = values.filter((v) => v.value < limit).length;
    A += (t * (t - 1) * (2 * t + 5)) / 18;
    B += t * below + (t * (t - 1)) / 2 - (t - 1);
  }
  return { A, B };
}

/** C of §7.3: ties among detected values (u) and in time (w), Kendall's tie correction. */
function detectedAndTimeTies(values: readonly KendallValue[]): number {
  const n = values.length;
  const u = groupSizes(values.filter((v) => v.censoring !== 'lt'), (v) => v.value);
  const w = groupSizes(values, (v) => v.time);
  const first = (sum(u, (t) => t * (t - 1) * (2 * t + 5)) + sum(w, (t) => t * (t - 1) * (2 * t + 5))) / 18;
  // With n < 3 every u(u−1)(u−2) is 0 (R would divide 0 by 0); the checks never let so few values through.
  const second = n < 3 ? 0 : (sum(u, (t) => t * (t - 1) * (t - 2)) * sum(w, (t) => t * (t - 1) * (t - 2))) / (9 * n * (n - 1) * (n - 2));
  const third = n < 2 ? 0 : (sum(u, (t) => t * (t - 1)) * sum(w, (t) => t * (t - 1))) / (2 * n * (n - 1));
  return first - second - third;
}

/** S, VarS and D of one Kendall computation over values in time order. */
export function kendall(input: readonly KendallValue[]): KendallSums {
  const values = withRightCensoredTied(input);
  const n = values.length;
  let S = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) S += pairSign(values[i]!, values[j]!);
  const { A, B } = censoredTies(values);
  const VarS = (n * (n - 1) * (2 * n + 5)) / 18 - A - B - detectedAndTimeTies(values);
  return { n, S, VarS, D: (n * (n - 1)) / 2 };
}

/** The seasonal test's sums: one Kendall computation per season (time key: the year), added up. */
export function seasonalKendall(bySeason: readonly (readonly KendallValue[])[]): KendallSums {
  const parts = bySeason.filter((s) => s.length > 0).map(kendall);
  return {
    n: parts.reduce((a, p) => a + p.n, 0),
    S: parts.reduce((a, p) => a + p.S, 0),
    VarS: parts.reduce((a, p) => a + p.VarS, 0),
    D: parts.reduce((a, p) => a + p.D, 0),
  };
}

export interface KendallTest {
  readonly Z: number;
  readonly P: number;
  readonly C: number;
  readonly Cd: number;
}

/** Z with the continuity correction, the two-sided P, C and Cd (§7.5–7.6). */
export function kendallTest(S: number, VarS: number): KendallTest {
  const sigma = Math.sqrt(VarS);
  const Z = S > 0 ? (S - 1) / sigma : S < 0 ? (S + 1) / sigma : 0;
  const P = Z === 0 ? 1 : twoSidedNormalP(Z);
  const C = 1 - P / 2;
  return { Z, P, C, Cd: S > 0 ? P / 2 : C };
}
