/**
 * An `$apply` tree back to canonical text, for the next links of an `$apply` page: `parseApply(formatApply(a))`
 * equals `a` up to offsets.
 */
import type { Aggregate, Apply } from './ast.js';
import { formatFilter } from './format-filter.js';

/**
 * @example
 * formatApply(parseApply('groupby((A), aggregate($count as N,V with sum as S))'))
 * // → 'groupby((A),aggregate($count as N,V with sum as S))'
 */
export function formatApply(apply: Apply): string {
  const aggregate = apply.aggregates.length ? `aggregate(${apply.aggregates.map(formatAggregate).join(',')})` : '';
  const step = apply.groupBy.length ? `groupby((${apply.groupBy.map((p) => p.name).join(',')})${aggregate ? `,${aggregate}` : ''})` : aggregate;
  const order = apply.orderBy ? `/orderby(${apply.orderBy.map((o) => `${o.name}${o.descending ? ' desc' : ''}`).join(',')})` : '';
  const top = apply.top ? `/top(${apply.top.count})` : '';
  return `${apply.filter ? `filter(${formatFilter(apply.filter)})/` : ''}${step}${order}${top}`;
}

function formatAggregate(a: Aggregate): string {
  return a.kind === 'count' ? `$count as ${a.alias}` : `${a.property.name} with ${a.method} as ${a.alias}`;
}
