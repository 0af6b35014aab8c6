/**
 * The unit each budget counts in, declared once for every budget a route's cost draws from (http/route-table.ts
 * `RouteCost`; middleware/access.ts builds them): the pages' budget is rows, not requests (a page costs the rows it
 * returns), the discovery documents' requests, the dataset files' bytes. The limits' refusals and llms.txt state each
 * budget in its unit from here, so "20000 requests/s" cannot again stand for 20,000 rows per second (issue 53 item 6).
 */
import type { RouteCost } from '../http/route-table.js';

export type BudgetUnit = 'rows' | 'requests' | 'bytes';

/** `none` draws from no budget. An export is one request of the pages' budget, counted in its rows (PAGE_MIN_ROWS). */
export const BUDGET_UNITS = {
  rows: 'rows',
  export: 'rows',
  discovery: 'requests',
  'file-bytes': 'bytes',
  none: undefined,
} as const satisfies Record<RouteCost, BudgetUnit | undefined>;

const MIB = 1024 * 1024;

/**
 * An amount of a unit as people read it.
 * @example amount(20000, 'rows') // '20000 rows'
 * @example amount(64 * 1024 * 1024, 'bytes') // '64 MiB'
 */
export function amount(n: number, unit: BudgetUnit): string {
  if (unit === 'bytes') return n >= MIB && n % MIB === 0 ? `${n / MIB} MiB` : `${n} bytes`;
  return `${n} ${unit}`;
}

/**
 * A budget's rate and burst in its unit.
 * @example budgetRate('rows', { rps: 20000, burst: 40000 }) // '20000 rows per second, bursts of 40000 rows'
 */
export function budgetRate(cost: Exclude<RouteCost, 'none'>, limit: { readonly rps: number; readonly burst: number }): string {
  const unit = BUDGET_UNITS[cost];
  return `${amount(limit.rps, unit)} per second, bursts of ${amount(limit.burst, unit)}`;
}
