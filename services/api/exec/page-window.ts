/**
 * Phase one of a page: which rows (up to `top + 1` Ids in ascending order) and how to read them (phase two, always
 * the sorted Id window). Three strategies, chosen by one decision function (`chooseWindowStrategy`) from what the
 * plan filters on and what the snapshot checked at open; each is the cheapest that is still exactly Id order:
 * - `sorted`: small tables (datasets, locations) and files not stored in Id order: ORDER BY Id;
 * - `ordered-scan`: observations (or a table of its own stored in Id order) with plain filters: a LIMIT without
 *   ORDER BY, which DuckDB answers in stored order and stops early — used only when EXPLAIN shows a plan that keeps
 *   order (no join, no streaming limit), else `sorted`;
 * - `region-ranges`: observations with region filters: the regions' Id ranges, scanned range by range with plain
 *   filters.
 * Each strategy's invariant is written on its entry in WINDOW_STRATEGIES with the test that pins it
 * (exec/page-window.test.ts unless named otherwise).
 */
import type { Snapshot } from '../db/snapshot.js';
import { compileMembershipRanges } from '../query/compile-membership-ranges.js';
import { compilePageIds, compilePageRows, type PageQueryOptions } from '../query/compile-page.js';
import { clipRanges, mergeRanges, splitMemberships, type IdRange } from '../query/membership.js';
import type { Cond, Key, PagePlan } from '../query/plan.js';
import type { CompiledQuery } from '../query/sql.js';

export interface PageWindow {
  /** Up to `top + 1` Ids in ascending order: the page, and whether a next page exists. */
  readonly ids: readonly Key[];
  /** Phase two for the first `count` of them, or for those from index `skip` on (a cursor that failed mid-page). */
  rows(format: PagePlan['format'], count: number, skip?: number): CompiledQuery;
  /**
   * Phase one scanned the table in stored order with plain filters: the same rows, in the same order, can come from
   * a cursor over `plan.where` after `plan.after` (exec/page-text.ts).
   */
  readonly continuable: boolean;
}

/**
 * DuckDB plans `LIMIT n` over an order-keeping scan as its batch LIMIT (parallel, keeps insertion order) only for
 * n ≤ 10,000 (BATCH_LIMIT_THRESHOLD in DuckDB's plan_limit.cpp); above that it is a STREAMING_LIMIT, which EXPLAIN
 * does not tell apart from the parallel streaming limit that loses order (above a join). So phase one asks for at
 * most this many Ids per query and continues after the last one: `$top=10000` needs 10,001 Ids (the extra one
 * says whether a next page exists). One larger LIMIT fails the order check and falls back to ORDER BY, which costs
 * far more than continuing (docs/performance.md, Alternatives measured and rejected).
 */
const ORDERED_LIMIT_MAX = 10_000;

export type WindowStrategyKind = 'sorted' | 'ordered-scan' | 'region-ranges';

interface WindowStrategy {
  find(snapshot: Snapshot, plan: PagePlan, signal: AbortSignal): Promise<PageWindow>;
}

/**
 * The one decision: which strategy finds this plan's page on this snapshot, from the resource's `pages` door
 * (schemas/catalogue.ts) and what the snapshot checked at open. A table whose region filters have no Id ranges to
 * walk answers them by a semi-join, which keeps no order: sorted.
 */
export function chooseWindowStrategy(plan: PagePlan, snapshot: Pick<Snapshot, 'inIdOrder'>): WindowStrategyKind {
  const { pages, table } = plan.resource;
  if (pages.order === 'sorted' || !snapshot.inIdOrder.has(table)) return 'sorted';
  if (splitMemberships(plan.where).memberships.length === 0) return 'ordered-scan';
  return pages.regionRanges ? 'region-ranges' : 'sorted';
}

export const WINDOW_STRATEGIES: { readonly [K in WindowStrategyKind]: WindowStrategy } = {
  /**
   * Invariant: none beyond SQL: ORDER BY Id LIMIT top + 1 is the reference every other strategy must equal.
   * Pinned by: 'falls back to ORDER BY, with the same Ids, when DuckDB would not keep order'; a file stored out of
   * Id order is served by it (db/ordering.test.ts 'a shuffled file pages to the same rows as the ordered one').
   */
  sorted: { find: sortedPage },
  /**
   * Invariant: the resource's table is stored in Id order (Snapshot.inIdOrder, checked at open) and DuckDB keeps stored
   * order under a LIMIT of at most ORDERED_LIMIT_MAX when EXPLAIN shows no join, union, aggregate or
   * STREAMING_LIMIT (Snapshot.keepsOrder); the Ids found are still checked to ascend, and any doubt sorts.
   * Pinned by: 'at $top=10000, every strategy returns the reference Ids without sorting, in LIMITs of at most
   * 10,000', 'small pages follow the same Ids as the reference from cursor to cursor', 'falls back to ORDER BY…',
   * and db/order-check.test.ts 'a no for one set of values is not remembered for other values of the same SQL text'.
   */
  'ordered-scan': {
    async find(snapshot, plan, signal) {
      const ids = await scanIds(snapshot, plan, undefined, plan.top + 1, signal);
      return ids ? window(plan, ids, {}) : sortedPage(snapshot, plan, signal);
    },
  },
  /**
   * Invariant: each location's observations are one contiguous Id range (locations.first_obs_id..last_obs_id,
   * written by ingest), so a region is a short list of Id ranges scanned in order with the other filters; each
   * range is an ordered scan (sorted when EXPLAIN says no). Pinned by: the $top=10000 and small-page tests above on
   * `RegionId eq 'admin.2.ca'`, and 'rows(format, count, skip) reads the page from its skip-th Id on'.
   */
  'region-ranges': {
    find(snapshot, plan, signal) {
      const { memberships, rest } = splitMemberships(plan.where);
      return regionPage(snapshot, plan, { ...plan, where: rest }, memberships, signal);
    },
  },
};

/** Phase one of `plan`, by the strategy chooseWindowStrategy picks. */
export function findPage(snapshot: Snapshot, plan: PagePlan, signal: AbortSignal): Promise<PageWindow> {
  return WINDOW_STRATEGIES[chooseWindowStrategy(plan, snapshot)].find(snapshot, plan, signal);
}

async function sortedPage(snapshot: Snapshot, plan: PagePlan, signal: AbortSignal): Promise<PageWindow> {
  const ids = await idsOf(snapshot, compilePageIds(plan, { ordered: true }), signal);
  return { ids, rows: (format, count, skip = 0) => compilePageRows(plan, bounds(ids, count, skip), format, { ordered: true }), continuable: false };
}

/**
 * Up to `need` matching Ids after `plan.after` (inside `range` when given), in stored order without ORDER BY, by
 * LIMITs of at most ORDERED_LIMIT_MAX. Undefined when a plan would not keep order or the Ids do not ascend: the
 * caller then sorts.
 */
async function scanIds(snapshot: Snapshot, plan: PagePlan, range: IdRange | undefined, need: number, signal: AbortSignal): Promise<Key[] | undefined> {
  const ids: Key[] = [];
  let after = plan.after;
  while (ids.length < need) {
    const limit = Math.min(need - ids.length, ORDERED_LIMIT_MAX);
    const q = compilePageIds({ ...plan, after }, { ordered: false, limit, ...(range ? { idRanges: [range] } : {}) });
    if (!(await snapshot.keepsOrder(q, signal))) return undefined;
    const found = await idsOf(snapshot, q, signal);
    if (!ascending(found) || (found.length > 0 && ids.length > 0 && !(found[0]! > ids[ids.length - 1]!))) return undefined;
    ids.push(...found);
    if (found.length < limit) break;
    after = found[found.length - 1];
  }
  return ids;
}

/** Region filters: walk the regions' Id ranges after the cursor until `top + 1` rows match the rest. */
async function regionPage(
  snapshot: Snapshot,
  plan: PagePlan,
  restPlan: PagePlan,
  memberships: readonly Cond[],
  signal: AbortSignal,
): Promise<PageWindow> {
  const cols = await snapshot.columns(compileMembershipRanges(memberships), signal);
  const ranges = mergeRanges((cols['first'] ?? []).map((a, i) => [BigInt(a as bigint), BigInt(cols['last']![i] as bigint)] as const));
  const after = plan.after === undefined ? 0n : BigInt(plan.after);
  const need = plan.top + 1;
  const ids: Key[] = [];
  for (const [a, b] of ranges) {
    if (b <= after) continue;
    const range: IdRange = [a > after ? a : after + 1n, b];
    const inRange = { ...restPlan, after: undefined };
    const found =
      (await scanIds(snapshot, inRange, range, need - ids.length, signal)) ??
      (await idsOf(snapshot, compilePageIds(inRange, { idRanges: [range], limit: need - ids.length, ordered: true }), signal));
    ids.push(...found);
    if (ids.length >= need) break;
  }
  return window(restPlan, ids, { ranges });
}

/**
 * Phase two reads only the window between the page's first and last Id, sorted: ORDER BY over at most a page
 * costs within the noise of rendering it (docs/performance.md, Alternatives measured and rejected) and makes the
 * order hold by construction, whatever plan DuckDB picks for the window.
 */
function window(plan: PagePlan, ids: readonly Key[], extra: { ranges?: readonly IdRange[] }): PageWindow {
  return {
    ids,
    // Region pages read their Id ranges; a plain scan in stored order is what a cursor continues.
    continuable: !extra.ranges,
    rows(format, count, skip = 0) {
      const { first, last } = bounds(ids, count, skip);
      const opts: PageQueryOptions = { ordered: true, ...(extra.ranges ? { idRanges: clipRanges(extra.ranges, BigInt(first), BigInt(last)) } : {}) };
      return compilePageRows(plan, { first, last }, format, opts);
    },
  };
}

function bounds(ids: readonly Key[], count: number, skip: number): { first: Key; last: Key } {
  return { first: ids[skip]!, last: ids[count - 1]! };
}

async function idsOf(snapshot: Snapshot, q: CompiledQuery, signal: AbortSignal): Promise<Key[]> {
  const cols = await snapshot.columns(q, signal);
  return (cols['Id'] ?? []).map((v) => (typeof v === 'bigint' ? v : String(v)));
}

function ascending(ids: readonly Key[]): boolean {
  for (let i = 1; i < ids.length; i++) if (!(ids[i]! > ids[i - 1]!)) return false;
  return true;
}
