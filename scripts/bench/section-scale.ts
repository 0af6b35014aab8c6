/**
 * The scale table: how each cost grows with the hub. For each size (1M and 10M rows by default, and ROWS when it
 * is larger, e.g. 100M; BENCH_SCALE lists them) its own cached sample and database: ingest rows/s and peak RSS,
 * file size, pages at the first/50%/95% positions and counts (§2 and §4 as they are, every filter), and the JSON
 * extract of the first 100 pages against DuckDB's COPY of the same rows to NDJSON, measured in the same run.
 */
import { stat } from 'node:fs/promises';
import { BENCH_API_KEY, sampleRss, startApi } from './api-process.js';
import { BARE_LOAD_RATIO_TARGET, bareLoadRatio, ensureCache, filesRatio, FILES_RATIO_TARGET, INGEST_PEAK_RSS_TARGET, type IngestTiming } from './cache.js';
import { openClient } from './client.js';
import { repeat, summary, type Context, type Settings } from './context.js';
import { openDuck } from './duck.js';
import { url } from './extract.js';
import { discoverFilters } from './filters.js';
import { duckCopy } from './reference.js';
import { countsSection } from './section-counts.js';
import { pagesSection, type PageCase } from './section-pages.js';
import type { Figure } from './table.js';

/** Pages of the bounded extract (1M rows): an extract of 100M rows would take too long at every run. */
const EXTRACT_PAGES = 100;
const MARKS = [10, 100] as const;

export interface ScaleRow {
  readonly rows: number;
  readonly ingest: IngestTiming;
  readonly fileMB: number;
  /** Slowest median over every page filter and resource, per position. */
  readonly pageMs: Record<PageCase['position'], number>;
  /** Largest median of a 50% or 95% page ÷ its own first page. */
  readonly worstPageRatio: number;
  /** Slowest median `$count` (Records, Locations, Metadata). */
  readonly countMs: number;
  readonly extract: { readonly rows: number; readonly rowsPerSecond: number; readonly copyRowsPerSecond: number; readonly ratio: number; readonly rssMB: readonly [number, number] };
  /** Targets missed, in words; empty when every one holds. */
  readonly misses: readonly string[];
  /** Every figure of §2 and §4 at this size. */
  readonly figures: readonly Figure[];
}

/** BENCH_SCALE: `0` none, else a comma-separated list of row counts; unset: 1M (quick) or 1M, 10M and ROWS if larger. */
export function scaleSizes(raw: string | undefined, settings: Settings): number[] {
  if (raw === '0') return [];
  if (raw) {
    return raw.split(',').map((s) => {
      const n = Number(s.trim().replace(/_/g, ''));
      if (!Number.isSafeInteger(n) || n < 1000) throw new Error(`BENCH_SCALE must be 0 or row counts (≥ 1000) separated by commas, got '${raw}'`);
      return n;
    });
  }
  return settings.quick ? [1_000_000] : [...new Set([1_000_000, 10_000_000, Math.max(settings.rows, 10_000_000)])];
}

export async function scaleSection(settings: Settings, sizes: readonly number[], log: (line: string) => void): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  for (const size of sizes) {
    log(`scale: ${size} rows`);
    rows.push(await measureSize({ ...settings, rows: size }, log));
  }
  return rows;
}

async function measureSize(settings: Settings, log: (line: string) => void): Promise<ScaleRow> {
  const cache = await ensureCache(settings.rows, settings.seed, false, log);
  const fileMB = (await stat(cache.duckdbPath)).size / 1e6;
  const duck = await openDuck(cache.duckdbPath);
  const api = await startApi(cache.duckdbPath);
  const client = await openClient({ 'x-api-key': BENCH_API_KEY });
  try {
    const filters = await discoverFilters(duck);
    if (filters.totalRows !== settings.rows) throw new Error(`${cache.duckdbPath} holds ${filters.totalRows} rows, expected ${settings.rows}`);
    const ctx: Context = { settings, base: api.base, apiPid: api.pid, client, duck, filters, figures: [], details: {}, log };
    log(`scale ${settings.rows}: pages`);
    const pages = await pagesSection(ctx);
    log(`scale ${settings.rows}: counts`);
    const counts = await countsSection(ctx);
    log(`scale ${settings.rows}: extract of the first ${EXTRACT_PAGES} pages`);
    const extract = await boundedExtract(ctx);
    const pageMs = (position: PageCase['position']) => Math.max(...pages.filter((p) => p.position === position).map((p) => p.medianMs));
    const firstOf = (p: PageCase) => pages.find((q) => q.position === 'first' && q.resource === p.resource && q.shape.key === p.shape.key)!.medianMs;
    const row = {
      rows: settings.rows,
      ingest: cache.ingest,
      fileMB,
      pageMs: { first: pageMs('first'), '50%': pageMs('50%'), '95%': pageMs('95%') },
      worstPageRatio: Math.max(...pages.filter((p) => p.position !== 'first').map((p) => p.medianMs / firstOf(p))),
      countMs: Math.max(...counts.map((c) => c.medianMs)),
      extract,
      figures: ctx.figures,
    };
    return { ...row, misses: misses(row, ctx.figures) };
  } finally {
    client.close();
    await api.stop();
    duck.close();
  }
}

/** The JSON extract of the first EXTRACT_PAGES pages (API RSS at pages 10 and 100) beside COPY of the same rows. */
async function boundedExtract(ctx: Context): Promise<ScaleRow['extract']> {
  const { client, base, duck, settings } = ctx;
  const first = url(base, 'Records', { $top: '10000' });
  await client.extract(first, 'json', { maxPages: 10 });
  const rssAt: Record<number, number> = {};
  const runs = await repeat(settings.extractRuns, 0, async () => {
    const sampler = sampleRss(ctx.apiPid);
    const r = await client.extract(first, 'json', { maxPages: EXTRACT_PAGES, marks: MARKS, onMark: (p) => (rssAt[p] = sampler.now()) });
    sampler.stop();
    return r;
  });
  const rows = runs[0]!.rows;
  if (rows !== Math.min(settings.rows, EXTRACT_PAGES * 10_000)) throw new Error(`the bounded extract returned ${rows} rows`);
  // Ids are 1…ROWS in a fresh ingest, so the first `rows` rows in Id order are those up to Id `rows`.
  const where = { sql: '"Id" <= $1', params: [rows] };
  const copies = await repeat(settings.extractRuns, 1, () => duckCopy(duck, 'json', where));
  const rowsPerSecond = summary(runs.map((r) => r.rows / (r.ms / 1000))).median;
  const copyRowsPerSecond = summary(copies.map((c) => rows / (c.ms / 1000))).median;
  return { rows, rowsPerSecond, copyRowsPerSecond, ratio: rowsPerSecond / copyRowsPerSecond, rssMB: [rssAt[MARKS[0]] ?? NaN, rssAt[MARKS[1]] ?? NaN] };
}

function misses(row: Omit<ScaleRow, 'misses'>, figures: readonly Figure[]): string[] {
  const out: string[] = [];
  const bare = bareLoadRatio(row.ingest);
  if (bare !== undefined && bare < BARE_LOAD_RATIO_TARGET) out.push(`ingest < ${BARE_LOAD_RATIO_TARGET}× DuckDB's bare load`);
  if ((filesRatio(row.ingest) ?? 0) > FILES_RATIO_TARGET) out.push(`ingest with files > ${FILES_RATIO_TARGET}× without`);
  const pageMisses = figures.filter((f) => f.section === '2' && f.verdict === 'MISS').length;
  if (pageMisses > 0) out.push(`${pageMisses} page(s) over 250 ms or 1.3× their first`);
  const countMisses = figures.filter((f) => f.section === '4' && f.verdict === 'MISS');
  const slow = countMisses.filter((f) => f.value.median >= (f.name.startsWith('$apply') ? 50 : 10));
  if (slow.length > 0) out.push(`${slow.map((f) => f.name).join(', ')}: over ${slow.length === 1 && slow[0]!.name.startsWith('$apply') ? 50 : 10} ms`);
  // §4's other condition: a broad count ≥ 20× faster than DuckDB's count(*), which a small file may not allow.
  if (countMisses.length > slow.length) out.push(`${countMisses.length - slow.length} broad $count(s) < 20× raw count(*)`);
  if (row.extract.ratio < 0.5) out.push('extract < 0.5× COPY');
  const [a, b] = row.extract.rssMB;
  if (!(b - a <= a * 0.1)) out.push(`API RSS grew ${a.toFixed(0)} → ${b.toFixed(0)} MB`);
  return out;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(1) : n.toFixed(0));

/** One Markdown row per size. */
export function renderScaleTable(rows: readonly ScaleRow[]): string {
  // Issue 55: an ingest's peak memory follows a batch, not the hub: within 20 % of the smallest size's.
  const peaks = rows.map((r) => r.ingest.peakRssMB).filter((mb): mb is number => mb !== undefined);
  const floor = Math.min(...peaks);
  const header = ['rows', 'ingest rows/s', "ingest ÷ DuckDB's bare load", 'ingest with files ÷ without', 'ingest peak RSS MB', 'file MB', 'first page ms', '50% page ms', '95% page ms', 'worst page ÷ first', 'slowest $count ms', 'JSON extract rows/s (first 1M)', 'COPY NDJSON rows/s', 'extract ÷ COPY', 'API RSS MB page 10 → 100', 'missed'];
  const lines = rows.map((r) =>
    [
      int(r.rows),
      `${int(r.ingest.rowsPerSecond)}${r.ingest.fresh ? '' : ` (cached, ${r.ingest.measuredAt.slice(0, 10)})`}`,
      bareLoadRatio(r.ingest)?.toFixed(2) ?? '',
      filesRatio(r.ingest)?.toFixed(2) ?? '',
      r.ingest.peakRssMB === undefined ? '' : int(r.ingest.peakRssMB),
      int(r.fileMB),
      ms(r.pageMs.first),
      ms(r.pageMs['50%']),
      ms(r.pageMs['95%']),
      r.worstPageRatio.toFixed(2),
      ms(r.countMs),
      int(r.extract.rowsPerSecond),
      int(r.extract.copyRowsPerSecond),
      r.extract.ratio.toFixed(2),
      `${r.extract.rssMB[0].toFixed(0)} → ${r.extract.rssMB[1].toFixed(0)}`,
      [...r.misses, ...(r.ingest.peakRssMB !== undefined && r.ingest.peakRssMB > floor * INGEST_PEAK_RSS_TARGET.growth ? [`ingest peak RSS > ${INGEST_PEAK_RSS_TARGET.growth}× the smallest size's`] : [])].join('; ') || 'none',
    ].join(' | '),
  );
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...lines.map((l) => `| ${l} |`)].join('\n');
}
