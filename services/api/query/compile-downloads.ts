/**
 * The queries behind /v1/downloads and /v1/publications (issue 29): what the published file says about its dataset
 * files and the publications it descends from (schemas/publication-files.ts). The tables are small (a row per
 * dataset and format, a row per publication), read whole once per snapshot (exec/downloads.ts).
 */
import { metadataFields } from '../../../schemas/index.js';
import { DATASET_FILES, DATASETS, PUBLICATION_CHANGES, PUBLICATION_HISTORY, sameDataset, sourceColumn, sourceTable } from './source.js';
import { ident, type CompiledQuery } from './sql.js';

const metadataColumn = (name: 'DatasetName' | 'Licence' | 'Citation') => metadataFields.find((f) => f.name === name)!.column;

/**
 * Every file the publication serves, with its dataset's name, licence and citation as `/Metadata` names them.
 *
 * @example
 * compileDatasetFiles().sql
 * // SELECT f."DOI" AS "DOI", d."DatasetName" AS "DatasetName", … FROM "dataset_files" f LEFT JOIN "datasets" d ON d."DOI" = f."DOI" ORDER BY …
 */
export function compileDatasetFiles(): CompiledQuery {
  const f = (name: string) => sourceColumn(DATASET_FILES, name);
  const meta = (['DatasetName', 'Licence', 'Citation'] as const).map((n) => `${sourceColumn(DATASETS, metadataColumn(n))} AS ${ident(n)}`);
  const file = ['Format', 'Sha256', 'Bytes', 'Rows', 'PublicationId'].map(f);
  return {
    sql:
      `SELECT ${f('DOI')} AS ${ident('DOI')}, ${meta.join(', ')}, ${file.join(', ')} ` +
      `FROM ${sourceTable(DATASET_FILES)} LEFT JOIN ${sourceTable(DATASETS)} ON ${sameDataset(DATASETS, DATASET_FILES)} ` +
      `ORDER BY ${f('DOI')}, ${f('Format')}`,
    params: [],
  };
}

/** The publications the file descends from, oldest first (ids sort by time), with their changes. */
export function compilePublicationHistory(): CompiledQuery {
  const h = (name: string) => sourceColumn(PUBLICATION_HISTORY, name);
  return {
    sql: `SELECT ${h('PublicationId')}, strftime(${h('CreatedAt')}, '%Y-%m-%dT%H:%M:%S.%gZ') AS ${ident('CreatedAt')}, ${h('Parent')} FROM ${sourceTable(PUBLICATION_HISTORY)} ORDER BY ${h('PublicationId')}`,
    params: [],
  };
}

export function compilePublicationChanges(): CompiledQuery {
  const c = (...names: string[]) => names.map((name) => sourceColumn(PUBLICATION_CHANGES, name)).join(', ');
  return {
    sql: `SELECT ${c('PublicationId', 'DOI', 'DatasetName', 'Change')} FROM ${sourceTable(PUBLICATION_CHANGES)} ORDER BY ${c('PublicationId', 'DOI')}`,
    params: [],
  };
}
