import { abandonBuild, openBuild, startCopy } from './build-file.js';
import { createBuildTables } from './build-tables.js';
import { readPrevious } from './previous.js';
import type { Region } from './regions.js';
import { DEFAULT_MAX_REJECTS } from './report.js';
import { ingestMemory } from './settings.js';
import type { TrendSettings } from './trends/trend-periods.js';
import type { IngestBuild, Log } from './stage-parts.js';

/**
 * Stage 2 (open): the build context (stage-parts.ts, IngestBuild) over a new build file beside DUCKDB_PATH
 * (build-file.ts), with what is published read and, when there is a publication, its copy for the merge started.
 */

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
  /** PUBLICATION_RETENTION_MS: how long dataset files no publication lists stay (dataset-files.ts, collectFiles). */
  readonly retentionMs?: number;
  /**
   * Compare the new and changed datasets with the guidelines (default true). Only the bench turns it off, to report
   * the cost of a publish with and without comparisons; the guidelines table is loaded either way.
   */
  readonly guidelineComparisons?: boolean;
  /** TRENDS_END_YEAR and TRENDS_PERIODS (default: the hub's latest year; 5, 10 and 15 years). */
  readonly trends?: TrendSettings;
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
      retentionMs: options.retentionMs ?? 0,
      copy,
    };
  } catch (err) {
    await abandonBuild(build);
    await copy?.discard();
    throw err;
  }
}
