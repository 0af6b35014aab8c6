import type { DuckDBConnection } from '@duckdb/node-api';
import { all } from './db.js';
import type { Warning } from './report.js';
import { bit, warningRules } from './rule-sql.js';
import { ident } from './sql.js';

export interface FileWarning {
  /** Index of the file in the list the rows were numbered by. */
  readonly fileIndex: number;
  readonly warning: Warning;
}

/**
 * Upstream's quality-control warnings, counted: one warning per file and rule, with the number of valid rows that
 * fail it (rows already rejected are not warned about). `warn` holds each row's failing warning rules as bits (bit i:
 * `warningRules[i]`, NULL when none), as failedRulesMaskSql writes it.
 */
export async function countRuleWarnings(
  conn: DuckDBConnection,
  table: string,
  where: string,
  fileColumn: string,
  warnColumn: string,
  fileNames: readonly string[],
): Promise<FileWarning[]> {
  if (warningRules.length === 0) return [];
  const w = ident(warnColumn);
  const counts = warningRules.map((_r, i) => `count(*) FILTER (WHERE ${w} & ${bit(i)} <> 0) AS r${i}`);
  const perFile = await all(conn, `SELECT ${ident(fileColumn)} AS f, ${counts.join(', ')} FROM ${table} WHERE ${where} AND ${w} IS NOT NULL GROUP BY 1 ORDER BY 1`);
  const rows = perFile.flatMap((r) => warningRules.flatMap((_rule, i) => (Number(r[`r${i}`]) > 0 ? [{ f: r.f, rule: i, n: r[`r${i}`] }] : [])));
  return rows.map((r) => {
    const rule = warningRules[Number(r.rule)] as (typeof warningRules)[number];
    const n = Number(r.n);
    const fileIndex = Number(r.f);
    const message = `${n} row${n === 1 ? ' fails' : 's fail'} upstream quality-control rule ${rule.name}${rule.column ? ` (${rule.column})` : ''}: ${rule.description || 'see docs/upstream-rules.md'}`;
    return { fileIndex, warning: { file: fileNames[fileIndex] ?? '', rule: rule.name, rows: n, message } };
  });
}
