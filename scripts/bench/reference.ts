/**
 * DuckDB's own figures beside the API's: `COPY … TO` of the extract (§1), raw `count(*)` (§4), and the time of
 * each phase of a page run in-process with the API's own compiled SQL (where a slow page spends its time).
 */
import { statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { getResource, recordFields } from '../../schemas/index.js';
import { parseQuery } from '../../services/api/odata/index.js';
import { compilePageIds, compilePageRows } from '../../services/api/query/compile-page.js';
import { copySql } from '../../services/api/db/extract/extract.js';
import { planQuery } from '../../services/api/query/plan.js';
import type { DuckDBValue } from '@duckdb/node-api';
import type { Duck } from './duck.js';

/**
 * BENCH_TEXT_TO_NULL=1: text written by the references and the exports goes to /dev/null instead of a file (sizes
 * unknown, shown as ?). At 100M rows the NDJSON, written twice (export and reference), outgrows a bench machine's disk.
 */
export const TEXT_TO_NULL = process.env.BENCH_TEXT_TO_NULL === '1';

export const RECORD_COLUMNS = recordFields.map((f) => `"${f.column}"`).join(', ');

/**
 * `COPY (SELECT <Records columns> …) TO file`: wall time and file size; the file is deleted. No ORDER BY: the
 * table is stored in Id order and DuckDB preserves insertion order (the assumption the API's pages rely on
 * too), so the file is in Id order without a sort of every row (which at 10M wide rows costs more than the
 * copy itself).
 */
export async function duckCopy(duck: Duck, format: 'json' | 'csv', where?: { sql: string; params: readonly DuckDBValue[] }): Promise<{ ms: number; bytes: number }> {
  const path = TEXT_TO_NULL ? '/dev/null' : `/tmp/tributary-bench-${process.pid}.${format === 'json' ? 'ndjson' : 'csv'}`;
  // To /dev/null DuckDB must write in place: by default it writes beside the target (/dev/tmp_null) and renames.
  const inPlace = TEXT_TO_NULL ? ', USE_TMP_FILE false' : '';
  const options = format === 'json' ? `(FORMAT JSON${inPlace})` : `(FORMAT CSV, HEADER true${inPlace})`;
  const { ms } = await duck.timed(`COPY (SELECT ${RECORD_COLUMNS} FROM observations${where ? ` WHERE ${where.sql}` : ''}) TO '${path}' ${options}`, where?.params ?? []);
  if (TEXT_TO_NULL) return { ms, bytes: NaN };
  const bytes = statSync(path).size;
  await rm(path, { force: true });
  return { ms, bytes };
}

export interface PhaseTiming {
  readonly phase1Ms: number;
  readonly phase2Ms: number;
  readonly rows: number;
  readonly phase1Sql: string;
}

/** Runs a page's two phases as the route does (unordered Id scan, then the sorted window's JSON text through COPY). */
export async function pagePhases(duck: Duck, resourceName: string, rawQuery: string): Promise<PhaseTiming> {
  const resource = getResource(resourceName)!;
  const plan = planQuery(parseQuery(rawQuery), resource);
  if (plan.kind !== 'page') throw new Error(`not a page: ${rawQuery}`);
  const ids = compilePageIds(plan, { ordered: false });
  const { ms: phase1Ms, rows: idRows } = await duck.timed(ids.sql, ids.params as DuckDBValue[]);
  const pageIds = idRows.slice(0, plan.top).map((r) => r['Id'] as bigint);
  if (pageIds.length === 0) return { phase1Ms, phase2Ms: 0, rows: 0, phase1Sql: ids.sql };
  const rows = compilePageRows(plan, { first: pageIds[0]!, last: pageIds[pageIds.length - 1]! }, 'json', { ordered: true });
  const written = await duck.timed(copySql(rows, '/dev/null', ','), rows.params as DuckDBValue[]);
  return { phase1Ms, phase2Ms: written.ms, rows: Number(written.rows[0]?.['Count'] ?? NaN), phase1Sql: ids.sql };
}
