import type { DuckDBConnection } from '@duckdb/node-api';
import { STORAGE_SCHEMA_VERSION } from '../schemas/index.js';
import { datasetFileName, type DownloadFormat } from '../schemas/publication-files.js';
import { all } from './db.js';
import { readMeta, trendsMetaOf, type TrendsMeta } from './meta-rows.js';

/** What the currently published file holds, as far as numbering and change detection need. */
export interface Previous {
  /** Each published dataset's content hash, by DOI: an unchanged dataset keeps its rows and Ids. */
  readonly datasets: ReadonlyMap<string, { readonly contentHash: string; readonly name: string }>;
  readonly maxObservationId: number;
  readonly maxLocationId: number;
  /** Its publication id: the parent of the next publication (publication_history). */
  readonly publicationId: string | null;
  /** The dataset files it lists (`sha256-<hex>.<ext>`): kept on disk until the publication after the next. */
  readonly files: ReadonlySet<string>;
  /** The EndYear and periods its trends were computed for. */
  readonly trends?: TrendsMeta;
}

const empty: Previous = { datasets: new Map(), maxObservationId: 0, maxLocationId: 0, publicationId: null, files: new Set() };

export async function readPrevious(conn: DuckDBConnection, attached: boolean): Promise<Previous> {
  if (!attached) return empty;
  const meta = await readMeta(conn, 'prev');
  const version = meta.get('schema_version');
  if (version !== STORAGE_SCHEMA_VERSION) {
    throw new Error(`the published file has schema version ${version ?? '(none)'}, this ingest writes ${STORAGE_SCHEMA_VERSION}: ingest every source into a new DUCKDB_PATH`);
  }
  const rows = await all(conn, 'SELECT "DOI", content_hash, "DatasetName" FROM prev.datasets');
  const datasets = new Map(rows.map((r) => [String(r.DOI), { contentHash: String(r.content_hash), name: String(r.DatasetName) }]));
  const fileRows = await all(conn, 'SELECT "Sha256", "Format" FROM prev.dataset_files');
  const files = new Set(fileRows.map((r) => datasetFileName(String(r.Sha256), r.Format as DownloadFormat)));
  // From the locations, not a scan of observations: at 100M rows the scan alone would cost more than publishing
  // a small change.
  const [max] = await all(conn, 'SELECT (SELECT max(last_obs_id) FROM prev.locations) AS obs, (SELECT max("Id") FROM prev.locations) AS loc');
  const mark = (key: string, found: unknown) => Math.max(Number(meta.get(key) ?? 0), Number(found ?? 0));
  return {
    datasets,
    maxObservationId: mark('max_observation_id', max?.obs),
    maxLocationId: mark('max_location_id', max?.loc),
    publicationId: meta.get('publication_id') ?? null,
    files,
    ...(trendsMetaOf(meta) ? { trends: trendsMetaOf(meta) } : {}),
  };
}
