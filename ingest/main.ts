import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { runCompact } from './compact.js';
import { traceStatements } from './db.js';
import { runIngest, type Log } from './pipeline.js';
import { runRemove } from './remove.js';
import { publishToStore, seedFromStore } from './publish-store.js';
import type { Report } from './report.js';
import { loadIngestSettings, type IngestSettings } from './settings.js';

/**
 * CLI, the only file with side effects:
 *   node --import tsx ingest/main.ts ingest          (env SRC, DUCKDB_PATH, REGIONS_FILE, REPORT, REPORT_MAX_REJECTS)
 *   node --import tsx ingest/main.ts remove <DOI>    (env DUCKDB_PATH, REPORT)
 *   node --import tsx ingest/main.ts compact         (env DUCKDB_PATH, REPORT)
 * Every setting is read once, from the table in settings.ts. With PUBLICATION_STORE set, what is published at
 * DUCKDB_PATH (the working file) is then published into the store that the API replicas serve from
 * (publish-store.ts).
 * Exit codes: 0 published · 1 nothing could be published (the reason is printed) · 2 usage or an invalid setting.
 */

const USAGE = 'usage: main.ts ingest   (env SRC, DUCKDB_PATH, REGIONS_FILE, REPORT)\n       main.ts remove <DOI>\n       main.ts compact';

const log: Log = {
  info: (line) => process.stderr.write(`${line}\n`),
  ...(process.stderr.isTTY ? { progress: (line: string) => process.stderr.write(`  ${line}\n`) } : {}),
};

async function writeReport(path: string | undefined, report: Report): Promise<void> {
  if (!path) return;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
}

/** Runs one command; a number is a usage error's exit code. */
async function command(settings: IngestSettings, [name, arg]: readonly string[]): Promise<Report | number> {
  const common = { duckdbPath: settings.DUCKDB_PATH, log, memoryLimitBytes: settings.INGEST_MEMORY_LIMIT };
  if (name === 'ingest' && arg === undefined) {
    if (!settings.SRC) return usage('SRC is required');
    return await runIngest({ ...common, src: settings.SRC, regionsFile: settings.REGIONS_FILE, maxRejects: settings.REPORT_MAX_REJECTS });
  }
  if (name === 'remove' && arg) return await runRemove({ ...common, doi: arg });
  if (name === 'compact' && arg === undefined) return await runCompact(common);
  return usage();
}

async function main(argv: readonly string[]): Promise<number> {
  let settings: IngestSettings;
  try {
    settings = loadIngestSettings();
  } catch (err) {
    return usage((err as Error).message);
  }
  traceStatements(settings.INGEST_TRACE);
  const store = settings.PUBLICATION_STORE;
  if (store && ['ingest', 'remove', 'compact'].includes(argv[0] ?? '')) {
    const seeded = await seedFromStore(store, settings.DUCKDB_PATH);
    if (seeded) log.info(`started ${settings.DUCKDB_PATH} from publication ${seeded} of ${store}`);
  }
  const report = await command(settings, argv);
  if (typeof report === 'number') return report;
  await writeReport(settings.REPORT, report);
  for (const d of report.datasets) for (const w of d.warnings.slice(0, 20)) log.info(`warning: ${d.DOI ?? d.folder}: ${w.file ?? ''}${w.line ? `:${w.line}` : ''} ${w.message}`);
  if (!report.published) {
    for (const d of report.datasets) if (d.error) log.info(`${d.DOI ?? d.folder}: ${d.error}`);
    log.info(`nothing published: ${report.error ?? 'unknown reason'}; ${settings.DUCKDB_PATH} is unchanged`);
    return 1;
  }
  if (store) {
    const publication = await publishToStore(store, settings.DUCKDB_PATH, { id: report.publication });
    log.info(`published ${publication.id} into ${store} (${publication.objects[0]!.bytes} bytes): every replica serves it within seconds`);
  }
  return 0;
}

function usage(why?: string): number {
  process.stderr.write(`${why ? `${why}\n` : ''}${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`ingest failed, nothing published: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
