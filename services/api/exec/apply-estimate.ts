/**
 * What an `$apply` will hold and read, known before it runs (issue 56 item 1): a GROUP BY reaches its first row only
 * once every group is made, so QUERY_TIMEOUT_MS cannot stop one that makes millions of groups in time, and its
 * groups are held in memory until then. Two figures, both from cheap queries:
 *
 * - the rows it reads: its fact's rows under its filter and joins, counted (query/compile-apply.ts compileRowsRead);
 *   the request is charged by them (limits/apply-cost.ts);
 * - its groups, estimated as the product of each grouping field's number of values, each measured once per opened
 *   publication (that field alone, no filter, from the smallest table holding it), a field the filter pins to one
 *   value or a list counting as that many, and the whole capped by the rows it reads (no group is made of no row).
 *
 * The product overestimates fields that vary together (a characteristic and its unit); the refusal names the figures
 * so a client sees why, and the remedy (filter, fewer fields) is the same either way.
 */
import type { DimensionDef } from '../../../schemas/index.js';
import { ApiError } from '../errors.js';
import { compileGroupCount, compileRowsRead } from '../query/compile-apply.js';
import type { ApplyPlan, Cond } from '../query/plan.js';
import type { Snapshot } from '../db/snapshot.js';

export interface ApplyEstimate {
  /** The rows of its fact under its filter: what it reads. */
  readonly rowsRead: number;
  /** Each grouping field and how many values it contributes (measured, or pinned by the filter). */
  readonly fields: readonly { readonly name: string; readonly values: number }[];
  /** The product of the fields' values, capped by the rows read. */
  readonly groups: number;
}

/** Each field's number of values per opened snapshot, keyed `resource.field`: measured once, on first use. */
const measured = new WeakMap<Snapshot, Map<string, Promise<number>>>();

export async function estimateApply(plan: ApplyPlan, snapshot: Snapshot, signal: AbortSignal): Promise<ApplyEstimate> {
  const rows = await snapshot.columns(compileRowsRead(plan), signal);
  const rowsRead = Number(rows['n']?.[0] ?? 0);
  const pinned = pinnedValues(plan.where);
  const fields = [];
  for (const dim of plan.groupBy) {
    const values = pinned.get(dim.name) ?? (await fieldValues(plan, dim, snapshot, signal));
    fields.push({ name: dim.name, values });
  }
  const product = fields.reduce((p, f) => p * f.values, 1);
  return { rowsRead, fields, groups: Math.min(product, rowsRead) };
}

/** The 400 of an `$apply` whose estimated groups pass MAX_APPLY_GROUPS, with the figures and the remedies. */
export function tooManyGroups(plan: ApplyPlan, estimate: ApplyEstimate, maxGroups: number): ApiError {
  const fields = estimate.fields.map((f) => `${f.name} ${f.values}`).join(' × ');
  const capped = estimate.groups < estimate.fields.reduce((p, f) => p * f.values, 1) ? `, capped by the ${estimate.rowsRead} rows it reads` : '';
  return new ApiError(
    'apply_too_large',
    `This $apply would make about ${estimate.groups} groups (values of each grouped field: ${fields}${capped}); one request makes at most ${maxGroups} (MAX_APPLY_GROUPS). ` +
      `Filter to fewer rows or values ($filter, or filter(…) in $apply, e.g. one CharacteristicName or RegionId), or group ${plan.resource.name} by fewer fields.`,
    { parameter: '$apply' },
  );
}

/** How many values `dim` takes over the whole resource in this snapshot, measured on first use. */
function fieldValues(plan: ApplyPlan, dim: DimensionDef, snapshot: Snapshot, signal: AbortSignal): Promise<number> {
  let cache = measured.get(snapshot);
  if (!cache) measured.set(snapshot, (cache = new Map()));
  const key = `${plan.resource.name}.${dim.name}`;
  let values = cache.get(key);
  if (!values) {
    const one: ApplyPlan = { kind: 'apply', resource: plan.resource, where: undefined, groupBy: [dim], aggregates: [], orderBy: [], limit: undefined, top: 0, after: undefined };
    values = snapshot.columns(compileGroupCount(one), signal).then((cols) => Number(cols['n']?.[0] ?? 0));
    // A measurement cut short (its client left) is measured again by the next request.
    values.catch(() => cache.delete(key));
    cache.set(key, values);
  }
  return values;
}

/** The fields a filter's top-level `and` pins: `eq` to one value, `in` to its list. */
function pinnedValues(where: Cond | undefined, out = new Map<string, number>()): Map<string, number> {
  if (!where) return out;
  const pin = (name: string, n: number) => out.set(name, Math.min(out.get(name) ?? n, n));
  if (where.kind === 'and') {
    pinnedValues(where.left, out);
    pinnedValues(where.right, out);
  } else if (where.kind === 'compare' && where.op === 'eq') pin(where.dim.name, 1);
  else if (where.kind === 'in') pin(where.dim.name, new Set(where.values.map((v) => String(v.value))).size);
  return out;
}
