import type { DuckDBConnection } from '@duckdb/node-api';
import type { ChangeKind } from '../schemas/publication-files.js';
import { publicationTime } from '../schemas/publication.js';
import { columnNames, type StorageTable } from '../schemas/storage.js';
import { list } from './build-tables.js';
import { run } from './db.js';

/**
 * publication_history and publication_changes (schemas/publication-files.ts): each published file carries every
 * publication it descends from and what each added, replaced or removed, so the API can answer "what changed since
 * publication X" from the file it serves alone. Every publish appends its own rows to the rows its parent carried.
 */

export interface DatasetChange {
  readonly DOI: string;
  readonly DatasetName: string;
  readonly change: ChangeKind;
}

export interface PublicationRecord {
  readonly id: string;
  /** The publication this one was built on (the file's previous publication id); null for a first ingest. */
  readonly parent: string | null;
  readonly changes: readonly DatasetChange[];
}

/** Appends the publication's history row (CreatedAt: the time in its id) and its change rows. */
export async function recordPublication(conn: DuckDBConnection, rec: PublicationRecord): Promise<void> {
  const createdAt = publicationTime(rec.id).toISOString().slice(0, 23);
  await run(conn, 'INSERT INTO publication_history VALUES ($1, CAST($2 AS TIMESTAMP), $3)', [rec.id, createdAt, rec.parent]);
  for (const c of rec.changes) await run(conn, 'INSERT INTO publication_changes VALUES ($1, $2, $3, $4)', [rec.id, c.DOI, c.DatasetName, c.change]);
}

/** Copies the history, changes and file rows of the attached published file `prev` (a full rebuild of it). */
export async function carryPublication(conn: DuckDBConnection): Promise<void> {
  for (const table of ['publication_history', 'publication_changes', 'dataset_files'] satisfies StorageTable[]) {
    const cols = list(columnNames(table));
    await run(conn, `INSERT INTO ${table} (${cols}) SELECT ${cols} FROM prev.${table}`);
  }
}
