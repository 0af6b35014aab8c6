import { columnNames, storageTables, storedUploadColumns } from '../schemas/index.js';
import { locationCore } from './build-tables.js';
import { locationSources } from './location-columns.js';
import { failedMaskSql, failedRulesMaskSql, warningRules } from './rule-sql.js';
import { demotedChecks, rowOkAtSql } from './validation-level.js';
import { ident } from './sql.js';
import type { SourceDataset, SourceFile } from './stage-parts.js';
import { fileRowsSql } from './validate.js';
import { castSql, rowOkSql } from './validate-sql.js';

/**
 * The SQL of one batch's statement (load.ts): every row of every file read, judged, typed and sorted into
 * `observations`, with three working columns that are dropped once every batch is in.
 */

/** The row's verdict: invalid rows are written too, sorted last, so one scan gives exact counts. */
export const OK = '_ok';
/** Which file a row came from (its index in the batch, in DOI then file order), for the counts per file. */
export const FILE = '_file';
/** The upstream quality-control rules the row fails (NULL when none), counted into warnings per file. */
export const WARN = '_warn';
/** At the `storable` level, upstream's errors the row fails (validation-level.ts `demotedChecks`), counted as warnings. */
export const DEMOTED = '_demoted';
export const WORKING_COLUMNS = [`${OK} BOOLEAN`, `${FILE} INTEGER`, `${WARN} UHUGEINT`, `${DEMOTED} UHUGEINT`] as const;

/** One file of a batch. */
export interface BatchFile {
  readonly ds: SourceDataset;
  readonly file: SourceFile;
  readonly name: string;
  /** The dataset's place in the batch (DOI order), the first sort key. */
  readonly part: number;
}

/** The rows of the batch in hand: not numbered yet, after the `before` rows there were when it started. */
export const freshRows = (before: number, table = '') => `${table}"Id" = 0 AND ${table}rowid >= ${Math.trunc(before)}`;

/**
 * The documented numbering key within a dataset: location, date, time, then every other upload column. Rows
 * equal in every column are indistinguishable once stored, so no source position is needed as a tie-break.
 */
const observationSortKey = (() => {
  const lead = ['MonitoringLocationID', 'ActivityStartDate', 'ActivityStartTime'];
  const rest = storedUploadColumns.map((f) => f.name).filter((n) => !lead.includes(n));
  return [...lead, ...rest].map((c) => `${ident(c)} NULLS FIRST`).join(', ');
})();

/**
 * Every row of `files`, typed, with its verdict, sorted: valid rows first, by dataset (DOI order) and the
 * documented key; its parameters are each file's DOI and path. Columns that may not be NULL get a placeholder in
 * invalid rows only (a valid row has them), so the table's constraints hold until those rows are deleted. Id and
 * LocationId are filled in afterwards.
 */
export function insertSql(files: readonly BatchFile[]): string {
  const lenient = (f: BatchFile) => f.ds.metadata.ValidationLevel === 'storable';
  const sources = files.map((f, i) => `SELECT ${f.part} AS _part, ${i} AS ${FILE}, ${lenient(f)} AS _lenient, $${2 * i + 1}::VARCHAR AS "DOI", * EXCLUDE (extra_nl) FROM (${fileRowsSql(f.file, `$${2 * i + 2}`)})`);
  // A batch of upstream datasets only (the usual one) runs the one verdict it always did.
  const anyLenient = files.some(lenient);
  const ok = !anyLenient ? rowOkSql() : files.every(lenient) ? rowOkAtSql('storable') : `CASE WHEN _lenient THEN (${rowOkAtSql('storable')}) ELSE (${rowOkSql()}) END`;
  const demoted = anyLenient ? `CASE WHEN _lenient THEN ${failedMaskSql(demotedChecks.map((c) => c.ok))} END` : 'NULL::UHUGEINT';
  const notNull = new Set(storageTables.observations.filter((c) => !c.nullable).map((c) => c.column));
  const typed = storedUploadColumns.map((f) => {
    const value = castSql(f).replace(/^CAST\(/, 'TRY_CAST(');
    return `${notNull.has(f.name) ? `coalesce(${value}, ${placeholder(f.type)})` : value} AS ${ident(f.name)}`;
  });
  const derived: Record<string, string> = {
    Id: '0',
    LocationId: '0',
    ActivityStartYear: 'coalesce(year("ActivityStartDate"), 0)::INTEGER',
    ActivityGroupType: `coalesce(g._group, 'Other')`,
  };
  const cols = columnNames('observations');
  return `INSERT INTO observations (${cols.map(ident).join(', ')}, ${OK}, ${FILE}, ${WARN}, ${DEMOTED})
    SELECT ${cols.map((c) => derived[c] ?? ident(c)).join(', ')}, ${OK}, ${FILE}, ${WARN}, ${DEMOTED} FROM (
      SELECT _part, ${FILE}, "DOI", ${typed.join(', ')}, (${ok}) AS ${OK}, ${failedRulesMaskSql(warningRules)} AS ${WARN}, ${demoted} AS ${DEMOTED}
      FROM (${sources.join('\n      UNION ALL ')})
    ) LEFT JOIN (SELECT "ActivityType" AS _type, "ActivityGroupType" AS _group FROM activity_groups) g ON g._type = "ActivityType"
    ORDER BY NOT ${OK}, _part, ${observationSortKey}`;
}

function placeholder(type: string): string {
  switch (type) {
    case 'number':
    case 'integer':
      return '0';
    case 'date':
      return "DATE '1970-01-01'";
    case 'time':
      return "TIME '00:00'";
    default:
      return "''";
  }
}

/**
 * The locations of the batch's valid rows: attributes of each location's first row in Id order (equal in every
 * row unless `variants` > 1, in which case its dataset is staged for the first occurrence by line).
 */
export function locationsSql(fresh: string): string {
  const attrs = locationSources.filter(({ column }) => column !== 'MonitoringLocationID');
  return `CREATE OR REPLACE TEMP TABLE batch_locations AS
    SELECT "DOI", "MonitoringLocationID", ${attrs.map(({ column, source }) => `arg_min(${ident(source.name)}, rowid) AS ${ident(column)}`).join(', ')},
      count(DISTINCT (${attrs.map(({ source }) => ident(source.name)).join(', ')})) AS variants
    FROM observations WHERE ${fresh} AND ${OK} GROUP BY "DOI", "MonitoringLocationID"`;
}

/** One clean dataset's locations into `all_locations`, numbered after `$1` in MonitoringLocationID order. */
export function cleanLocationsSql(): string {
  const expr = (c: string) => (c === 'Id' ? '$1 + row_number() OVER (ORDER BY "MonitoringLocationID")' : ident(c));
  return `INSERT INTO all_locations (${locationCore.map(ident).join(', ')})
    SELECT ${locationCore.map(expr).join(', ')} FROM batch_locations WHERE "DOI" = $2`;
}
