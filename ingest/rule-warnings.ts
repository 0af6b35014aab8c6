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
  rules: readonly CountedRule[] = qualityControl,
): Promise<FileWarning[]> {
  if (rules.length === 0) return [];
  const w = ident(warnColumn);
  const counts = rules.map((_r, i) => `count(*) FILTER (WHERE ${w} & ${bit(i)} <> 0) AS r${i}`);
  const perFile = await all(conn, `SELECT ${ident(fileColumn)} AS f, ${counts.join(', ')} FROM ${table} WHERE ${where} AND ${w} IS NOT NULL GROUP BY 1 ORDER BY 1`);
  const rows = perFile.flatMap((r) => rules.flatMap((_rule, i) => (Number(r[`r${i}`]) > 0 ? [{ f: r.f, rule: i, n: r[`r${i}`] }] : [])));
  return rows.map((r) => {
    const rule = rules[Number(r.rule)] as CountedRule;
    const n = Number(r.n);
    const fileIndex = Number(r.f);
    const message = `${n} row${n === 1 ? ' fails' : 's fail'} ${rule.what} ${rule.name}${rule.column ? ` (${rule.column})` : ''}: ${rule.description || 'see docs/upstream-rules.md'}`;
    return { fileIndex, warning: { file: fileNames[fileIndex] ?? '', rule: rule.name, rows: n, message } };
  });
}

/** A rule or check counted into warnings: what it is called in the message, its name, column and description. */
export interface CountedRule {
  readonly name: string;
  readonly column: string | null;
  readonly description: string;
  readonly what: string;
}

const qualityControl: readonly CountedRule[] = warningRules.map((r) => ({ ...r, what: 'upstream quality-control rule' }));
