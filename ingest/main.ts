import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { runCompact } from './compact.js';
import { runIngest, runRemove, type Log } from './pipeline.js';
import { publishToStore, seedFromStore } from './publish-store.js';
import { DEFAULT_MAX_REJECTS, type Report } from './report.js';

/**
 * CLI, the only file with side effects:
 *   node --import tsx ingest/main.ts ingest          (env SRC, DUCKDB_PATH, REGIONS_FILE, REPORT, REPORT_MAX_REJECTS)
 *   node --import tsx ingest/main.ts remove <DOI>    (env DUCKDB_PATH, REPORT)
 *   node --import tsx ingest/main.ts compact         (env DUCKDB_PATH, REPORT)
 * With PUBLICATION_STORE set, what is published at DUCKDB_PATH (the working file) is then published into the store
 * that the API replicas serve from (publish-store.ts).
 * Exit codes: 0 published · 1 nothing could be published (the reason is printed) · 2 usage.
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

async function main(argv: readonly string[]): Promise<number> {
  const [command, arg] = argv;
  const duckdbPath = process.env.DUCKDB_PATH || 'data/tributary.duckdb';
  const store = process.env.PUBLICATION_STORE || undefined;
  if (store && (command === 'ingest' || command === 'remove' || command === 'compact')) {
    const seeded = await seedFromStore(store, duckdbPath);
    if (seeded) log.info(`started ${duckdbPath} from publication ${seeded} of ${store}`);
  }
  let report: Report;
  if (command === 'ingest' && arg === undefined) {
    const src = process.env.SRC;
    if (!src) return usage('SRC is required');
    const maxRejects = Number(process.env.REPORT_MAX_REJECTS ?? DEFAULT_MAX_REJECTS);
    if (!Number.isInteger(maxRejects) || maxRejects < 0) return usage('REPORT_MAX_REJECTS must be a whole number');
    report = await runIngest({ src, duckdbPath, regionsFile: process.env.REGIONS_FILE || undefined, maxRejects, log });
  } else if (command === 'remove' && arg) {
    report = await runRemove({ duckdbPath, doi: arg, log });
  } else if (command === 'compact' && arg === undefined) {
    report = await runCompact({ duckdbPath, log });
  } else {
    return usage();
  }
  await writeReport(report);
  for (const d of report.datasets) for (const w of d.warnings.slice(0, 20)) log.info(`warning: ${d.DOI ?? d.folder}: ${w.file ?? ''}${w.line ? `:${w.line}` : ''} ${w.message}`);
  if (!report.published) {
    for (const d of report.datasets) if (d.error) log.info(`${d.DOI ?? d.folder}: ${d.error}`);
    log.info(`nothing published: ${report.error ?? 'unknown reason'}; ${duckdbPath} is unchanged`);
    return 1;
  }
  if (store) {
    const publication = await publishToStore(store, duckdbPath, { id: report.publication });
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
