import type { DuckDBConnection } from '@duckdb/node-api';
import { uploadColumns, vocabularies } from '../schemas/index.js';
import { checkObservationRow } from '../schemas/observation-row.js';
import { all, appendRows, run, scalarNumber } from './db.js';
import { lineOfParsed, lineOfRecord, type FileLines } from './line-numbers.js';
import { pushReject, type Reject } from './report.js';
import { ident, literal } from './sql.js';
import { errorRules, failedRulesSql } from './rule-sql.js';
import { usedVocabularies, vocabularyType } from './validate-sql.js';
import type { SourceDataset, SourceFile } from './stage-parts.js';
import { levelChecks, rowOkAtSql } from './validation-level.js';
import type { ValidationLevel } from '../schemas/metadata-schema.js';

/**
 * Staging, for the explanation of one dataset (explain.ts): every CSV file of
 * it goes through DuckDB's reader into a temporary table (all text, in file order, so `rowid` is the source
 * position), with a verdict per row computed in the same scan. Malformed records land in DuckDB's reject table;
 * invalid rows stay in the table with ok = false. Only the stored rejects (capped) are explained row by row, by
 * the reference zod schema. Upstream's quality-control warnings are not counted here: the load counted them.
 */

export interface StagedFile {
  readonly name: string;
  readonly index: number;
  /** rowid of the file's first parsed record in `stage`. */
  readonly start: number;
  readonly parsed: number;
  readonly malformed: readonly Malformed[];
}

interface Malformed {
  readonly record: number;
  readonly newlines: number;
  readonly column: string | null;
  readonly reason: string;
}

export interface Staged {
  /** The temporary table holding the dataset's rows (quoted identifier). */
  readonly table: string;
  readonly files: readonly StagedFile[];
  /** Records read (parsed and malformed), and of those rejected (malformed or invalid), valid. */
  readonly rowsRead: number;
  readonly rowsRejected: number;
  readonly rowsValid: number;
  /** Every reject of the dataset: the read's first, then the staging's, capped together, by file and line. */
  readonly rejects: readonly Reject[];
  /** Every record rejected before its columns were judged (files rejected whole, malformed records), uncapped. */
  readonly records: readonly Reject[];
  /** Physical line of a staged row (by its `stage` rowid). */
  lineOf(rowid: number): Promise<{ file: string; line: number }>;
}

export interface StageOptions {
  readonly maxRejects: number;
}

/**
 * A record may be 8 MiB long (max_line_size); the reader's buffer is sized apart from it. DuckDB's default buffer is
 * 16 × max_line_size, 128 MiB per file in flight, outside any batch: with several files read at once that alone
 * held more than a small INGEST_MEMORY_LIMIT allows, and made peak memory follow the files rather than the batch
 * (issue 55). 16 MiB still holds two of the longest records.
 */
const READ_OPTIONS = `header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', store_rejects = true, rejects_table = 'csv_rejects', rejects_scan = 'csv_scans', max_line_size = 8388608, buffer_size = 16777216`;

/** Creates the vocabulary ENUM types once per build connection. */
export async function prepareValidation(conn: DuckDBConnection): Promise<void> {
  await run(conn, 'CREATE TEMP TABLE vocabulary (name VARCHAR, value VARCHAR)');
  await appendRows(conn, 'vocabulary', usedVocabularies.flatMap((name) => vocabularies[name].map((v) => [name, v] as const)), 'main', 'temp');
  for (const name of usedVocabularies) {
    const select = `SELECT DISTINCT value FROM vocabulary WHERE name = ${literal(name)} ORDER BY value`;
    await run(conn, `CREATE TEMP TYPE ${vocabularyType(name)} AS ENUM (${select})`);
  }
}

/** Stages one dataset into the temporary table `name` (an identifier of ours). */
export async function stageDataset(conn: DuckDBConnection, ds: SourceDataset, name: string, options: StageOptions): Promise<Staged> {
  const STAGE = ident(name);
  const columns = uploadColumns.map((f) => `${ident(f.name)} VARCHAR`).join(', ');
  await run(conn, `CREATE OR REPLACE TEMP TABLE ${STAGE} (file_idx INTEGER, ${columns}, extra_nl INTEGER, ok BOOLEAN)`);
  // The read's rejects come first: the cap on stored rejects counts them too.
  const rejects = [...ds.found.rejects];
  const files = await stageFiles(conn, STAGE, ds, rejects);
  const records = [...rejects];
  const staged = createStaged(conn, STAGE, files);
  for (const file of files) {
    if (file.malformed.length === 0) continue;
    const lines = await staged.linesOf(file);
    for (const m of file.malformed) {
      const reject = { file: file.name, line: lineOfRecord(lines, m.record), column: m.column, reason: m.reason };
      records.push(reject);
      pushReject(rejects, reject, options.maxRejects);
    }
  }
  const invalid = await scalarNumber(conn, `SELECT count(*) FROM ${STAGE} WHERE NOT ok`);
  if (invalid > 0 && ds.metadata.ValidationLevel === 'upstream') await explainInvalid(conn, STAGE, staged, rejects, options.maxRejects);
  else if (invalid > 0) await explainByChecks(conn, STAGE, staged, rejects, options.maxRejects, ds.metadata.ValidationLevel);
  rejects.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const parsed = files.reduce((n, f) => n + f.parsed, 0);
  const malformed = files.reduce((n, f) => n + f.malformed.length, 0);
  return { table: STAGE, files, lineOf: staged.lineOf, rowsRead: parsed + malformed, rowsRejected: malformed + invalid, rowsValid: parsed - invalid, rejects, records };
}

/** Each file into the stage, in order; a file DuckDB cannot read is rejected whole (into `rejects`) and skipped. */
async function stageFiles(conn: DuckDBConnection, STAGE: string, ds: SourceDataset, rejects: Reject[]): Promise<StagedFile[]> {
  const files: StagedFile[] = [];
  let start = 0;
  for (const [index, file] of ds.files.entries()) {
    let parsed: number;
    try {
      parsed = await run(conn, insertFileSql(STAGE, file, ds.metadata.ValidationLevel), [file.path, index]);
    } catch (err) {
      rejects.push({ file: file.name, line: 1, column: null, reason: `file rejected: ${(err as Error).message.split('\n')[0]}` });
      continue;
    }
    files.push({ name: file.name, index, start, parsed, malformed: await readMalformed(conn, file) });
    start += parsed;
  }
  return files;
}

/** The INSERT reading one file into a stage table, with each row's verdict. */
function insertFileSql(STAGE: string, file: SourceFile, level: ValidationLevel): string {
  return `INSERT INTO ${STAGE} SELECT $2::INTEGER, *, (${rowOkAtSql(level)}) AS ok FROM (${fileRowsSql(file, '$1')})`;
}

/**
 * One file's records as text columns named as the upload columns (header columns c0…cN mapped by name, absent
 * ones NULL, unknown ones unused) plus `extra_nl`, the newlines inside ignored columns. `path` is the SQL of the
 * file's path (a bound parameter). Malformed records go to the reject tables `csv_rejects` and `csv_scans`.
 */
export function fileRowsSql(file: SourceFile, path: string): string {
  const struct = Array.from({ length: file.columns.width }, (_, i) => `'c${i}': 'VARCHAR'`).join(', ');
  const mapped = uploadColumns.map((f) => {
    const at = file.columns.indexOf.get(f.name);
    return `${at === null || at === undefined ? 'NULL::VARCHAR' : `c${at}`} AS ${ident(f.name)}`;
  });
  // Newlines inside ignored columns still shift physical line numbers; count them only when there are any. One
  // concat_ws over them all, not a sum per column: a thousand columns' `+` chain passes DuckDB's expression depth.
  const ignored = file.columns.unknown.map(({ index }) => `c${index}`);
  const all = `concat_ws('', ${ignored.join(', ')})`;
  const extraNl = ignored.length > 0 ? `strlen(${all}) - strlen(replace(${all}, chr(10), ''))` : '0';
  return `SELECT ${mapped.join(', ')}, (${extraNl})::INTEGER AS extra_nl FROM read_csv(${path}, ${READ_OPTIONS}, columns = {${struct}})`;
}

async function readMalformed(conn: DuckDBConnection, file: SourceFile): Promise<Malformed[]> {
  const rows = await all(conn, `SELECT line, column_name, error_type, error_message, csv_line FROM csv_rejects ORDER BY line, column_idx`);
  await run(conn, 'DELETE FROM csv_rejects');
  await run(conn, 'DELETE FROM csv_scans');
  const byRecord = new Map<number, Malformed>();
  for (const r of rows) {
    const record = Number(r.line);
    if (byRecord.has(record)) continue;
    const newlines = String(r.csv_line ?? '').split('\n').length - 1;
    // The reader names columns c0…cN (ours); report the header's name. A wrong field count is the record's
    // fault, not the column's where the count ran out.
    const wholeRecord = String(r.error_type).endsWith('COLUMNS');
    const at = typeof r.column_name === 'string' && !wholeRecord ? Number(r.column_name.slice(1)) : Number.NaN;
    const column = Number.isInteger(at) ? (file.columns.header[at] ?? null) : null;
    byRecord.set(record, { record, newlines, column, reason: `malformed CSV record: ${String(r.error_message)}` });
  }
  return [...byRecord.values()];
}

interface StagedLines {
  readonly lineOf: Staged['lineOf'];
  linesOf(file: StagedFile): Promise<FileLines>;
}

/** SQL: the newlines inside a staged record (its columns and its ignored ones), which shift the lines after it. */
export function newlinesSql(): string {
  // Counted only in the rare row that has one: the count costs two string scans per column.
  const any = uploadColumns.map((f) => `contains(${ident(f.name)}, chr(10))`).join(' OR ');
  const count = uploadColumns.map((f) => `coalesce(strlen(${ident(f.name)}) - strlen(replace(${ident(f.name)}, chr(10), '')), 0)`).join(' + ');
  return `(CASE WHEN ${any} THEN ${count} ELSE 0 END + extra_nl)`;
}

function createStaged(conn: DuckDBConnection, STAGE: string, files: readonly StagedFile[]): StagedLines {
  const cache = new Map<number, Promise<FileLines>>();
  const nlChecks = uploadColumns.map((f) => `contains(${ident(f.name)}, chr(10))`).join(' OR ');
  const linesOf = (file: StagedFile) => {
    let lines = cache.get(file.index);
    if (!lines) {
      lines = all(
        conn,
        `SELECT rowid - $1 AS k, ${newlinesSql()} AS n FROM ${STAGE} WHERE file_idx = $2 AND (${nlChecks} OR extra_nl > 0) ORDER BY rowid`,
        [file.start, file.index],
      ).then((rows) => ({ malformed: file.malformed, parsed: rows.map((r) => ({ index: Number(r.k), newlines: Number(r.n) })) }));
      cache.set(file.index, lines);
    }
    return lines;
  };
  return {
    linesOf,
    async lineOf(rowid) {
      const file = [...files].reverse().find((f) => f.start <= rowid);
      if (!file) throw new Error(`no staged file holds row ${rowid}`);
      return { file: file.name, line: lineOfParsed(await linesOf(file), rowid - file.start) };
    },
  };
}

/**
 * Reasons for the first `max` invalid rows: each column's from the reference schema, so messages match it exactly,
 * then each upstream error rule the row fails, by the rule's name.
 */
async function explainInvalid(conn: DuckDBConnection, STAGE: string, staged: StagedLines, rejects: Reject[], max: number): Promise<void> {
  const room = max - rejects.length;
  if (room <= 0) return;
  const cols = uploadColumns.map((f) => ident(f.name)).join(', ');
  const rows = await all(conn, `SELECT rowid AS _rowid, ${failedRulesSql(errorRules)} AS _failed, ${cols} FROM ${STAGE} WHERE NOT ok ORDER BY rowid LIMIT $1`, [room]);
  for (const row of rows) {
    const { file, line } = await staged.lineOf(Number(row._rowid));
    const verdict = checkObservationRow(row as Record<string, string | null>);
    const columnIssues = verdict.ok ? [] : verdict.issues;
    // A column's own upstream definition says again what the reference schema said of that column: report it once.
    const flagged = new Set(columnIssues.map((i) => i.column));
    const ruleIssues = ((row._failed as number[] | null) ?? []).flatMap((i) => {
      const rule = errorRules[i] as (typeof errorRules)[number];
      if (rule.name.startsWith('column-') && flagged.has(rule.column ?? '')) return [];
      return [{ column: rule.column ?? '', message: `upstream rule ${rule.name}: ${rule.description || 'see docs/upstream-rules.md'}` }];
    });
    const issues = [...columnIssues, ...ruleIssues];
    if (issues.length === 0) issues.push({ column: '', message: 'rejected by the bulk validation but accepted by the reference schema (please report)' });
    for (const issue of issues) pushReject(rejects, { file, line, column: issue.column || null, reason: issue.message }, max);
  }
}

/**
 * Reasons for the first `max` invalid rows at a level other than upstream's: the level's own error checks
 * (row-checks.ts), each failed one a reject with its column and message.
 */
async function explainByChecks(conn: DuckDBConnection, STAGE: string, staged: StagedLines, rejects: Reject[], max: number, level: ValidationLevel): Promise<void> {
  const room = max - rejects.length;
  if (room <= 0) return;
  const { errors } = levelChecks(level);
  const failed = `list_filter([${errors.map((c) => `CASE WHEN NOT ${c.ok} THEN {'column': ${c.column ? literal(c.column) : 'NULL::VARCHAR'}, 'message': ${c.message}} END`).join(', ')}], x -> x IS NOT NULL)`;
  const rows = await all(conn, `SELECT rowid AS _rowid, ${failed} AS _failed FROM ${STAGE} WHERE NOT ok ORDER BY rowid LIMIT $1`, [room]);
  for (const row of rows) {
    const { file, line } = await staged.lineOf(Number(row._rowid));
    for (const f of row._failed as { column: string | null; message: string }[]) pushReject(rejects, { file, line, column: f.column, reason: f.message }, max);
  }
}
