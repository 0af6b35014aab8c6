import type { DuckDBConnection } from '@duckdb/node-api';
import { STORAGE_SCHEMA_VERSION } from '../schemas/index.js';
import { all } from './db.js';
import type { KeptDataset } from './load.js';

/** What the currently published file holds, as far as numbering and change detection need. */
export interface Previous {
  readonly datasets: ReadonlyMap<string, KeptDataset & { readonly contentHash: string; readonly rows: number }>;
  readonly maxObservationId: number;
  readonly maxLocationId: number;
}

const empty: Previous = { datasets: new Map(), maxObservationId: 0, maxLocationId: 0 };

export async function readPrevious(conn: DuckDBConnection, attached: boolean): Promise<Previous> {
  if (!attached) return empty;
  const meta = new Map((await all(conn, 'SELECT key, value FROM prev.tributary_meta')).map((r) => [String(r.key), String(r.value)]));
  const version = meta.get('schema_version');
  if (version !== STORAGE_SCHEMA_VERSION) {
    throw new Error(`the published file has schema version ${version ?? '(none)'}, this ingest writes ${STORAGE_SCHEMA_VERSION}: ingest every source into a new DUCKDB_PATH`);
  }
  // From the locations' Id ranges, not a scan of observations: a dataset's rows are the union of its locations'
  // contiguous ranges, and at 100M rows the scan alone would cost more than publishing a small change.
  const rows = await all(
    conn,
    `SELECT d."DOI", d.content_hash, l.min_id, l.max_id, l.n FROM prev.datasets d
     LEFT JOIN (SELECT "DOI", min(first_obs_id) AS min_id, max(last_obs_id) AS max_id, sum(last_obs_id - first_obs_id + 1) AS n FROM prev.locations GROUP BY "DOI") l USING ("DOI")`,
  );
  const datasets = new Map(
    rows.map((r) => [
      String(r.DOI),
      { DOI: String(r.DOI), contentHash: String(r.content_hash), minId: Number(r.min_id ?? 0), maxId: Number(r.max_id ?? -1), rows: Number(r.n ?? 0) },
    ]),
  );
  const [max] = await all(conn, 'SELECT (SELECT max(last_obs_id) FROM prev.locations) AS obs, (SELECT max("Id") FROM prev.locations) AS loc');
  const mark = (key: string, found: unknown) => Math.max(Number(meta.get(key) ?? 0), Number(found ?? 0));
  return { datasets, maxObservationId: mark('max_observation_id', max?.obs), maxLocationId: mark('max_location_id', max?.loc) };
}
