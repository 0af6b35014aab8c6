/**
 * METRICS_TEXTFILE: the real ingest CLI leaves its run's figures where a node exporter's textfile collector reads
 * them, checked by prometheus_client's parser against the run's own JSON report; a failed run says so and keeps
 * when the last success was.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../scripts/testing/prometheus-parse.js';
import type { Report } from './report.js';
import { runMetricsText } from './run-metrics.js';
import { loadIngestSettings } from './settings.js';
import { copyFixtures, startCli, tempDir } from './test-support.js';

describe('METRICS_TEXTFILE', () => {
  it('the CLI writes the run\'s rows, stages, datasets and publication; a failed run then says 0 and keeps the last success', async () => {
    const dir = await tempDir();
    const textfile = join(dir, 'textfile', 'tributary_ingest.prom');
    const env = { DUCKDB_PATH: join(dir, 'db', 'tributary.duckdb'), METRICS_TEXTFILE: textfile, REPORT: join(dir, 'report.json') };
    const ok = await startCli(['ingest'], { ...env, SRC: await copyFixtures(join(dir, 'src'), ['alpha', 'broken']) }).exit;
    expect(ok.code, ok.stderr).toBe(0);
    const report = JSON.parse(await readFile(env.REPORT, 'utf8')) as Report;
    const first = parsePrometheusText(await readFile(textfile, 'utf8'));
    const v = (name: string, labels: Record<string, string> = {}) => sampleValue(first, name, { command: 'ingest', ...labels });
    const sum = (pick: (d: Report['datasets'][number]) => number) => report.datasets.reduce((n, d) => n + pick(d), 0);
    expect(v('tributary_ingest_last_run_success')).toBe(1);
    expect(v('tributary_ingest_last_run_rows', { outcome: 'read' })).toBe(sum((d) => d.rowsRead));
    expect(v('tributary_ingest_last_run_rows', { outcome: 'loaded' })).toBe(sum((d) => d.rowsLoaded));
    expect(v('tributary_ingest_last_run_rows', { outcome: 'rejected' })).toBe(sum((d) => d.rowsRejected));
    expect(sum((d) => d.rowsRejected)).toBeGreaterThan(0); // the fixtures' broken dataset
    expect(v('tributary_ingest_last_run_datasets', { status: 'failed' })).toBe(report.datasets.filter((d) => d.status === 'failed').length);
    for (const [stage, ms] of Object.entries(report.timingsMs!)) expect(v('tributary_ingest_last_run_stage_seconds', { stage })).toBeCloseTo(ms / 1000, 6);
    expect(v('tributary_ingest_last_run_publication_info', { publication: report.publication! })).toBe(1);
    const finished = v('tributary_ingest_last_run_timestamp_seconds') as number;
    expect(Math.abs(finished - Date.now() / 1000)).toBeLessThan(600);
    expect(v('tributary_ingest_last_success_timestamp_seconds')).toBe(finished);

    const failed = await startCli(['ingest'], { ...env, SRC: join(dir, 'no-such-folder') }).exit;
    expect(failed.code).toBe(1);
    const second = parsePrometheusText(await readFile(textfile, 'utf8'));
    expect(sampleValue(second, 'tributary_ingest_last_run_success', { command: 'ingest' })).toBe(0);
    expect(sampleValue(second, 'tributary_ingest_last_success_timestamp_seconds', { command: 'ingest' })).toBe(finished);
    expect(sampleValue(second, 'tributary_ingest_last_run_publication_info')).toBeUndefined();
    // Replaced by a rename: no temporary file is left for the collector to find.
    expect(await readdir(join(dir, 'textfile'))).toEqual(['tributary_ingest.prom']);
  }, 300_000);

  it('keeps every command\'s last success when another command runs', () => {
    const at = (s: number) => new Date(s * 1000);
    const ingest = runMetricsText({ command: 'ingest', success: true, finishedAt: at(1000), durationMs: 5 });
    const remove = runMetricsText({ command: 'remove', success: true, finishedAt: at(2000), durationMs: 5 }, ingest);
    const failedIngest = parsePrometheusText(runMetricsText({ command: 'ingest', success: false, finishedAt: at(3000), durationMs: 5 }, remove));
    expect(sampleValue(failedIngest, 'tributary_ingest_last_success_timestamp_seconds', { command: 'ingest' })).toBe(1000);
    expect(sampleValue(failedIngest, 'tributary_ingest_last_success_timestamp_seconds', { command: 'remove' })).toBe(2000);
    expect(sampleValue(failedIngest, 'tributary_ingest_last_run_timestamp_seconds', { command: 'ingest' })).toBe(3000);
  });

  it('must name a .prom file, the only files the collector reads', () => {
    expect(() => loadIngestSettings({ METRICS_TEXTFILE: '/var/lib/node_exporter/tributary.txt' })).toThrow(/\.prom/);
    expect(loadIngestSettings({ METRICS_TEXTFILE: '/var/lib/node_exporter/tributary.prom' }).METRICS_TEXTFILE).toBe('/var/lib/node_exporter/tributary.prom');
  });
});
