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
  /** What the trends table was computed for (the trends stage writes it into a build; a merge carries it). */
  readonly trends?: TrendsMeta;
}

/** The EndYear and TRENDS_PERIODS the `trends` rows were computed for: a publish with others recomputes them all. */
export interface TrendsMeta {
  /** Null when the hub had no usable observation and no TRENDS_END_YEAR was set. */
  readonly endYear: number | null;
  readonly periods: string;
}

const TRENDS_END_YEAR = 'trends_end_year';
const TRENDS_PERIODS = 'trends_periods';

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
  if (meta.trends) await writeTrendsMeta(conn, meta.trends);
}

/** Writes (or replaces) the trends' rows of tributary_meta. */
export async function writeTrendsMeta(conn: DuckDBConnection, trends: TrendsMeta): Promise<void> {
  await run(conn, 'DELETE FROM tributary_meta WHERE key IN ($1, $2)', [TRENDS_END_YEAR, TRENDS_PERIODS]);
  await run(conn, 'INSERT INTO tributary_meta VALUES ($1, $2), ($3, $4)', [TRENDS_END_YEAR, trends.endYear === null ? '' : String(trends.endYear), TRENDS_PERIODS, trends.periods]);
}

/** The trends' rows of a file's tributary_meta (read by readMeta); undefined when it has none. */
export function trendsMetaOf(meta: ReadonlyMap<string, string>): TrendsMeta | undefined {
  const endYear = meta.get(TRENDS_END_YEAR);
  const periods = meta.get(TRENDS_PERIODS);
  if (endYear === undefined || periods === undefined) return undefined;
  return { endYear: endYear === '' ? null : Number(endYear), periods };
}

/** A file's rows by key; `schema` names an attached file (`prev`), the connection's own file when absent. */
export async function readMeta(conn: DuckDBConnection, schema?: string): Promise<Map<string, string>> {
  const table = schema === undefined ? 'tributary_meta' : `${schema}.tributary_meta`;
  return new Map((await all(conn, `SELECT key, value FROM ${table}`)).map((r) => [String(r.key), String(r.value)]));
}
