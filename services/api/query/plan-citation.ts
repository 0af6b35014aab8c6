/**
 * A citation's plan: which rows the query matches (its `$filter`, and `$apply`'s `filter()`), counted per dataset
 * by the planner's own plans, so a citation names exactly the datasets a page, a count or an export of the same
 * filter reads. Observations and Records are `$apply=groupby((DOI),aggregate($count as …))` (the statistics
 * answer it); Locations and Metadata, whose rows the statistics do not count, a count per dataset
 * (compile-citation.ts).
 */
import type { ResourceDef } from '../../../schemas/index.js';
import { assertNever } from '../assert-never.js';
import type { Expr, Query } from '../odata/ast.js';
import { planQuery, type ApplyPlan, type CountPlan } from './plan.js';
import { APPLY_RESOURCES } from './plan-apply.js';
import { PlanError } from './plan-error.js';

export interface CitationPlan {
  readonly kind: 'citation';
  readonly resource: ResourceDef;
  /** Every condition the rows meet: `$filter` and `$apply`'s `filter()` joined by `and`; the cited URL's `$filter`. */
  readonly filter: Expr | undefined;
  /** The rows per dataset: groups by DOI on the observations, a count per dataset elsewhere. */
  readonly counts: ApplyPlan | CountPlan;
}

/** Groups read per query; a hub with more datasets is read in several pages of groups (exec/citation.ts). */
export const DATASETS_PER_QUERY = 1000;

/**
 * Paging options (`$select`, `$top`, `$skiptoken`, `$count`) are ignored: a citation covers every row the filter
 * matches, so any page's URL cites its whole result.
 *
 * @example
 * planCitation(parseQuery("$filter=CharacteristicName eq 'pH'"), getResource('Records')!).counts
 * // → { kind: 'apply', groupBy: [DOI], aggregates: [{ kind: 'count', alias: 'Rows' }], where: { kind: 'compare', … }, top: 1000, … }
 */
export function planCitation(query: Query, resource: ResourceDef): CitationPlan {
  const filter = citedFilter(query);
  if (query.apply && resource.apply === 'none') {
    throw new PlanError('unsupported_apply', `$apply is offered on ${APPLY_RESOURCES.join(', ')}; to cite ${resource.name}, give the filter as $filter.`, { parameter: '$apply' });
  }
  switch (resource.kind) {
    case 'observations': {
      const apply = { ...(query.apply?.filter ? { filter: query.apply.filter } : {}), groupBy: [{ kind: 'property', name: 'DOI', offset: 0 }], aggregates: [{ kind: 'count', alias: 'Rows', offset: 0 }] } as const;
      const counts = planQuery({ count: false, otherParams: [], apply, top: DATASETS_PER_QUERY, ...(query.filter ? { filter: query.filter } : {}) }, resource);
      if (counts.kind !== 'apply') throw new Error(`a citation planned as ${counts.kind}`);
      return { kind: 'citation', resource, filter, counts };
    }
    // A table of its own is counted over itself, its rows per dataset under every condition the query gives; so are
    // the locations and datasets, which take no $apply.
    case 'own-table':
    case 'locations':
    case 'datasets': {
      const counts = planQuery({ count: true, otherParams: [], ...(filter ? { filter } : {}) }, resource);
      if (counts.kind !== 'count') throw new Error(`a citation planned as ${counts.kind}`);
      return { kind: 'citation', resource, filter, counts };
    }
    default:
      return assertNever(resource);
  }
}

/** The rows a query reads: `$filter` and `$apply`'s `filter()` joined by `and`. */
export function citedFilter(query: Query): Expr | undefined {
  const [a, b] = [query.filter, query.apply?.filter];
  return a && b ? { kind: 'and', left: a, right: b } : (a ?? b);
}
