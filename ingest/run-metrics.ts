/**
 * A run's figures for Prometheus (METRICS_TEXTFILE): a node exporter's textfile collector reads every `*.prom` file
 * of its directory at each scrape, so ingest, a job that is not running when scraped, leaves its last run there.
 * The file is replaced whole (written beside it, then renamed over it) so the collector never reads half a file.
 *
 * The last successful run's time is carried over from the file a failed run replaces: "no publish for a day" is the
 * alert an operator wants, and a failure must not erase when the last success was.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { renderFamilies, type MetricFamily } from '../schemas/prometheus-text.js';
import type { Report } from './report.js';

export interface RunFigures {
  /** `ingest`, `remove` or `compact`. */
  readonly command: string;
  /** Published (exit 0). */
  readonly success: boolean;
  /** The run's report, when it got that far. */
  readonly report?: Report | undefined;
  readonly finishedAt: Date;
  /** Wall time of the whole run, lock waits included. */
  readonly durationMs: number;
}

const LAST_SUCCESS = 'tributary_ingest_last_success_timestamp_seconds';

/** The run as exposition text; `previous` is the file it replaces, whose last successes other runs keep. */
export function runMetricsText(run: RunFigures, previous = ''): string {
  const command = run.command;
  const at = run.finishedAt.getTime() / 1000;
  const gauge = (name: string, help: string, samples: MetricFamily['samples']): MetricFamily => ({ name, help, type: 'gauge', samples });
  const successes = lastSuccesses(previous);
  if (run.success) successes.set(command, at);
  const report = run.report;
  const datasets = report?.datasets ?? [];
  const rows = (pick: (d: Report['datasets'][number]) => number) => datasets.reduce((n, d) => n + pick(d), 0);
  const statuses = new Map<string, number>();
  for (const d of datasets) statuses.set(d.status, (statuses.get(d.status) ?? 0) + 1);
  return renderFamilies([
    gauge('tributary_ingest_last_run_timestamp_seconds', 'When the last run (ingest, remove or compact) finished, in seconds since the epoch.', [{ labels: { command }, value: at }]),
    gauge('tributary_ingest_last_run_success', 'Whether the last run published (1) or published nothing (0: the published hub is unchanged).', [{ labels: { command }, value: run.success ? 1 : 0 }]),
    gauge('tributary_ingest_last_run_duration_seconds', 'Wall time of the last run, waiting for the publish lock included.', [{ labels: { command }, value: run.durationMs / 1000 }]),
    gauge('tributary_ingest_last_run_rows', 'Rows of the last run: outcome="read" in the source files, "loaded" into the hub, "rejected" (the report and rejects files say why).', report ? [
      { labels: { command, outcome: 'read' }, value: rows((d) => d.rowsRead) },
      { labels: { command, outcome: 'loaded' }, value: rows((d) => d.rowsLoaded) },
      { labels: { command, outcome: 'rejected' }, value: rows((d) => d.rowsRejected) },
    ] : []),
    gauge('tributary_ingest_last_run_datasets', 'Datasets of the last run by status: loaded, unchanged, failed, removed.', [...statuses].map(([status, n]) => ({ labels: { command, status }, value: n }))),
    gauge('tributary_ingest_last_run_stage_seconds', 'Wall time of each stage of the last run (read, open, load, derive, statistics, guidelines, trends, files, publish).', Object.entries(report?.timingsMs ?? {}).map(([stage, ms]) => ({ labels: { command, stage }, value: ms / 1000 }))),
    gauge('tributary_ingest_last_run_publication_info', 'The publication the last run wrote (value 1).', report?.published && report.publication ? [{ labels: { command, publication: report.publication }, value: 1 }] : []),
    gauge(LAST_SUCCESS, 'When a run of this command last published, in seconds since the epoch (kept across failed runs).', [...successes].map(([cmd, t]) => ({ labels: { command: cmd }, value: t }))),
  ]);
}

/** The last successes a previous file recorded, by command. */
function lastSuccesses(previous: string): Map<string, number> {
  const found = new Map<string, number>();
  const line = new RegExp(`^${LAST_SUCCESS}\\{command="([a-z]+)"\\} ([0-9.e+]+)$`, 'gm');
  for (const m of previous.matchAll(line)) found.set(m[1]!, Number(m[2]));
  return found;
}

/** Replaces `path` with the run's figures: a temporary file in the same directory (the collector reads only `*.prom`), then a rename. */
export async function writeRunMetrics(path: string, run: RunFigures): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const previous = await readFile(path, 'utf8').catch(() => '');
  const temp = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temp, runMetricsText(run, previous));
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
