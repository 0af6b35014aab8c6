/**
 * The queries behind /v1/downloads and /v1/publications (issue 29): what the published file says about its dataset
 * files and the publications it descends from (schemas/publication-files.ts). The tables are small (a row per
 * dataset and format, a row per publication), read whole once per snapshot (exec/downloads.ts).
 */
import { metadataFields } from '../../../schemas/index.js';
import { column, ident, type CompiledQuery } from './sql.js';

const metadataColumn = (name: 'DOI' | 'DatasetName' | 'Licence' | 'Citation') => metadataFields.find((f) => f.name === name)!.column;

const columns = (...names: string[]) => names.map(ident).join(', ');

/**
 * Every file the publication serves, with its dataset's name, licence and citation as `/Metadata` names them.
 *
 * @example
 * compileDatasetFiles().sql
 * // SELECT f."DOI" AS "DOI", d."DatasetName" AS "DatasetName", … FROM "dataset_files" f LEFT JOIN "datasets" d ON d."DOI" = f."DOI" ORDER BY …
 */
export function compileDatasetFiles(): CompiledQuery {
  const meta = (['DatasetName', 'Licence', 'Citation'] as const).map((n) => `${column('d', metadataColumn(n))} AS ${ident(n)}`);
  const file = ['Format', 'Sha256', 'Bytes', 'Rows', 'PublicationId'].map((n) => column('f', n));
  return {
    sql:
      `SELECT ${column('f', 'DOI')} AS ${ident('DOI')}, ${meta.join(', ')}, ${file.join(', ')} ` +
      `FROM ${ident('dataset_files')} f LEFT JOIN ${ident('datasets')} d ON ${column('d', metadataColumn('DOI'))} = ${column('f', 'DOI')} ` +
      `ORDER BY ${column('f', 'DOI')}, ${column('f', 'Format')}`,
    params: [],
  };
}

/** The publications the file descends from, oldest first (ids sort by time), with their changes. */
export function compilePublicationHistory(): CompiledQuery {
  return {
    sql: `SELECT ${ident('PublicationId')}, strftime(${ident('CreatedAt')}, '%Y-%m-%dT%H:%M:%S.%gZ') AS ${ident('CreatedAt')}, ${ident('Parent')} FROM ${ident('publication_history')} ORDER BY ${ident('PublicationId')}`,
    params: [],
  };
}

export function compilePublicationChanges(): CompiledQuery {
  return {
    sql: `SELECT ${columns('PublicationId', 'DOI', 'DatasetName', 'Change')} FROM ${ident('publication_changes')} ORDER BY ${columns('PublicationId', 'DOI')}`,
    params: [],
  };
}
