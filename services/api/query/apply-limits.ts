/**
 * The bounds of one `$apply` (issue 56 item 1), each declared once, checked by the planner (query/plan-apply.ts),
 * documented in docs/api.md and named by the 400 `apply_too_large` that refuses a request past one. Every group is
 * a row of the answer, and a holistic aggregate (a median, a percentile, a `countdistinct`) keeps every value of its
 * group at once rather than a running figure: these bound what one request may hold in memory, beside `groupby`
 * accepting only dimensions (each resource's `apply` door, schemas/catalogue.ts). The aggregates of one
 * `aggregate(…)` are bounded when parsed (MAX_AGGREGATES, odata/parse-apply.ts). The groups themselves are bounded
 * by the operator's MAX_APPLY_GROUPS, estimated from statistics when the request runs (exec/apply-estimate.ts).
 */
export const APPLY_LIMITS = {
  /** Fields of one `groupby((…))`: the explorer's facet counts group by seven (its six facets and RegionId). */
  maxGroupingFields: 8,
  /** Medians, percentiles and `countdistinct`s in one request. */
  maxHolisticAggregates: 4,
} as const;

/**
 * MAX_APPLY_GROUPS' default: the groups one `$apply` may make, estimated before it runs (exec/apply-estimate.ts). A
 * GROUP BY holds every group until its first row, so this bounds what a request holds (with the holistic aggregates'
 * values): a million groups of a few fields and counts is about 100 MB, within one query's share of DuckDB's memory
 * (db/duckdb-memory.ts). 100,000 refused the map of exceedances by location, characteristic and verdict of a
 * 10M-row hub (133,183 groups, read from statistics in 70 ms: bench §G).
 */
export const DEFAULT_MAX_APPLY_GROUPS = 1_000_000;
