import type { DuckDBConnection } from '@duckdb/node-api';
import { createBuildTables } from './build-tables.js';
import { startCopy, type Copy } from './merge.js';
import { readPrevious, type Previous } from './previous.js';
import { abandonBuild, openBuild, type Build } from './publish.js';
import type { Region } from './regions.js';
import { DEFAULT_MAX_REJECTS } from './report.js';
import { ingestMemory, type IngestMemory } from './settings.js';

/**
 * The build context: one value handed to every stage after read (load, derive, statistics, publish), instead of
 * each taking the file, the published state, the settings and the log as parameters of its own.
 */

export interface Log {
  /** Always shown: per-dataset summaries, the total, warnings. */
  info(line: string): void;
  /** Progress while it runs (main shows it on a TTY only). */
  progress?(line: string): void;
}

export interface IngestOptions {
  readonly src: string;
  readonly duckdbPath: string;
  readonly regionsFile?: string;
  /** DOI_PATTERN: the DOIs this hub accepts; any DOI by its standard syntax when absent. */
  readonly doiPattern?: RegExp;
  /** Stored rejects per dataset (counts stay exact). */
  readonly maxRejects?: number;
  /** Where each dataset's rejects file goes (REJECTS_DIR; default `<duckdbPath>.rejects`). */
  readonly rejectsDir?: string;
  /** Valid rows that fail a quality-control rule get a line in the rejects file too (REJECTS_WARNINGS). */
  readonly rejectsWarnings?: boolean;
  readonly log?: Log;
  /** DuckDB's memory_limit for the build and the merge (INGEST_MEMORY_LIMIT; default half the RAM). */
  readonly memoryLimitBytes?: number;
  /** Estimated data-file bytes per sorted batch (default: a quarter of the memory limit). */
  readonly batchBytes?: number;
}

export interface IngestBuild {
  /** The file being written: the whole new file, or with a publication in place the delta merged into it. */
  readonly file: Build;
  readonly conn: DuckDBConnection;
  /** What is published: the numbering starts after its high-water marks; unchanged datasets are not built. */
  readonly previous: Previous;
  readonly regions: readonly Region[];
  readonly maxRejects: number;
  /** Each dataset's rejects file: `<dir>/<folder>.csv`, with valid rows' warnings when `warnings`. */
  readonly rejects: { readonly dir: string; readonly warnings: boolean };
  readonly memory: IngestMemory;
  readonly log: Log;
  /** The published file's copy for the merge, made while the delta is built (merge.ts). */
  readonly copy?: Copy;
}

const quiet: Log = { info: () => {} };

/** Opens the build beside DUCKDB_PATH, its tables created, the published file attached and read. */
export async function openIngest(options: IngestOptions, regions: readonly Region[]): Promise<IngestBuild> {
  const memory = ingestMemory(options.memoryLimitBytes);
  const build = await openBuild(options.duckdbPath, { delta: true });
  const copy = build.delta ? startCopy(build.target) : undefined;
  try {
    const previous = await readPrevious(build.conn, build.hasPrevious);
    await createBuildTables(build.conn, memory);
    return {
      file: build,
      conn: build.conn,
      previous,
      regions,
      maxRejects: options.maxRejects ?? DEFAULT_MAX_REJECTS,
      rejects: { dir: options.rejectsDir ?? `${options.duckdbPath}.rejects`, warnings: options.rejectsWarnings ?? false },
      memory: { ...memory, batchBytes: options.batchBytes ?? memory.batchBytes },
      log: options.log ?? quiet,
      copy,
    };
  } catch (err) {
    await abandonBuild(build);
    await copy?.discard();
    throw err;
  }
}
