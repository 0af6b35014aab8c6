import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { STORE_LOCK } from '../schemas/publication.js';
import { runCompact } from './compact.js';
import { runIngest, runRemove, type Log } from './pipeline.js';
import { acquirePublishLock, PublishRefused, type PublishLock } from './publish-lock.js';
import { publishToStore, seedFromStore } from './publish-store.js';
import { DEFAULT_MAX_REJECTS, type Report } from './report.js';

/**
 * CLI, the only file with side effects:
 *   node --import tsx ingest/main.ts ingest          (env SRC, DUCKDB_PATH, REGIONS_FILE, REPORT, REPORT_MAX_REJECTS)
 *   node --import tsx ingest/main.ts remove <DOI>    (env DUCKDB_PATH, REPORT)
 *   node --import tsx ingest/main.ts compact         (env DUCKDB_PATH, REPORT)
 * With PUBLICATION_STORE set, what is published at DUCKDB_PATH (the working file) is then published into the store
 * that the API replicas serve from (publish-store.ts).
 * One publish at a time (publish-lock.ts): each holds `<DUCKDB_PATH>.lock`, and the store's lock, for the whole run,
 * waiting for another's at most INGEST_LOCK_TIMEOUT_MS.
 * Exit codes: 0 published · 1 nothing could be published (the reason is printed) · 2 usage · 3 refused: another
 * publish held the lock past INGEST_LOCK_TIMEOUT_MS, or the store's CURRENT moved (nothing published; run again).
 */

const USAGE = 'usage: main.ts ingest   (env SRC, DUCKDB_PATH, REGIONS_FILE, REPORT)\n       main.ts remove <DOI>\n       main.ts compact';

const log: Log = {
  info: (line) => process.stderr.write(`${line}\n`),
  ...(process.stderr.isTTY ? { progress: (line: string) => process.stderr.write(`  ${line}\n`) } : {}),
};

async function writeReport(report: Report): Promise<void> {
  const path = process.env.REPORT;
  if (!path) return;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
}

const DEFAULT_LOCK_TIMEOUT_MS = 600_000;

async function main(argv: readonly string[]): Promise<number> {
  const [command, arg] = argv;
  const duckdbPath = process.env.DUCKDB_PATH || 'data/tributary.duckdb';
  const store = process.env.PUBLICATION_STORE || undefined;
  const job = jobOf(command, arg, duckdbPath);
  if (typeof job === 'string') return usage(job || undefined);
  // `||`: an empty value (a compose file's `INGEST_LOCK_TIMEOUT_MS=`) is the default, not 0.
  const timeoutMs = Number(process.env.INGEST_LOCK_TIMEOUT_MS || DEFAULT_LOCK_TIMEOUT_MS);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 0) return usage('INGEST_LOCK_TIMEOUT_MS must be a whole number of milliseconds');
  const lockOptions = { timeoutMs, command: argv.join(' '), onWait: log.info };
  const locks: PublishLock[] = [];
  try {
    // Before the published file is read, until the new one is in place: the next publish builds on this one's result.
    locks.push(await acquirePublishLock(`${duckdbPath}.lock`, lockOptions));
    let base: string | null | undefined;
    if (store) {
      locks.push(await acquirePublishLock(join(store, STORE_LOCK), lockOptions));
      const seeded = await seedFromStore(store, duckdbPath);
      if (seeded.started) log.info(`started ${duckdbPath} from publication ${seeded.current} of ${store}`);
      base = seeded.current;
    }
    return await publish(await job(), duckdbPath, store, base);
  } finally {
    for (const lock of locks.reverse()) await lock.release();
  }
}

/** The run the command asks for, or why it is a usage error ('' for the bare usage). */
function jobOf(command: string | undefined, arg: string | undefined, duckdbPath: string): (() => Promise<Report>) | string {
  if (command === 'ingest' && arg === undefined) {
    const src = process.env.SRC;
    if (!src) return 'SRC is required';
    const maxRejects = Number(process.env.REPORT_MAX_REJECTS ?? DEFAULT_MAX_REJECTS);
    if (!Number.isInteger(maxRejects) || maxRejects < 0) return 'REPORT_MAX_REJECTS must be a whole number';
    return () => runIngest({ src, duckdbPath, regionsFile: process.env.REGIONS_FILE || undefined, maxRejects, log });
  }
  if (command === 'remove' && arg) return () => runRemove({ duckdbPath, doi: arg, log });
  if (command === 'compact' && arg === undefined) return () => runCompact({ duckdbPath, log });
  return '';
}

/** Reports the run; with a store, publishes the result into it if CURRENT still names `base`. */
async function publish(report: Report, duckdbPath: string, store: string | undefined, base: string | null | undefined): Promise<number> {
  await writeReport(report);
  for (const d of report.datasets) for (const w of d.warnings.slice(0, 20)) log.info(`warning: ${d.DOI ?? d.folder}: ${w.file ?? ''}${w.line ? `:${w.line}` : ''} ${w.message}`);
  if (!report.published) {
    for (const d of report.datasets) if (d.error) log.info(`${d.DOI ?? d.folder}: ${d.error}`);
    log.info(`nothing published: ${report.error ?? 'unknown reason'}; ${duckdbPath} is unchanged`);
    return 1;
  }
  if (store) {
    const publication = await publishToStore(store, duckdbPath, { id: report.publication, parent: base });
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
    process.stderr.write(`ingest failed, nothing published: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
