/**
 * Region filters as Id ranges. A RegionId condition is a semi-join to `location_regions`, and DuckDB runs a
 * LIMIT above a join as a streaming limit that does not keep insertion order (measured: a page skipped a whole
 * 2,048-row vector). Each location's observations are one contiguous Id range, so a region is also a short
 * list of Id ranges: pages of Observations and Records scan those ranges with plain filters instead.
 */
import type { Cond } from './plan.js';

export type IdRange = readonly [first: bigint, last: bigint];

/** Top-level AND conjuncts that require membership (eq, in, startswith…), and the rest. */
export function splitMemberships(cond: Cond | undefined): { memberships: Cond[]; rest: Cond | undefined } {
  const memberships: Cond[] = [];
  const others: Cond[] = [];
  const visit = (c: Cond): void => {
    if (c.kind === 'and') {
      visit(c.left);
      visit(c.right);
    } else if (isPositiveMembership(c)) memberships.push(c);
    else others.push(c);
  };
  if (cond) visit(cond);
  const rest = others.reduce<Cond | undefined>((acc, c) => (acc ? { kind: 'and', left: acc, right: c } : c), undefined);
  return { memberships, rest };
}

function isPositiveMembership(c: Cond): boolean {
  if (c.kind === 'compare') return Boolean(c.dim.membership) && c.op === 'eq';
  return (c.kind === 'in' || c.kind === 'text') && Boolean(c.dim.membership);
}

/** Sorted ranges with touching neighbours joined (locations of one dataset usually are). */
export function mergeRanges(ranges: readonly IdRange[]): IdRange[] {
  const out: [bigint, bigint][] = [];
  for (const [a, b] of [...ranges].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1n) last[1] = b > last[1] ? b : last[1];
    else out.push([a, b]);
  }
  return out;
}

/** The parts of `ranges` inside [first, last]. */
export function clipRanges(ranges: readonly IdRange[], first: bigint, last: bigint): IdRange[] {
  return ranges
    .filter(([a, b]) => b >= first && a <= last)
    .map(([a, b]) => [a > first ? a : first, b < last ? b : last] as const);
}
