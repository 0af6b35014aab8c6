/**
 * What the ordered fast paths rely on (exec/page-window.ts): that each table whose resource declares its pages
 * `stored` (schemas/catalogue.ts: the observations, each table of its own) is stored in Id order, checked once at
 * open, and that DuckDB keeps that stored order for a given query, checked with EXPLAIN.
 */
import { resources, type ResourceTable } from '../../../schemas/index.js';
import { ident, type CompiledQuery } from '../query/sql.js';
import type { QueryRunner } from './query-runner.js';

/** Whether a table is physically in Id order: every row's Id above the one stored before it. */
export async function storedInIdOrder(run: QueryRunner['columns'], table: ResourceTable): Promise<boolean> {
  const disorder = await run({
    sql: `SELECT count(*) AS n FROM (SELECT "Id" - lag("Id") OVER () AS step FROM ${ident(table)}) WHERE step <= 0`,
    params: [],
  });
  return disorder['n']?.[0] === 0n;
}

/** The tables declared stored in Id order that are (ingest writes them so; a file that is not is paged sorted). */
export async function tablesInIdOrder(run: QueryRunner['columns']): Promise<ReadonlySet<ResourceTable>> {
  const declared = [...new Set(resources.filter((r) => r.pages.order === 'stored').map((r) => r.table))];
  const ordered = await Promise.all(declared.map(async (t) => [t, await storedInIdOrder(run, t)] as const));
  return new Set(ordered.filter(([, yes]) => yes).map(([t]) => t));
}

/** SQL texts remembered at most (a yes each). */
const REMEMBERED = 512;

/**
 * Whether DuckDB returns a query's rows in the table's stored order: its plan has no join, no union, no aggregate
 * and no streaming (possibly unordered) limit. Only a yes is cached, per SQL text.
 */
export function keepsOrderCheck(run: QueryRunner['columns']): (q: CompiledQuery, signal?: AbortSignal) => Promise<boolean> {
  const ordersKept = new Set<string>();
  return async (q, signal) => {
    if (ordersKept.has(q.sql)) return true;
    const plan = await run({ sql: `EXPLAIN ${q.sql}`, params: q.params }, signal);
    const text = (plan['explain_value'] ?? []).map(String).join('\n');
    const keeps = !/JOIN|STREAMING_LIMIT|UNION|HASH_GROUP_BY/.test(text);
    // Only a yes is cached. The plan is made for these parameter values: a window that covers the whole table
    // loses its filter and becomes a bare scan under a STREAMING_LIMIT, a no that would then send every later
    // page with the same SQL text (other values) to the sorted path. A yes holds for any values: joins,
    // unions and aggregates come from the SQL text, not from the values.
    if (keeps) {
      if (ordersKept.size >= REMEMBERED) ordersKept.delete(ordersKept.values().next().value!);
      ordersKept.add(q.sql);
    }
    return keeps;
  };
}
