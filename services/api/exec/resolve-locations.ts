/**
 * Before a plan is compiled, each location test in its filter (a shape or a distance) becomes `LocationId in (…)`
 * of the locations that pass: the locations in the test's window are read from the small `locations` table and
 * tested one by one (query/location-matcher.ts), so a polygon costs one pass over locations, never over
 * observations, and the page, count and export machinery then treat it exactly as the equivalent Id list.
 *
 * A test that passes nearly every location must not cost a request the whole map per term (issue 47 item 2):
 * identical tests are resolved once per request; a distance `gt`/`ge` is the complement of `le`/`lt`, whose
 * window is a latitude band (`not (LocationId in (…near…))`); and the Ids one request may expand to, all terms
 * together, are bounded (`LOCATION_ID_LIMIT`). The compiler binds a long list as one parameter, not one per Id.
 */
import type { Snapshot } from '../db/snapshot.js';
import { ApiError } from '../errors.js';
import { compileLocationPoints } from '../query/compile-location-points.js';
import { locationMatcher } from '../query/location-matcher.js';
import type { BoundValue, Cond, LocationTest } from '../query/plan.js';

/**
 * Location Ids one request's location tests may expand to, every distinct term together: a few whole-map terms of a
 * national hub fit, a filter repeating world-sized shapes does not.
 */
export const LOCATION_ID_LIMIT = 500_000;

/** One request's resolved tests by their text, and the Ids they expanded to so far. */
interface Resolution {
  readonly seen: Map<string, Promise<BoundValue[]>>;
  ids: number;
  readonly limit: number;
}

/**
 * The plan with every location test replaced by the Ids of the locations that pass; the same plan when it has none.
 *
 * @example
 * await resolveLocations({ ...plan, where: { kind: 'location', dim: LocationId, test } }, snapshot, signal)
 * // → { ...plan, where: { kind: 'in', dim: LocationId, values: [{ sqlType: 'BIGINT', value: 12n }, …] } }
 */
export async function resolveLocations<P extends { readonly where: Cond | undefined }>(plan: P, snapshot: Snapshot, signal: AbortSignal, idLimit = LOCATION_ID_LIMIT): Promise<P> {
  if (!plan.where || !hasLocationTest(plan.where)) return plan;
  return { ...plan, where: await resolve(plan.where, snapshot, signal, { seen: new Map(), ids: 0, limit: idLimit }) };
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

async function resolve(cond: Cond, snapshot: Snapshot, signal: AbortSignal, r: Resolution): Promise<Cond> {
  switch (cond.kind) {
    case 'location': {
      const { test } = cond;
      if (test.kind === 'distance' && (test.op === 'gt' || test.op === 'ge')) {
        // Farther than N is every location but those within N: resolve the near ones (a latitude band) and negate.
        const near = await ids({ ...test, op: test.op === 'gt' ? 'le' : 'lt' }, snapshot, signal, r);
        const within: Cond = { kind: 'in', dim: cond.dim, values: near };
        return { kind: 'and', left: { kind: 'null', dim: cond.dim, negated: true }, right: { kind: 'not', operand: within } };
      }
      return { kind: 'in', dim: cond.dim, values: await ids(test, snapshot, signal, r) };
    }
    case 'and':
    case 'or':
      return { kind: cond.kind, left: await resolve(cond.left, snapshot, signal, r), right: await resolve(cond.right, snapshot, signal, r) };
    case 'not':
      return { kind: 'not', operand: await resolve(cond.operand, snapshot, signal, r) };
    default:
      return cond;
  }
}

/** The test's Ids, once per request however often the filter repeats it. */
function ids(test: LocationTest, snapshot: Snapshot, signal: AbortSignal, r: Resolution): Promise<BoundValue[]> {
  const key = JSON.stringify(test);
  let found = r.seen.get(key);
  if (!found) {
    found = matchingIds(test, snapshot, signal).then((values) => {
      r.ids += values.length;
      if (r.ids > r.limit) {
        throw new ApiError('too_many_values', `The filter's location tests match ${r.ids} locations together, more than the ${r.limit} one request may test: use fewer or smaller shapes, or leave out a test that matches nearly every location.`, { parameter: '$filter' });
      }
      return values;
    });
    r.seen.set(key, found);
  }
  return found;
}

async function matchingIds(test: LocationTest, snapshot: Snapshot, signal: AbortSignal): Promise<BoundValue[]> {
  const matcher = locationMatcher(test);
  if (!matcher.window) return [];
  const cols = await snapshot.columns(compileLocationPoints(matcher.window), signal);
  const [ids, xs, ys] = [cols['id'] ?? [], cols['x'] ?? [], cols['y'] ?? []];
  const out: BoundValue[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (matcher.matches(Number(xs[i]), Number(ys[i]))) out.push({ sqlType: 'BIGINT', value: BigInt(ids[i] as bigint) });
  }
  return out;
}
