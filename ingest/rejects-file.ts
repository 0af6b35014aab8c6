import type { DuckDBConnection } from '@duckdb/node-api';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { neutralisedCellSql } from '../schemas/csv-cell.js';
import { appendRows, run } from './db.js';
import type { Reject } from './report.js';
import { failuresSql, type RowCheck } from './row-checks.js';
import { ident, literal } from './sql.js';
import { newlinesSql, type Staged } from './validate.js';

/**
 * The rejects file of a dataset: CSV, one line per rejected row — file, physical line, severity, and every check it
 * fails with the value and the message (`errors`; `warnings` beside them) — complete at any size. DuckDB writes it
 * with COPY from the staged rows (explain.ts stages a dataset with rejects on its own), so no row passes through
 * JavaScript; only records rejected before any column is read (a file rejected whole, a malformed CSV record) come
 * from the staging's list, and there are as many of them as the staging held anyway. Written to a temporary name
 * and renamed, so a reader never sees half of one.
 *
 * Valid rows get a line too (severity `warning`) when warnings are asked for (REJECTS_WARNINGS=1), or at a
 * validation level that turns upstream's errors into warnings (validation-level.ts).
 *
 * People open it in a spreadsheet, and its text is the uploader's (a folder or file name, a value quoted in a
 * message): a cell a spreadsheet would run as a formula is written with a leading `'` (schemas/csv-cell.ts).
 */

export const REJECTS_HEADER = ['file', 'line', 'severity', 'errors', 'warnings'] as const;

/** Where a dataset's rejects file goes: `<dir>/<folder>.csv` (folder names are unique under SRC). */
export const rejectsPath = (dir: string, folder: string): string => join(dir, `${folder}.csv`);

export interface RejectsFileInput {
  readonly staged: Staged;
  /** Records rejected before their columns were judged (whole files, malformed records): all of them. */
  readonly records: readonly Reject[];
  readonly errors: readonly RowCheck[];
  readonly warnings: readonly RowCheck[];
  /** Write valid rows that fail a warning check too. */
  readonly warnRows: boolean;
}

/** Writes the file at `path` (atomically); returns its lines (rows), header excluded. */
export async function writeRejectsFile(conn: DuckDBConnection, path: string, input: RejectsFileInput): Promise<number> {
  const { staged } = input;
  await run(conn, 'CREATE OR REPLACE TEMP TABLE rejects_files (file_idx INTEGER, name VARCHAR, start BIGINT)');
  await appendRows(conn, 'rejects_files', staged.files.map((f) => [f.index, f.name, BigInt(f.start)]), 'main', 'temp');
  // Malformed records are not in the stage: the parsed records after the j-th of a file are shifted by j + 1
  // records and by the newlines inside those j + 1 records (line-numbers.ts says the same record by record).
  await run(conn, 'CREATE OR REPLACE TEMP TABLE rejects_malformed (file_idx INTEGER, parsed_before BIGINT, records BIGINT, newlines BIGINT)');
  await appendRows(
    conn,
    'rejects_malformed',
    staged.files.flatMap((f) => {
      let newlines = 0;
      return [...f.malformed].sort((a, b) => a.record - b.record).map((m, j) => {
        newlines += m.newlines;
        return [f.index, BigInt(m.record - 2 - j), BigInt(j + 1), BigInt(newlines)];
      });
    }),
    'main',
    'temp',
  );
  await run(conn, 'CREATE OR REPLACE TEMP TABLE rejects_records (file VARCHAR, line BIGINT, severity VARCHAR, errors VARCHAR, warnings VARCHAR)');
  await appendRows(
    conn,
    'rejects_records',
    input.records.map((r) => [r.file, BigInt(r.line), 'error', r.column ? `${r.column}: ${r.reason}` : r.reason, '']),
    'main',
    'temp',
  );
  const errors = failuresSql(input.errors);
  const warnings = failuresSql(input.warnings);
  // Every row is numbered (the lines after a quoted newline shift), but messages are built only for the rows
  // written: the staged verdict `ok` says which rows fail an error check (validate-sql.test.ts holds them equal).
  const warned = input.warnRows && input.warnings.length > 0 ? `(${input.warnings.map((c) => `NOT coalesce(${c.ok}, TRUE)`).join(' OR ')})` : 'FALSE';
  const rows = `
    WITH judged AS (
      SELECT file_idx, rowid AS r, ${newlinesSql()} AS nl, ok, ${warned} AS warned FROM ${staged.table}
    ), numbered AS (
      SELECT j.*, j.r - f.start AS k, f.name,
        coalesce(sum(nl) OVER (PARTITION BY j.file_idx ORDER BY j.r ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS nl_before
      FROM judged j JOIN rejects_files f USING (file_idx)
    ), written AS (
      SELECT n.name AS file, 2 + n.k + coalesce(m.records, 0) + n.nl_before + coalesce(m.newlines, 0) AS line, n.r, n.ok
      FROM numbered n ASOF LEFT JOIN rejects_malformed m ON n.file_idx = m.file_idx AND n.k >= m.parsed_before
      WHERE NOT n.ok OR n.warned
    )
    SELECT w.file, w.line, CASE WHEN NOT w.ok THEN 'error' ELSE 'warning' END AS severity, ${errors} AS errors, ${warnings} AS warnings
    FROM written w JOIN ${staged.table} s ON s.rowid = w.r`;
  const columns = REJECTS_HEADER.map((c) => (c === 'line' ? `r.${ident(c)}` : `${neutralisedCellSql(`r.${ident(c)}`, literal)} AS ${ident(c)}`)).join(', ');
  const temp = `${path}.tmp-${process.pid}`;
  let written: number;
  await mkdir(join(path, '..'), { recursive: true });
  try {
    written = await run(conn, `COPY (SELECT ${columns} FROM (${rows} UNION ALL SELECT * FROM rejects_records) r ORDER BY r.file, r.line) TO ${literal(temp)} (FORMAT csv, HEADER)`);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  for (const t of ['rejects_files', 'rejects_malformed', 'rejects_records']) await run(conn, `DROP TABLE ${t}`);
  return written;
}

/** Removes a dataset's rejects file left by an earlier run (it has none now). */
export async function removeRejectsFile(path: string): Promise<void> {
  await rm(path, { force: true });
}
