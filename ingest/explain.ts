import type { DuckDBConnection } from '@duckdb/node-api';
import { storedUploadColumns as uploadColumns } from '../schemas/index.js';
import { locationCore } from './build-tables.js';
import { all, run, scalarNumber } from './db.js';
import { conflictColumns, locationSources } from './location-columns.js';
import type { Warning } from './report.js';
import { ident } from './sql.js';
import type { DatasetLoad, IngestBuild, SourceDataset } from './stage-parts.js';
import { rejectsPath, removeRejectsFile, writeRejectsFile } from './rejects-file.js';
import { levelChecks } from './validation-level.js';
import { stageDataset, type Staged } from './validate.js';
import { castSql } from './validate-sql.js';

/**
 * The load's sub-step for a dataset with something to explain: the one statement per batch knows no source
 * positions, so the dataset is staged again on its own (validate.ts) for line numbers — of its rejects, and of
 * the first occurrence of each location, whose attributes win when they vary. Its rows are not reloaded: the
 * staged verdicts must agree with the batch's counts. A dataset with no valid row fails here, its rejects
 * reported; its published version, if any, is kept.
 */

export interface Explained {
  readonly outcome: DatasetLoad;
  /** Locations numbered into all_locations after the base given. */
  readonly locations: number;
}

/**
 * Explains `ds`, whose batch counted `count` rows and valid rows and found `warnings` (upstream's counted rules);
 * its locations are numbered after `locationBase`.
 */
export async function explainDataset(build: IngestBuild, ds: SourceDataset, count: { readonly rows: number; readonly valid: number }, warnings: readonly Warning[], locationBase: number): Promise<Explained> {
  const t0 = performance.now();
  const doi = ds.metadata.DOI;
  const staged = await stageDataset(build.conn, ds, 'explain_stage', { maxRejects: build.maxRejects });
  try {
    if (staged.rowsValid !== count.valid) throw new Error(`internal error: ${doi} has ${staged.rowsValid} valid rows when staged, ${count.valid} when loaded`);
    const { rowsRead, rowsRejected, rejects } = staged;
    const rejectsFile = await writeDatasetRejects(build, ds, staged);
    if (count.valid === 0) {
      const error = `no valid row in ${ds.folder}; ${rowsRejected} rejected, ${rejects.length > 0 ? 'see rejects' : 'no readable file'} (the published version, if any, is kept)`;
      build.log.progress?.(`${doi}: no valid row; rejects explained line by line in ${seconds(t0)} s`);
      return { outcome: { ds, status: 'failed', rowsRead, rowsLoaded: 0, rowsRejected, rejects, warnings, error, ...rejectsFile }, locations: 0 };
    }
    const located = await stagedLocations(build.conn, doi, staged, locationBase);
    build.log.progress?.(`${doi}: rejects and locations explained line by line in ${seconds(t0)} s`);
    const outcome: DatasetLoad = { ds, status: 'loaded', rowsRead, rowsLoaded: count.valid, rowsRejected, rejects, warnings: [...warnings, ...located.conflicts], ...rejectsFile };
    return { outcome, locations: located.locations };
  } finally {
    await run(build.conn, `DROP TABLE ${staged.table}`);
  }
}

/** The dataset's rejects file, every reject and every reason in it; none (an old one removed) when it has nothing to say. */
async function writeDatasetRejects(build: IngestBuild, ds: SourceDataset, staged: Staged): Promise<{ rejectsFile?: string }> {
  const path = rejectsPath(build.rejects.dir, ds.folder);
  const level = ds.metadata.ValidationLevel;
  const { errors, warnings } = levelChecks(level);
  // At `storable`, what upstream would have rejected is a warning: its rows are always in the file.
  const lines = await writeRejectsFile(build.conn, path, { staged, records: staged.records, errors, warnings, warnRows: build.rejects.warnings || level === 'storable' });
  if (lines > 0) return { rejectsFile: path };
  await removeRejectsFile(path);
  return {};
}

const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);

/** The dataset's locations into all_locations from their first occurrences by line, numbered after `base`. */
async function stagedLocations(conn: DuckDBConnection, doi: string, staged: Staged, base: number): Promise<{ locations: number; conflicts: Warning[] }> {
  await run(conn, datasetLocationsSql(staged.table), [base]);
  const locations = await scalarNumber(conn, 'SELECT count(*) FROM dataset_locations');
  await run(conn, `INSERT INTO all_locations SELECT ${locationCore.map((c) => (c === 'DOI' ? '$1' : ident(c))).join(', ')} FROM dataset_locations`, [doi]);
  return { locations, conflicts: await conflicts(conn, staged) };
}

/** One row per MonitoringLocationID: attributes of its first occurrence (lowest source position), new Id. */
function datasetLocationsSql(stage: string): string {
  const firsts = locationSources.map(({ column, source }) => `arg_min(${castSql(source)}, rowid) AS ${ident(column)}`);
  const variants = `count(DISTINCT (${conflictAttrs('', false)})) AS variants`;
  return `CREATE OR REPLACE TEMP TABLE dataset_locations AS
    SELECT $1 + row_number() OVER (ORDER BY "MonitoringLocationID") AS "Id", ${firsts.filter((f) => !f.endsWith('AS "MonitoringLocationID"')).join(', ')},
      "MonitoringLocationID", ${variants}
    FROM ${stage} WHERE ok GROUP BY "MonitoringLocationID"`;
}

/** The compared attributes, typed (45 and 45.0 are one latitude). */
function conflictAttrs(prefix = '', alias = true): string {
  return conflictColumns
    .map((c) => {
      const field = uploadColumns.find((f) => f.name === c);
      if (!field) throw new Error(`unknown conflict column ${c}`);
      return `${castSql(field, `${prefix}${ident(c)}`)}${alias ? ` AS ${ident(c)}` : ''}`;
    })
    .join(', ');
}

/** Locations whose name or coordinates differ between rows of one dataset; the first occurrence wins. */
async function conflicts(conn: DuckDBConnection, staged: Staged): Promise<Warning[]> {
  const attrs = conflictAttrs('s.');
  const rows = await all(
    conn,
    `SELECT s."MonitoringLocationID" AS id, ${attrs}, min(s.rowid) AS first_row, count(*) AS n
     FROM ${staged.table} s JOIN dataset_locations l USING ("MonitoringLocationID")
     WHERE s.ok AND l.variants > 1 GROUP BY ALL ORDER BY id, first_row LIMIT 1000`,
  );
  const warnings: Warning[] = [];
  const byId = Map.groupBy(rows, (r) => String(r.id));
  for (const [id, variants] of byId) {
    const described = await Promise.all(
      variants.map(async (v) => {
        const at = await staged.lineOf(Number(v.first_row));
        return { at, text: `'${String(v.MonitoringLocationName)}' (${String(v.MonitoringLocationLatitude)}, ${String(v.MonitoringLocationLongitude)}) first at ${at.file}:${at.line}, ${String(v.n)} row(s)` };
      }),
    );
    const [first, ...others] = described;
    if (!first) continue;
    warnings.push({
      file: others[0]?.at.file ?? first.at.file,
      line: others[0]?.at.line ?? first.at.line,
      message: `MonitoringLocationID '${id}' has conflicting name/coordinates: ${described.map((d) => d.text).join('; ')}. The first occurrence (lowest line) is used for the location.`,
    });
  }
  return warnings;
}
