/**
 * Where a page's time goes, in-process, with the API's own compiled SQL:
 *   node --import tsx scripts/bench/diagnose.ts <duckdb file> '<query string>' [Records|Observations]
 * Prints medians of: phase 1 (Id scan), phase 2 (the sorted window's text through COPY, as the route writes it),
 * phase 2's scan alone (same window and columns, no serialisation), and, for comparison, fetching the rows' text
 * into JS and joining it (the path the route used before COPY).
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { getResource } from '../../schemas/index.js';
import { parseQuery } from '../../services/api/odata/index.js';
import { compilePageIds, compilePageRows } from '../../services/api/query/compile-page.js';
import { copySql } from '../../services/api/db/extract/extract.js';
import { planQuery } from '../../services/api/query/plan.js';
import { openDuck } from './duck.js';
import { summarise } from './stats.js';

const [path, raw = '$top=10000', resourceName = 'Records'] = process.argv.slice(2);
if (!path) {
  console.error('usage: diagnose.ts <duckdb file> [query string] [resource]');
  process.exit(2);
}
const duck = await openDuck(path);
const plan = planQuery(parseQuery(raw), getResource(resourceName)!);
if (plan.kind !== 'page') throw new Error('not a page query');
const runs = 5;
const times: Record<string, number[]> = { phase1: [], phase2: [], scanOnly: [], phase2Js: [] };
for (let i = 0; i <= runs; i++) {
  const ids = compilePageIds(plan, { ordered: false });
  const { ms: p1, rows: idRows } = await duck.timed(ids.sql, ids.params as DuckDBValue[]);
  const pageIds = idRows.slice(0, plan.top).map((r) => r['Id'] as bigint);
  const window = { first: pageIds[0]!, last: pageIds[pageIds.length - 1]! };
  const csv = plan.format === 'csv';
  const rows = compilePageRows(plan, window, csv ? 'csv' : 'json', { ordered: true });
  const p2 = (await duck.timed(copySql(rows, '/dev/null', csv ? '\r\n' : ','), rows.params as DuckDBValue[])).ms;
  const columns = plan.fields.map((f) => `t."${f.column}"`).join(', ');
  const scanSql = rows.sql.replace(/^SELECT .*? AS row FROM/s, `SELECT ${columns} FROM`);
  const scan = (await duck.drain(scanSql, rows.params as DuckDBValue[])).ms;
  // Fetching the rows' text into JS (the path before COPY): timed in DuckDB's process, which converts the values.
  const fetched = await duck.timed(rows.sql, rows.params as DuckDBValue[]);
  const text = fetched.rows.map((r) => r['row'] as string).join(',');
  const js = fetched.ms;
  if (i === 0) {
    console.log(`phase 1 SQL: ${ids.sql}\nphase 2 SQL: ${rows.sql.slice(0, 300)}…\n${pageIds.length} rows, ${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB`);
    continue;
  }
  times['phase1']!.push(p1);
  times['phase2']!.push(p2);
  times['scanOnly']!.push(scan);
  times['phase2Js']!.push(js);
}
for (const [k, v] of Object.entries(times)) {
  const s = summarise(v);
  console.log(`${k.padEnd(9)} ${s.median.toFixed(1)} ms (${s.min.toFixed(1)}–${s.max.toFixed(1)})`);
}
duck.close();
