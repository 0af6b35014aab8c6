import { existsSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { STORE_LOCK } from '../schemas/publication.js';
import { runCompact } from './compact.js';
import { traceStatements } from './db.js';
import { failureMessage } from './failure-message.js';
import { runIngest, type Log } from './pipeline.js';
import { acquirePublishLock, PublishRefused, type PublishLock } from './publish-lock.js';
import { publishToStore, seedFromStore } from './publish-store.js';
import { runRemove } from './remove.js';
import type { Report } from './report.js';
import { writeRunMetrics } from './run-metrics.js';
import { loadIngestSettings, trendSettings, type IngestSettings } from './settings.js';

/**
 * CLI, the only file with side effects:
 *   node --import tsx ingest/main.ts ingest          (env SRC, DUCKDB_PATH, REGIONS_FILE, REPORT, REPORT_MAX_REJECTS)
 *   node --import tsx ingest/main.ts remove <DOI>    (env DUCKDB_PATH, REPORT)
 *   node --import tsx ingest/main.ts compact         (env DUCKDB_PATH, REPORT)
 * Every setting is read once, from the table in settings.ts. With PUBLICATION_STORE set, what is published at
 * DUCKDB_PATH (the working file) is then published into the store that the API replicas serve from
 * (publish-store.ts).
 * One publish at a time (publish-lock.ts): each holds `<DUCKDB_PATH>.lock`, and the store's lock, for the whole run,
 * waiting for another's at most INGEST_LOCK_TIMEOUT_MS.
 * Exit codes: 0 published · 1 nothing could be published (the reason is printed) · 2 usage or an invalid setting ·
 * 3 refused: another publish held the lock past INGEST_LOCK_TIMEOUT_MS, or the store's CURRENT moved (nothing
 * published; run again).
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

/** The run the command asks for, or why it is a usage error ('' for the bare usage). */
function jobOf(settings: IngestSettings, [name, arg]: readonly string[]): (() => Promise<Report>) | string {
  const common = { duckdbPath: settings.DUCKDB_PATH, log, memoryLimitBytes: settings.INGEST_MEMORY_LIMIT, retentionMs: settings.PUBLICATION_RETENTION_MS, trends: trendSettings(settings) };
  if (name === 'ingest' && arg === undefined) {
    const src = settings.SRC;
    if (!src) return 'SRC is required';
    return () => runIngest({ ...common, src, regionsFile: settings.REGIONS_FILE, doiPattern: settings.DOI_PATTERN, rejectsDir: settings.REJECTS_DIR, rejectsWarnings: settings.REJECTS_WARNINGS, maxRejects: settings.REPORT_MAX_REJECTS });
  }
  if (name === 'remove' && arg) return () => runRemove({ ...common, doi: arg });
  if (name === 'compact' && arg === undefined) return () => runCompact(common);
  return '';
}

/** The settings of this run, once read: the failure message names the paths they point at. */
let loaded: IngestSettings | undefined;

async function main(argv: readonly string[]): Promise<number> {
  let settings: IngestSettings;
  try {
    settings = loaded = loadIngestSettings();
  } catch (err) {
    return usage((err as Error).message);
  }
  traceStatements(settings.INGEST_TRACE);
  const job = jobOf(settings, argv);
  if (typeof job === 'string') return usage(job || undefined);
  const store = settings.PUBLICATION_STORE;
  const lockOptions = { timeoutMs: settings.INGEST_LOCK_TIMEOUT_MS, command: argv.join(' '), onWait: log.info };
  const locks: PublishLock[] = [];
  const started = performance.now();
  let report: Report | undefined;
  let code = 1;
  try {
    // Before the published file is read, until the new one is in place: the next publish builds on this one's result.
    locks.push(await acquirePublishLock(`${settings.DUCKDB_PATH}.lock`, lockOptions));
    let base: string | null | undefined;
    if (store) {
      locks.push(await acquirePublishLock(join(store, STORE_LOCK), lockOptions));
      const seeded = await seedFromStore(store, settings.DUCKDB_PATH);
      if (seeded.started) log.info(`started ${settings.DUCKDB_PATH} from publication ${seeded.current} of ${store}`);
      base = seeded.current;
    }
    report = await job();
    code = await publish(report, settings, base);
    return code;
  } finally {
    for (const lock of locks.reverse()) await lock.release();
    await recordRun(settings.METRICS_TEXTFILE, { command: argv[0]!, success: code === 0, report, finishedAt: new Date(), durationMs: performance.now() - started });
  }
}

/** The run's figures for Prometheus (METRICS_TEXTFILE); a file that cannot be written is a warning, not a failed run. */
async function recordRun(path: string | undefined, run: Parameters<typeof writeRunMetrics>[1]): Promise<void> {
  if (!path) return;
  await writeRunMetrics(path, run).catch((err: Error) => log.info(`warning: could not write METRICS_TEXTFILE ${path}: ${err.message}`));
}

/** Reports the run; with a store, publishes the result into it if CURRENT still names `base`. */
async function publish(report: Report, settings: IngestSettings, base: string | null | undefined): Promise<number> {
  await writeReport(settings.REPORT, report);
  for (const d of report.datasets) for (const w of d.warnings.slice(0, 20)) log.info(`warning: ${d.DOI ?? d.folder}: ${w.file ?? ''}${w.line ? `:${w.line}` : ''} ${w.message}`);
  if (!report.published) {
    for (const d of report.datasets) if (d.error) log.info(`${d.DOI ?? d.folder}: ${d.error}${d.rejectsFile ? ` (every reject: ${d.rejectsFile})` : ''}`);
    log.info(`nothing published: ${report.error ?? 'unknown reason'}; ${settings.DUCKDB_PATH} is unchanged`);
    return 1;
  }
  const store = settings.PUBLICATION_STORE;
  if (store) {
    const publication = await publishToStore(store, settings.DUCKDB_PATH, { id: report.publication, parent: base, retentionMs: settings.PUBLICATION_RETENTION_MS });
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
    if (err instanceof PublishRefused) {
      process.stderr.write(`refused: ${err.message}\n`);
      process.exit(3);
    }
    const settings = loaded;
    const duckdbPath = settings?.DUCKDB_PATH ?? 'DUCKDB_PATH';
    const publishedBytes = settings && existsSync(duckdbPath) ? statSync(duckdbPath).size : undefined;
    process.stderr.write(`${failureMessage(err, { duckdbPath, store: settings?.PUBLICATION_STORE, publishedBytes })}\n`);
    process.exit(1);
  },
);
