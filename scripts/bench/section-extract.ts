/** §1 extract (JSON, CSV, Arrow over HTTP against DuckDB's COPY) and §5 the API's memory during it. */
import { sampleRss } from './api-process.js';
import { repeat, summary, type Context } from './context.js';
import { url } from './extract.js';
import { duckCopy, TEXT_TO_NULL } from './reference.js';
import { verdict } from './table.js';

const MB = 1e6;
/** Where a missed extract target's time goes: the design's analysis, measured (not restated here). */
const WHERE_THE_TIME_GOES = 'where the time goes: docs/performance.md, §1 extract';

export async function extractSection(ctx: Context): Promise<void> {
  const { settings, client, base, duck, filters, figures, log } = ctx;
  const total = filters.totalRows;
  const first = (format: string) => url(base, 'Records', { $top: '10000', ...(format === 'json' ? {} : { $format: format }) });

  // §5 rides on the first measured JSON run: RSS every 100 ms, and at pages 100 and 1000 (10 and 100 when quick).
  const marks = settings.quick ? [10, 100] : [100, 1000];
  const rssAt: Record<number, number> = {};
  log(`§1 JSON extract: warm-up (20 pages), ${settings.extractRuns} run(s) of ${total} rows`);
  await client.extract(first('json'), 'json', { maxPages: 20 });
  const json = [];
  for (let i = 0; i < settings.extractRuns; i++) {
    const sampler = i === 0 ? sampleRss(ctx.apiPid) : undefined;
    const r = await client.extract(first('json'), 'json', { marks, onMark: (p) => sampler && (rssAt[p] = sampler.now()) });
    const rss = sampler?.stop();
    if (r.rows !== total) throw new Error(`JSON extract returned ${r.rows} rows, expected ${total}`);
    json.push(r);
    if (rss) ctx.details['rss'] = { peakMB: rss.peakMB, rssAtPage: rssAt, samples: rss.samples.filter((_, k) => k % 10 === 0) };
    log(`  ${(r.ms / 1000).toFixed(1)} s, ${Math.round(r.rows / (r.ms / 1000))} rows/s`);
  }
  // CSV and Arrow read every row when quick (1M) or BENCH_FULL_FORMATS=1; else the first 100 pages (1M rows),
  // which keeps the 10M run near 25 minutes: their per-page cost does not depend on the offset (see §2).
  const formatPages = settings.quick || settings.fullFormats ? Infinity : 100;
  const formatRows = Math.min(total, formatPages * 10_000);
  log(`§1 CSV extract: ${settings.extractRuns} run(s) of ${formatRows} rows`);
  await client.extract(first('csv'), 'csv', { maxPages: 20 });
  const csv = await repeat(settings.extractRuns, 0, async () => {
    const r = await client.extract(first('csv'), 'csv', { maxPages: formatPages });
    if (r.rows !== formatRows) throw new Error(`CSV extract returned ${r.rows} rows, expected ${formatRows}`);
    return r;
  });
  log(`§1 DuckDB COPY TO JSON and CSV`);
  if (settings.quick) await duckCopy(duck, 'json');
  const copyJson = await repeat(settings.extractRuns, 0, () => duckCopy(duck, 'json'));
  const copyCsv = await repeat(settings.extractRuns, 0, () => duckCopy(duck, 'csv'));

  const rps = (rs: readonly { ms: number; rows?: number }[]) => rs.map((r) => (r.rows === undefined || Number.isNaN(r.rows) ? total : r.rows) / (r.ms / 1000));
  const mbps = (rs: readonly { ms: number; bytes: number }[]) => rs.map((r) => r.bytes / MB / (r.ms / 1000));
  const jsonRatio = summary(rps(json)).median / summary(rps(copyJson)).median;
  const csvRatio = summary(rps(csv)).median / summary(rps(copyCsv)).median;
  figures.push(
    { section: '1', name: 'HTTP /Records JSON extract ($top=10000, nextLink)', unit: 'rows/s', value: summary(rps(json)), target: '≥ 1× COPY NDJSON', ratio: jsonRatio, ratioOf: 'COPY JSON', verdict: verdict(jsonRatio >= 1), note: `${summary(mbps(json)).median.toFixed(0)} MB/s, ${(json[0]!.bytes / MB).toFixed(0)} MB${jsonRatio >= 1 ? '' : `; ${WHERE_THE_TIME_GOES}`}` },
    { section: '1', name: 'HTTP /Records JSON extract', unit: 'MB/s', value: summary(mbps(json)), verdict: 'info' },
    { section: '1', name: `HTTP /Records CSV extract ($format=csv)${formatRows < total ? `, first ${formatRows} rows` : ''}`, unit: 'rows/s', value: summary(rps(csv)), target: '≥ 0.8× COPY CSV', ratio: csvRatio, ratioOf: 'COPY CSV', verdict: verdict(csvRatio >= 0.8), note: `${(csv[0]!.bytes / MB).toFixed(0)} MB${csvRatio >= 0.8 ? '' : `; ${WHERE_THE_TIME_GOES}`}` },
    { section: '1', name: 'HTTP /Records CSV extract', unit: 'MB/s', value: summary(mbps(csv)), verdict: 'info' },
    { section: '1', name: 'DuckDB COPY TO NDJSON (same columns, Id order)', unit: 'rows/s', value: summary(rps(copyJson)), verdict: 'info', note: TEXT_TO_NULL ? 'to /dev/null' : `${summary(mbps(copyJson)).median.toFixed(0)} MB/s` },
    { section: '1', name: 'DuckDB COPY TO CSV', unit: 'rows/s', value: summary(rps(copyCsv)), verdict: 'info', note: TEXT_TO_NULL ? 'to /dev/null' : `${summary(mbps(copyCsv)).median.toFixed(0)} MB/s` },
  );
  const arrow = await client.http.get(url(base, 'Records', { $top: '1', $format: 'arrow' }), { whole: true });
  if (arrow.status === 200) {
    await client.extract(first('arrow'), 'arrow', { maxPages: 20 });
    const runs = await repeat(settings.extractRuns, 0, async () => {
      const r = await client.extract(first('arrow'), 'arrow', { maxPages: formatPages });
      if (r.pages !== Math.ceil(formatRows / 10_000)) throw new Error(`Arrow extract ended after ${r.pages} pages`);
      return { ...r, rows: formatRows };
    });
    // Arrow against the paged JSON extract's rows/s in the same run (issue #29: ≥ 3× JSON).
    const arrowRatio = summary(rps(runs)).median / summary(rps(json)).median;
    figures.push(
      { section: '1', name: `HTTP /Records Arrow extract ($format=arrow)${formatRows < total ? `, first ${formatRows} rows` : ''}`, unit: 'rows/s', value: summary(rps(runs)), target: '≥ 3× JSON extract', ratio: arrowRatio, ratioOf: 'JSON extract', verdict: verdict(arrowRatio >= 3), note: `${(runs[0]!.bytes / MB).toFixed(0)} MB${arrowRatio >= 3 ? '' : `; ${WHERE_THE_TIME_GOES}`}` },
      { section: '1', name: 'HTTP /Records Arrow extract', unit: 'MB/s', value: summary(mbps(runs)), verdict: 'info' },
    );
    ctx.details['arrow'] = runs;
  } else {
    ctx.details['arrow'] = `not measured: $format=arrow answers ${arrow.status} (${arrow.body?.slice(0, 160)})`;
  }
  ctx.details['extract'] = { json, csv, copyJson, copyCsv };

  const rss = ctx.details['rss'] as { peakMB: number; rssAtPage: Record<number, number> };
  const [a, b] = [rss.rssAtPage[marks[0]!] ?? NaN, rss.rssAtPage[marks[1]!] ?? NaN];
  const one = (v: number) => ({ median: v, min: v, max: v, runs: 1 });
  figures.push(
    { section: '5', name: 'API peak RSS during the JSON extract', unit: 'MB', value: one(rss.peakMB), target: '< 300 MB', verdict: verdict(rss.peakMB < 300) },
    { section: '5', name: `API RSS growth page ${marks[0]} → ${marks[1]}`, unit: 'MB', value: one(b - a), target: 'flat (≤ 10%)', verdict: verdict(b - a <= a * 0.1), note: `${a.toFixed(0)} → ${b.toFixed(0)} MB` },
  );
}
