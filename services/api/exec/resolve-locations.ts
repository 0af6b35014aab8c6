/**
 * Before a plan is compiled, each location test in its filter (a shape or a distance) becomes `LocationId in (…)`
 * of the locations that pass: the locations in the test's window are read from the small `locations` table and
 * tested one by one (query/location-matcher.ts), so a polygon costs one pass over locations, never over
 * observations, and the page, count and export machinery then treat it exactly as the equivalent Id list.
 */
import type { Snapshot } from '../db/snapshot.js';
import { compileLocationPoints } from '../query/compile-location-points.js';
import { locationMatcher } from '../query/location-matcher.js';
import type { BoundValue, Cond } from '../query/plan.js';

/**
 * The plan with every location test replaced by the Ids of the locations that pass; the same plan when it has none.
 *
 * @example
 * await resolveLocations({ ...plan, where: { kind: 'location', dim: LocationId, test } }, snapshot, signal)
 * // → { ...plan, where: { kind: 'in', dim: LocationId, values: [{ sqlType: 'BIGINT', value: 12n }, …] } }
 */
export async function resolveLocations<P extends { readonly where: Cond | undefined }>(plan: P, snapshot: Snapshot, signal: AbortSignal): Promise<P> {
  if (!plan.where || !hasLocationTest(plan.where)) return plan;
  return { ...plan, where: await resolve(plan.where, snapshot, signal) };
}

function hasLocationTest(cond: Cond): boolean {
  switch (cond.kind) {
    case 'location':
      return true;
    case 'and':
    case 'or':
      return hasLocationTest(cond.left) || hasLocationTest(cond.right);
    case 'not':
      return hasLocationTest(cond.operand);
    default:
      return false;
  }
}

async function resolve(cond: Cond, snapshot: Snapshot, signal: AbortSignal): Promise<Cond> {
  switch (cond.kind) {
    case 'location':
      return { kind: 'in', dim: cond.dim, values: await matchingIds(cond, snapshot, signal) };
    case 'and':
    case 'or':
      return { kind: cond.kind, left: await resolve(cond.left, snapshot, signal), right: await resolve(cond.right, snapshot, signal) };
    case 'not':
      return { kind: 'not', operand: await resolve(cond.operand, snapshot, signal) };
    default:
      return cond;
  }
}

async function matchingIds(cond: Extract<Cond, { kind: 'location' }>, snapshot: Snapshot, signal: AbortSignal): Promise<BoundValue[]> {
  const matcher = locationMatcher(cond.test);
  if (!matcher.window) return [];
  const cols = await snapshot.columns(compileLocationPoints(matcher.window), signal);
  const [ids, xs, ys] = [cols['id'] ?? [], cols['x'] ?? [], cols['y'] ?? []];
  const out: BoundValue[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (matcher.matches(Number(xs[i]), Number(ys[i]))) out.push({ sqlType: 'BIGINT', value: BigInt(ids[i] as bigint) });
  }
  return out;
}
