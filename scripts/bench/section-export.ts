/**
 * §1e whole-result exports: every Records row in one response (`/v1/export/Records`), pulled to a file on disk by
 * curl (a real client, in a process of its own), against DuckDB's own COPY of the same rows to the same format into
 * a file on the same disk. The Parquet reference runs the export's own compiled query and COPY options; CSV and
 * NDJSON compare with §1's references (COPY of the Records columns). Beside the Parquet pull: the paged pull of the
 * same rows at the API's default budget of rows (PAGE_ROWS_PER_SECOND, bursts of PAGE_ROWS_BURST), whose floor is the
 * rows over that rate whatever the server's speed, and the paged JSON extract §1 measured without a rate limit.
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { getResource } from '../../schemas/index.js';
import { parseQuery } from '../../services/api/odata/index.js';
import { compileExport } from '../../services/api/query/compile-export.js';
import { planQuery, type PagePlan } from '../../services/api/query/plan.js';
import type { DuckDBValue } from '@duckdb/node-api';
import { apiSettings } from '../../services/api/config.js';
import { BENCH_API_KEY, readRss, sampleRss } from './api-process.js';
import { summary, type Context } from './context.js';
import { duckCopy, TEXT_TO_NULL } from './reference.js';
import { verdict } from './table.js';

const run = promisify(execFile);
const MB = 1e6;
const mb = (bytes: number) => (Number.isNaN(bytes) ? '?' : (bytes / MB).toFixed(0));
/** The API's defaults (services/api/config.ts): what a paged pull is held to, however fast the server is. */
const ROWS_PER_SECOND = Number(apiSettings.PAGE_ROWS_PER_SECOND.default);
const ROWS_BURST = Number(apiSettings.PAGE_ROWS_BURST.default);
const PAGE = 10_000;
const FORMATS = ['parquet', 'csv', 'ndjson'] as const;
type Format = (typeof FORMATS)[number];
const LABELS: Record<Format, string> = { parquet: 'Parquet', csv: 'CSV', ndjson: 'NDJSON' };

interface Pull {
  readonly ms: number;
  readonly bytes: number;
  readonly count: number;
}

/** curl -o <file>: status, X-Total-Count and wall time of the whole transfer to disk. */
async function curlPull(url: string, file: string): Promise<Pull> {
  const t0 = performance.now();
  const { stdout } = await run('curl', ['-sS', '--fail-with-body', '-o', file, '-D', '-', '-w', 'downloaded: %{size_download}\n', '-H', `x-api-key: ${BENCH_API_KEY}`, url], { maxBuffer: 1 << 20 });
  const ms = performance.now() - t0;
  const count = Number(/^x-total-count:\s*(\d+)/im.exec(stdout)?.[1] ?? NaN);
  return { ms, bytes: Number(/^downloaded: (\d+)/m.exec(stdout)?.[1] ?? NaN), count };
}

export async function exportSection(ctx: Context): Promise<void> {
  const { settings, base, duck, filters, figures, log } = ctx;
  const total = filters.totalRows;
  // Parquet always to disk (the end-to-end figure is a pull to a file); text to /dev/null with BENCH_TEXT_TO_NULL=1.
  // Never rm or stat /dev/null: Parquet files (the pull's and the reference's) are always real files.
  const toNull = (ext: string) => TEXT_TO_NULL && !ext.endsWith('parquet');
  const file = (ext: string) => (toNull(ext) ? '/dev/null' : `/tmp/tributary-bench-export-${process.pid}.${ext}`);
  const sink = (ext: string) => (toNull(ext) ? '/dev/null' : 'disk');
  const rps = (rs: readonly { ms: number }[]) => rs.map((r) => total / (r.ms / 1000));
  const pulls: Record<string, Pull[]> = {};

  const plan = planQuery(parseQuery(''), getResource('Records')!) as PagePlan;
  const parquet = compileExport(plan, 'parquet');
  if (parquet.kind !== 'copy') throw new Error('a Parquet export is written by COPY');
  const references: Record<Format, () => Promise<{ ms: number; bytes: number }>> = {
    parquet: async () => {
      const { ms } = await duck.timed(`COPY (${parquet.query.sql}) TO '${file('ref.parquet')}' (${parquet.options})`, parquet.query.params as DuckDBValue[]);
      const bytes = statSync(file('ref.parquet')).size;
      await rm(file('ref.parquet'), { force: true });
      return { ms, bytes };
    },
    csv: () => duckCopy(duck, 'csv'),
    ndjson: () => duckCopy(duck, 'json'),
  };
  const refs: Record<string, { ms: number; bytes: number }[]> = {};
  // The API's RSS over every export: flat means the largest sample stays near the RSS before the first one.
  const rssBefore = readRss(ctx.apiPid)?.rssMB ?? NaN;
  const sampler = sampleRss(ctx.apiPid);
  for (const format of FORMATS) {
    log(`§1e export: ${settings.extractRuns} run(s) of /v1/export/Records as ${format} (${total} rows, curl to ${sink(format)}), each beside DuckDB's COPY to ${format}`);
    pulls[format] = [];
    refs[format] = [];
    // Export and reference back to back, in alternating order: both see the same moment of the machine's load.
    for (let i = 0; i < settings.extractRuns; i++) {
      const pull = async () => {
        const p = await curlPull(`${base}/v1/export/Records?$format=${format}`, file(format));
        if (p.count !== total) throw new Error(`export ${format}: X-Total-Count ${p.count}, expected ${total}`);
        if (format === 'parquet') {
          const { rows } = await duck.timed(`SELECT count(*) AS n FROM read_parquet('${file(format)}')`);
          if (Number(rows[0]?.['n']) !== total) throw new Error(`export parquet holds ${String(rows[0]?.['n'])} rows, expected ${total}`);
        }
        if (!toNull(format)) await rm(file(format), { force: true });
        pulls[format]!.push(p);
      };
      const ref = async () => void refs[format]!.push(await references[format]());
      if (i % 2 === 0) (await pull(), await ref());
      else (await ref(), await pull());
    }
  }
  const rss = sampler.stop();
  const rssMax = Math.max(...rss.samples.map((x) => x.rssMB));
  const [copyParquet, copyCsv, copyJson] = [refs['parquet']!, refs['csv']!, refs['ndjson']!];

  const row = (format: Format, pullRuns: Pull[], ref: { ms: number; bytes: number }[], refName: string, target?: number) => {
    const ratio = summary(rps(pullRuns)).median / summary(rps(ref)).median;
    figures.push({
      section: '1e',
      name: `HTTP /v1/export/Records as ${LABELS[format]}, curl to ${sink(format)}`,
      unit: 'rows/s',
      value: summary(rps(pullRuns)),
      ratio,
      ratioOf: refName,
      ...(target ? { target: `≥ ${target}× ${refName}`, verdict: verdict(ratio >= target) } : { verdict: 'info' as const }),
      note: `${(pullRuns[0]!.bytes / MB).toFixed(0)} MB in ${(summary(pullRuns.map((p) => p.ms)).median / 1000).toFixed(1)} s; ${refName} ${(summary(ref.map((r) => r.ms)).median / 1000).toFixed(1)} s, ${mb(ref[0]!.bytes)} MB`,
    });
  };
  row('parquet', pulls['parquet']!, copyParquet, 'COPY TO parquet', 0.8);
  row('csv', pulls['csv']!, copyCsv, 'COPY TO CSV', 0.8);
  row('ndjson', pulls['ndjson']!, copyJson, 'COPY TO NDJSON');

  // The end-to-end figure: a 10M-row pull to disk, ≤ 30 s as Parquet (issue #29); at other sizes it is shown, not judged.
  const parquetS = summary(pulls['parquet']!.map((p) => p.ms)).median / 1000;
  const pages = Math.ceil(total / PAGE);
  const floorS = Math.max(0, total - ROWS_BURST) / ROWS_PER_SECOND;
  const json = (ctx.details['extract'] as { json?: { ms: number }[] } | undefined)?.json;
  const pagedS = json ? summary(json.map((r) => r.ms)).median / 1000 : undefined;
  figures.push({
    section: '1e',
    name: `${total} rows to a file on disk: one Parquet export`,
    unit: 's',
    value: summary([parquetS]),
    ...(total === 10_000_000 ? { target: '≤ 30 s at 10M rows', verdict: verdict(parquetS <= 30) } : { verdict: 'info' as const }),
    note: `the paged pull of the same rows: ${pages} pages of ${PAGE}, at least ${floorS.toFixed(0)} s at the default ${ROWS_PER_SECOND} rows/s${pagedS ? `; ${pagedS.toFixed(1)} s unthrottled as JSON (§1)` : ''}`,
  });
  figures.push({
    section: '1e',
    name: 'API RSS during the exports (largest sample, every 100 ms)',
    unit: 'MB',
    value: summary([rssMax]),
    verdict: 'info',
    note: `${rssBefore.toFixed(0)} MB before the first export, ${rssMax.toFixed(0)} MB at most while ${FORMATS.length} formats × ${settings.extractRuns} run(s) of ${total} rows streamed`,
  });
  ctx.details['export'] = { rssBeforeMB: rssBefore, rssSamples: rss.samples.filter((_, k) => k % 10 === 0), pulls, copyParquet, copyCsv, copyJson, pagedFloorS: floorS };
}
