import type { TextFormat } from '../formats.js';
import type { PagePlan } from './plan.js';
import { renderRow } from './render-row.js';
import { afterKey, RESOURCE_ID, resourceTable, resourceWhere, whereClause } from './resource-where.js';
import { Params, type CompiledQuery } from './sql.js';

/**
 * A cursor's rows (exec/page-text.ts): every matching row after the plan's cursor position, each as its Id and
 * its text; the cursor frames them (db/extract/row-frame.ts). No ORDER BY: a cursor is opened only where EXPLAIN
 * shows a plan that keeps stored order, and every Id it sends is checked against phase one. The SQL text and
 * values are also the cursor's identity: the next link's cursor is found by them (db/extract/extract.ts).
 *
 * @example
 * compileCursorRows(planQuery(parseQuery('$select=Id&$skiptoken=Id:10'), getResource('Records')!), 'csv')
 * // { sql: `SELECT t."Id" AS id, concat_ws(',', CAST(t."Id" AS VARCHAR)) AS row FROM "observations" t WHERE t."Id" > CAST($1 AS BIGINT)`, params: [10n] }
 */
export function compileCursorRows(plan: PagePlan, format: TextFormat): CompiledQuery {
  const params = new Params();
  const where = whereClause([resourceWhere(plan, params), afterKey(plan, params)]);
  return { sql: `SELECT ${RESOURCE_ID} AS id, ${renderRow(format, plan.fields, plan.resource.table)} FROM ${resourceTable(plan)}${where}`, params: params.values };
}
