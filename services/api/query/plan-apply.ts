/**
 * Planning an `$apply`: the groups, aggregates, order and bound a resource's `apply` door allows (schemas/catalogue.ts),
 * each name resolved to its dimension or measure, each limit of query/apply-limits.ts checked. The conditions come
 * planned (query/plan.ts).
 */
import { getDimension, resources, type ApplyDoor, type DimensionDef, type ResourceDef } from '../../../schemas/index.js';
import type { Aggregate, AggregateMethod, Apply, Query } from '../odata/ast.js';
import { APPLY_LIMITS } from './apply-limits.js';
import { measuresOf, METHODS } from './measures.js';
import type { ApplyOrder, ApplyPlan, Cond, PlannedAggregate } from './plan.js';
import { PlanError } from './plan-error.js';

/** The resources `$apply` runs on, for the refusal on the others. */
export const APPLY_RESOURCES = resources.filter((r) => r.apply !== 'none').map((r) => r.name);

/** The resource's `apply` door, or the 400 that names where `$apply` is offered. */
export function applyDoor(resource: ResourceDef): ApplyDoor {
  if (resource.apply !== 'none') return resource.apply;
  throw new PlanError('unsupported_apply', `$apply is offered on ${APPLY_RESOURCES.join(', ')}; on ${resource.name} use $filter and $count=true.`, { parameter: '$apply' });
}

export function planApply(query: Query, resource: ResourceDef, where: Cond | undefined, top: number): ApplyPlan {
  const apply = query.apply!;
  const door = applyDoor(resource);
  const groupBy = planGroups(apply, resource, door);
  if (query.skiptoken && query.skiptoken.kind !== 'integer') {
    throw new PlanError('invalid_skiptoken', '$skiptoken of an $apply result looks like Id:<number of groups already read>; follow @odata.nextLink.', { parameter: '$skiptoken' });
  }
  const aggregates = apply.aggregates.map((a) => planAggregate(a, groupBy, resource, door));
  checkHolistic(aggregates, apply);
  return {
    kind: 'apply',
    resource,
    where,
    groupBy,
    aggregates,
    orderBy: planOrder(apply, groupBy, aggregates),
    limit: apply.top?.count,
    top,
    after: query.skiptoken?.value as bigint | undefined,
  };
}

function planGroups(apply: Apply, resource: ResourceDef, door: ApplyDoor): DimensionDef[] {
  const extra = apply.groupBy[APPLY_LIMITS.maxGroupingFields];
  if (extra) {
    throw new PlanError('apply_too_large', `groupby lists ${apply.groupBy.length} fields; one request groups by at most ${APPLY_LIMITS.maxGroupingFields} (maxGroupingFields): group by fewer, or filter instead.`, { parameter: '$apply', offset: extra.offset });
  }
  return apply.groupBy.map((p) => {
    const dim = getDimension(p.name, resource);
    if (!dim || !door.groupBy.includes(dim.name)) {
      throw new PlanError(
        'unsupported_apply',
        `$apply on ${resource.name} groups by its dimensions, ${door.groupBy.join(', ')}; '${p.name}' is not one of them${dim ? ' (a key, a measure, a coordinate or free text would make a group of nearly every row: filter by it instead)' : ''}.`,
        { parameter: '$apply', offset: p.offset },
      );
    }
    return dim;
  });
}

function planAggregate(a: Aggregate, groupBy: readonly DimensionDef[], resource: ResourceDef, door: ApplyDoor): PlannedAggregate {
  if (groupBy.some((d) => d.name === a.alias) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(a.alias)) {
    throw new PlanError('unsupported_apply', `The alias '${a.alias}' must be a plain name that is not a grouped field.`, { parameter: '$apply', offset: a.offset });
  }
  if (a.kind === 'count') return { kind: 'count', alias: a.alias };
  const measures = measuresOf(resource);
  const measure = measures.find((m) => m.name === a.property.name);
  if (!measure && a.method === 'countdistinct' && door.distinct.includes(a.property.name)) {
    const dim = getDimension(a.property.name, resource);
    if (dim) return { kind: 'distinct', alias: a.alias, dim };
  }
  if (!measure) {
    const offered = measures.length ? `${measures.map((m) => m.name).join(', ')} (and $count)` : 'only $count';
    const distinct = door.distinct.length ? `; countdistinct also counts ${door.distinct.join(', ')}` : '';
    throw new PlanError('unsupported_apply', `$apply on ${resource.name} aggregates ${offered}${distinct}; '${a.property.name}' with ${a.method} is not one of them.`, { parameter: '$apply', offset: a.property.offset });
  }
  const method = METHODS[a.method];
  if (!method.types.includes(measure.type)) {
    const fits = (Object.keys(METHODS) as AggregateMethod[]).filter((m) => METHODS[m].types.includes(measure.type) && (METHODS[m].only ?? [measure.name]).includes(measure.name));
    throw new PlanError('unsupported_apply', `${a.method} does not apply to ${measure.name} (a ${measure.type}); use one of ${fits.join(', ')}.`, { parameter: '$apply', offset: a.offset });
  }
  // The km methods read each row's detection condition and limit beside its value: only the observations hold them.
  if (method.only && !(method.only.includes(measure.name) && resource.kind === 'observations')) {
    throw new PlanError('unsupported_apply', `${a.method} aggregates ${method.only.join(', ')} of Observations and Records only (it reads their detection limits).`, { parameter: '$apply', offset: a.offset });
  }
  return { kind: 'method', alias: a.alias, method: a.method, measure };
}

/** Medians, percentiles and countdistincts: each holds its group's values at once. */
export function isHolistic(a: PlannedAggregate): boolean {
  return a.kind === 'distinct' || (a.kind === 'method' && METHODS[a.method].holistic);
}

function checkHolistic(aggregates: readonly PlannedAggregate[], apply: Apply): void {
  // Methods that share a pass count once: every km statistic of a group comes from its one Kaplan–Meier curve.
  const pass = (a: PlannedAggregate) => (a.kind === 'method' ? METHODS[a.method].pass : undefined);
  const holistic = aggregates.filter((a, i) => isHolistic(a) && (pass(a) === undefined || aggregates.findIndex((b) => pass(b) === pass(a)) === i));
  if (holistic.length <= APPLY_LIMITS.maxHolisticAggregates) return;
  const extra = apply.aggregates.find((a) => a.alias === holistic[APPLY_LIMITS.maxHolisticAggregates]!.alias);
  throw new PlanError(
    'apply_too_large',
    `${holistic.length} holistic aggregates (medians, percentiles, countdistinct: ${holistic.map((a) => a.alias).join(', ')}); one request holds at most ${APPLY_LIMITS.maxHolisticAggregates} (maxHolisticAggregates): ask for the others in a second request.`,
    { parameter: '$apply', ...(extra ? { offset: extra.offset } : {}) },
  );
}

/** `orderby(…)`'s keys as the groups' columns: a grouped field by its index, or an aggregate by its alias. */
function planOrder(apply: Apply, groupBy: readonly DimensionDef[], aggregates: readonly PlannedAggregate[]): readonly ApplyOrder[] {
  return (apply.orderBy ?? []).map((o) => {
    const group = apply.groupBy.findIndex((p) => p.name === o.name);
    if (group >= 0) return { column: 'group', index: group, descending: o.descending };
    const aggregate = aggregates.findIndex((a) => a.alias === o.name);
    if (aggregate >= 0) return { column: 'aggregate', index: aggregate, descending: o.descending };
    // The parser admits only the groups' columns; a grouped field's alias spelling (ActivityStartDateYear) lands here.
    throw new PlanError('unsupported_apply', `orderby names '${o.name}', which is not a column of the groups (${[...groupBy.map((d) => d.name), ...aggregates.map((a) => a.alias)].join(', ')}).`, { parameter: '$apply', offset: o.offset });
  });
}
