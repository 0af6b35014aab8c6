import type { DuckDBConnection } from '@duckdb/node-api';
import { all } from './db.js';
import type { Warning } from './report.js';
import { warningRules } from './rule-sql.js';
import { ident } from './sql.js';

export interface FileWarning {
  /** Index of the file in the list the rows were numbered by. */
  readonly fileIndex: number;
  readonly warning: Warning;
}

/**
 * Upstream's quality-control warnings, counted: one warning per file and rule, with the number of valid rows that
 * fail it (rows already rejected are not warned about). `warn` holds each row's failing warning rules (indexes
 * into `warningRules`, NULL when none), as failedRulesSql writes it.
 */
export async function countRuleWarnings(
  conn: DuckDBConnection,
  table: string,
  where: string,
  fileColumn: string,
  warnColumn: string,
  fileNames: readonly string[],
): Promise<FileWarning[]> {
  const rows = await all(
    conn,
    `SELECT f, rule, count(*) AS n FROM (SELECT ${ident(fileColumn)} AS f, unnest(${ident(warnColumn)}) AS rule FROM ${table} WHERE ${where} AND ${ident(warnColumn)} IS NOT NULL)
     GROUP BY ALL ORDER BY f, rule`,
  );
  return rows.map((r) => {
    const rule = warningRules[Number(r.rule)] as (typeof warningRules)[number];
    const n = Number(r.n);
    const fileIndex = Number(r.f);
    const message = `${n} row${n === 1 ? ' fails' : 's fail'} upstream quality-control rule ${rule.name}${rule.column ? ` (${rule.column})` : ''}: ${rule.description || 'see docs/upstream-rules.md'}`;
    return { fileIndex, warning: { file: fileNames[fileIndex] ?? '', rule: rule.name, rows: n, message } };
  });
}
