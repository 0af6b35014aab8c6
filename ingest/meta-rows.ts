import type { DuckDBConnection } from '@duckdb/node-api';
import { upstreamSource } from '../schemas/index.js';
import { all, run } from './db.js';

/**
 * tributary_meta: what a reader needs to know about the file as a whole (docs/storage.md), as key–value rows.
 * Written by a full build (statistics) and by a merge, read back as the published state (previous.ts) and by the
 * publication store; one file says what the rows are.
 */

export const INGEST_VERSION = '1';

export interface MetaValues {
  readonly maxObservationId: number;
  readonly maxLocationId: number;
  /** This publication's identity (schemas/publication.ts), served in /readyz and the ETag. */
  readonly publicationId: string;
}

/** tributary_meta's rows for a new publication. */
function metaRows(meta: MetaValues, schemaVersion: string): [string, string][] {
  return [
    ['schema_version', schemaVersion],
    ['publication_id', meta.publicationId],
    ['published_at', new Date().toISOString()],
    ['ingest_version', INGEST_VERSION],
    // The DataStream schema whose vocabularies, groups and rules judged and derived these rows.
    ['upstream_schema', `${upstreamSource.repository}@${upstreamSource.commit} (${upstreamSource.version})`],
    // High-water marks: Ids of removed or replaced datasets are never reused.
    ['max_observation_id', String(meta.maxObservationId)],
    ['max_location_id', String(meta.maxLocationId)],
  ];
}

/** Writes the rows into an empty tributary_meta. */
export async function writeMeta(conn: DuckDBConnection, meta: MetaValues, schemaVersion: string): Promise<void> {
  for (const [key, value] of metaRows(meta, schemaVersion)) await run(conn, 'INSERT INTO tributary_meta VALUES ($1, $2)', [key, value]);
}

/** A file's rows by key; `schema` names an attached file (`prev`), the connection's own file when absent. */
export async function readMeta(conn: DuckDBConnection, schema?: string): Promise<Map<string, string>> {
  const table = schema === undefined ? 'tributary_meta' : `${schema}.tributary_meta`;
  return new Map((await all(conn, `SELECT key, value FROM ${table}`)).map((r) => [String(r.key), String(r.value)]));
}
