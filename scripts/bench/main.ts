/**
 * `make bench`: builds or reuses the sample database (ROWS, default 10,000,000; BENCH_QUICK=1 for 1,000,000),
 * starts the data API on loopback as a child process, measures §1–§7 of issue 5, prints a Markdown table and
 * writes every figure and run to BENCH_OUT (default data/bench/results-<timestamp>.json).
 *
 * Then the scale table (section-scale.ts): the same costs at 1M, 10M and ROWS when larger, each on its own cache.
 *
 * Env: ROWS, SEED (1), BENCH_QUICK, BENCH_RUNS (5), BENCH_EXTRACT_RUNS (3 quick, 1 full: an extract of 10M rows takes minutes), BENCH_INGEST=1
 * (re-measure ingest on a cached database), BENCH_FULL_FORMATS=1 (CSV and Arrow over
 * every row, not the first 1M), BENCH_SKIP_PG=1, BENCH_SCALE (0, or the sizes), BENCH_SCALE_ONLY=1, BENCH_OUT,
 * BENCH_TEXT_TO_NULL=1 (text references and exports to /dev/null), BENCH_PUBLISHES (200: the publish section's no-decay run), BENCH_ONLY=publish (that section alone, on the cached hub),
 * BENCH_ONLY=extract (§1, §5 and §1z alone: the formats' extracts and compression, no scale table), BENCH_ONLY=export
 * (§1e whole-result exports alone), BENCH_ONLY=extract,export (both, for the formats at 10M and 100M), BENCH_ONLY=features
 * (§F OGC API – Features pages against the OData pages alone, then §L the layer rate: QGIS, GDAL and geopandas paging a
 * layer on make start's defaults), BENCH_ONLY=retention (§R what older publications held for pinned links cost), BENCH_ONLY=engines (§E polars over HTTP against local disk), BENCH_ONLY=spatial (§S a 1,000-vertex polygon against its
 * Id list and its bbox alone), BENCH_ONLY=aggregates (§A $apply's aggregates of values against DuckDB's GROUP BY alone), BENCH_ONLY=comparisons (§G the guideline comparisons' count, groupby and pages against DuckDB's queries, and §T the trends counted by Category, with §7), BENCH_ONLY=summaries (§7's LocationSummaries with non-detects against detected values only, with §7's ingest figures), BENCH_ONLY=ingest (§7 alone: the ingest re-measured beside DuckDB's bare load of the same files). §7's ingest figures come with every run but publish and features.
 * §C capacity (N concurrent clients of three kinds against an API with the default limits) runs after §1–§6 on its own
 * API; BENCH_ONLY=capacity runs it alone (any ROWS). BENCH_CAPACITY_SECONDS (20) per N, BENCH_CAPACITY_CLIENTS (1,2,4,8,16,32).
 */
import { cpus, totalmem } from 'node:os';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BENCH_API_KEY, libuvThreads, startApi } from './api-process.js';
import { BARE_LOAD_RATIO_TARGET, bareLoadRatio, ensureCache, filesCpuRatio, INGEST_PEAK_RSS_TARGET, filesRatio, FILES_RATIO_TARGET, GUIDELINES_RATIO_TARGET, stageCpuRatio, stageRatio, TRENDS_RATIO_TARGET, TRENDS_STAGE_TARGET, trendsStageVerdict } from './cache.js';
import type { Context, Settings } from './context.js';
import { openClient } from './client.js';
import { openDuck } from './duck.js';
import { discoverFilters } from './filters.js';
import { ensurePostgres } from './postgres.js';
import { compressionSection } from './section-compression.js';
import { aggregatesSection } from './section-aggregates.js';
import { comparisonsSection } from './section-comparisons.js';
import { trendsSection } from './section-trends.js';
import { countsSection } from './section-counts.js';
import { extractSection } from './section-extract.js';
import { exportSection } from './section-export.js';
import { geoParquetSection } from './section-geoparquet.js';
import { featuresSection } from './section-features.js';
import { layerSection } from './section-layer.js';
import { capacityClients, capacitySection } from './section-capacity.js';
import { pagesSection } from './section-pages.js';
import { partitionedSection } from './section-partitioned.js';
import { postgresSection } from './section-postgres.js';
import { publishSection } from './section-publish.js';
import { retentionSection } from './section-retention.js';
import { enginesSection } from './section-engines.js';
import { renderScaleTable, scaleSection, scaleSizes } from './section-scale.js';
import { spatialSection } from './section-spatial.js';
import { summariesSection } from './section-summaries.js';
import { summarise } from './stats.js';
import { renderLatest, renderTable, verdict, type Figure } from './table.js';

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw.replace(/_/g, ''));
  if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return v;
}

const quick = process.env.BENCH_QUICK === '1';
const settings: Settings = {
  rows: int('ROWS', quick ? 1_000_000 : 10_000_000),
  seed: int('SEED', 1),
  quick,
  runs: int('BENCH_RUNS', 5),
  extractRuns: int('BENCH_EXTRACT_RUNS', quick ? 3 : 1),
  skipPostgres: process.env.BENCH_SKIP_PG === '1',
  fullFormats: process.env.BENCH_FULL_FORMATS === '1',
};
const startedAt = new Date();
const t0 = performance.now();
const log = (line: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
const out = process.env.BENCH_OUT || `data/bench/results-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`;
const machine = { cores: cpus().length, cpu: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version };
log(`ROWS=${settings.rows} SEED=${settings.seed}${quick ? ' (BENCH_QUICK)' : ''} on ${machine.cores} cores, ${machine.memoryGiB} GiB`);

const scaleOnly = process.env.BENCH_SCALE_ONLY === '1';
// BENCH_ONLY: one section alone, or extract and export together (BENCH_ONLY=extract,export: the formats at scale).
const only = new Set((process.env.BENCH_ONLY ?? '').split(',').filter(Boolean));
const publishOnly = only.has('publish');
const extractOnly = only.has('extract');
const exportOnly = only.has('export');
const featuresOnly = only.has('features');
const retentionOnly = only.has('retention');
const spatialOnly = only.has('spatial');
const capacityOnly = only.has('capacity');
const enginesOnly = only.has('engines');
const aggregatesOnly = only.has('aggregates');
const comparisonsOnly = only.has('comparisons');
const summariesOnly = only.has('summaries');
// §7 alone: the ingest re-measured (as BENCH_INGEST=1) beside its bare-load reference.
const ingestOnly = only.has('ingest');
const known = ['publish', 'extract', 'export', 'features', 'retention', 'spatial', 'capacity', 'engines', 'aggregates', 'comparisons', 'summaries', 'ingest'];
if ([...only].some((s) => !known.includes(s)) || ((publishOnly || featuresOnly || retentionOnly || spatialOnly || capacityOnly || enginesOnly || aggregatesOnly || comparisonsOnly || summariesOnly || ingestOnly) && only.size > 1)) {
  throw new Error(`BENCH_ONLY=${process.env.BENCH_ONLY}: the sections that run alone are 'publish', 'extract', 'export', 'features', 'retention', 'spatial', 'capacity', 'engines', 'aggregates', 'comparisons', 'summaries' and 'ingest'; 'extract,export' runs those two`);
}
const capacity = { seconds: int('BENCH_CAPACITY_SECONDS', 20), clients: capacityClients(process.env.BENCH_CAPACITY_CLIENTS) };
const sizes = only.size > 0 ? [] : scaleSizes(process.env.BENCH_SCALE, settings);
const figures: Figure[] = [];
let failure: unknown;
let main: Awaited<ReturnType<typeof mainSections>> | undefined;
if (!scaleOnly) main = await mainSections();
let scaleTable: string | undefined;
let scale: Awaited<ReturnType<typeof scaleSection>> | undefined;
if (sizes.length > 0 && !failure) {
  try {
    scale = await scaleSection(settings, sizes, log);
    scaleTable = renderScaleTable(scale);
  } catch (err) {
    failure = err;
  }
}

/** §1–§7 and §P at ROWS (BENCH_ONLY=publish: §P alone; extract: §1, §5 and §1z; export: §1e; both with §7's ingest figures). */
async function mainSections() {
  const cache = await ensureCache(settings.rows, settings.seed, ingestOnly || process.env.BENCH_INGEST === '1', log);
  if (ingestOnly) {
    ingestFigures(cache.ingest);
    return { cache, filters: undefined, pgLoad: undefined, details: {} };
  }
  const duck = await openDuck(cache.duckdbPath);
  if (featuresOnly || spatialOnly || aggregatesOnly || comparisonsOnly) {
    const details: Record<string, unknown> = {};
    await featuresAlone(cache.duckdbPath, duck, details, spatialOnly ? 'spatial' : aggregatesOnly ? 'aggregates' : comparisonsOnly ? 'comparisons' : 'features');
    // Issue 45: the comparisons' page reports the publish cost beside their count and page times.
    if (comparisonsOnly) ingestFigures(cache.ingest);
    return { cache, filters: undefined, pgLoad: undefined, details };
  }
  if (summariesOnly) {
    await summariesSection({ rows: settings.rows, runs: settings.runs, duck, ingest: cache.ingest, figures, log });
    duck.close();
    ingestFigures(cache.ingest);
    return { cache, filters: undefined, pgLoad: undefined, details: {} };
  }
  if (capacityOnly) {
    const details: Record<string, unknown> = {};
    await capacityRun(cache.duckdbPath, duck, details);
    duck.close();
    return { cache, filters: undefined, pgLoad: undefined, details };
  }
  if (enginesOnly) {
    duck.close();
    const details: Record<string, unknown> = {};
    await engines(cache, details);
    return { cache, filters: undefined, pgLoad: undefined, details };
  }
  const filters = await discoverFilters(duck);
  if (filters.totalRows !== settings.rows) throw new Error(`${cache.duckdbPath} holds ${filters.totalRows} rows, expected ${settings.rows}`);
  if (publishOnly || retentionOnly) {
    duck.close();
    const details: Record<string, unknown> = {};
    await (publishOnly ? publish : retention)(cache, details);
    return { cache, filters, pgLoad: undefined, details };
  }
  const pgLoad = settings.skipPostgres || only.size > 0 ? undefined : await ensurePostgres(duck, cache.dir, cache.key, log);

  log(`starting the data API on ${cache.duckdbPath}`);
  const api = await startApi(cache.duckdbPath);
  // A client that cannot start must not leave the API process running.
  const client = await openClient({ 'x-api-key': BENCH_API_KEY }).catch(async (err: unknown) => {
    await api.stop();
    throw err;
  });
  // The API sizes libuv's pool before loading DuckDB (services/api/limits/thread-pool.ts); 4 would be libuv's default.
  const apiLibuvThreads = libuvThreads(api.pid);
  log(`the API's libuv pool: ${apiLibuvThreads ?? 'unknown'} threads`);
  const ctx: Context = { settings, base: api.base, apiPid: api.pid, client, duck, filters, figures, details: { clientHeapMB: client.heapMB, apiLibuvThreads }, log };
  try {
    if (!exportOnly || extractOnly) {
      await extractSection(ctx);
      await compressionSection(ctx);
    }
    if (exportOnly || !extractOnly) {
      await exportSection(ctx);
      await geoParquetSection(ctx);
    }
    if (only.size === 0) {
      log('§2 pages');
      const pages = await pagesSection(ctx);
      await featuresSection(ctx);
      await spatialSection({ ...ctx, headers: { 'x-api-key': BENCH_API_KEY } });
      await partitionedSection(ctx);
      log('§4 counts');
      const counts = await countsSection(ctx);
      log('§A aggregates');
      await aggregatesSection(ctx);
      log('§G guideline comparisons');
      await comparisonsSection(ctx);
      await trendsSection(ctx);
      await summariesSection({ rows: settings.rows, runs: settings.runs, duck, ingest: cache.ingest, figures, log });
      if (!settings.skipPostgres) {
        const json = (ctx.details['extract'] as { json: { ms: number }[] }).json;
        await postgresSection(ctx, pages, counts, summarise(json.map((r) => r.ms)).median);
      }
    }
  } catch (err) {
    failure = err;
  } finally {
    client.close();
    await api.stop();
  }
  // On an API of its own, with the default limits: the measuring API's are lifted.
  if (!failure && only.size === 0) await capacityRun(cache.duckdbPath, duck, ctx.details);
  if (!failure && only.size === 0) await layerRun(cache.duckdbPath, ctx.details);
  duck.close();

  if (!failure && only.size === 0) await publish(cache, ctx.details);
  if (!failure && only.size === 0) await retention(cache, ctx.details);
  if (!failure && only.size === 0) await engines(cache, ctx.details);
  ingestFigures(cache.ingest);
  return { cache, filters, pgLoad, details: ctx.details };
}

/** §7: the ingest that built (or, with BENCH_INGEST=1, re-built) the hub, and the files', guidelines' and trends' stages' shares of it. */
function ingestFigures(ingest: Awaited<ReturnType<typeof ensureCache>>['ingest']): void {
  const cached = ingest.fresh ? '' : ` (cached figure of ${ingest.measuredAt}; BENCH_INGEST=1 re-measures)`;
  const bare = bareLoadRatio(ingest);
  figures.push({
    section: '7',
    name: `make ingest, ${settings.rows} rows end to end${cached}`,
    unit: 'rows/s',
    value: summarise([ingest.rowsPerSecond]),
    verdict: 'info',
    note: `${(ingest.wallMs / 1000).toFixed(1)} s wall${ingest.reportRowsPerSecond ? `; pipeline's own figure ${Math.round(ingest.reportRowsPerSecond)} rows/s` : ''}; each stage's share of the wall: ${stageShares(ingest)}`,
  });
  if (bare !== undefined) {
    figures.push({
      section: '7',
      name: `make ingest ÷ DuckDB's bare load of the same files (CREATE TABLE AS read_csv + CHECKPOINT, measured after it; rows/s over rows/s, ${settings.rows} rows)`,
      unit: '×',
      value: summarise([bare]),
      target: `≥ ${BARE_LOAD_RATIO_TARGET}×`,
      verdict: verdict(bare >= BARE_LOAD_RATIO_TARGET),
      note: `bare load ${((ingest.bareLoadMs ?? 0) / 1000).toFixed(1)} s, ingest ${(ingest.wallMs / 1000).toFixed(1)} s`,
    });
  }
  if (ingest.peakRssMB !== undefined) {
    const atTarget = settings.rows === INGEST_PEAK_RSS_TARGET.rows;
    figures.push({
      section: '7',
      name: `make ingest's peak RSS (DuckDB included; INGEST_MEMORY_LIMIT ${process.env['INGEST_MEMORY_LIMIT'] ?? 'default'}, ${settings.rows} rows)`,
      unit: 'MB',
      value: summarise([ingest.peakRssMB]),
      target: `≤ ${INGEST_PEAK_RSS_TARGET.mb} MB at ${INGEST_PEAK_RSS_TARGET.rows.toLocaleString('en')} rows; within ${Math.round((INGEST_PEAK_RSS_TARGET.growth - 1) * 100)} % of that at every size (scale table)`,
      verdict: atTarget ? verdict(ingest.peakRssMB <= INGEST_PEAK_RSS_TARGET.mb) : 'info',
      note: `per stage: ${Object.entries(ingest.stagePeakRssMB ?? {}).map(([stage, mb]) => `${stage} ${mb}`).join(', ') || 'not reported'}`,
    });
  }
  const ratio = filesRatio(ingest);
  if (ratio !== undefined) {
    figures.push({
      section: '7',
      name: `make ingest with each dataset's Parquet and CSV files ÷ without (the files stage's own time, ${settings.rows} rows)`,
      unit: '×',
      value: summarise([ratio]),
      target: `≤ ${FILES_RATIO_TARGET}×`,
      verdict: verdict(ratio <= FILES_RATIO_TARGET),
      note: `files stage ${((ingest.timingsMs?.['files'] ?? 0) / 1000).toFixed(1)} s of ${(ingest.wallMs / 1000).toFixed(1)} s wall; in CPU time ${filesCpuRatio(ingest)?.toFixed(2) ?? '?'}×`,
    });
  }
  const guidelines = stageRatio(ingest, 'guidelines');
  if (guidelines !== undefined) {
    figures.push({
      section: '7',
      name: `make ingest with guideline comparisons and the water quality index ÷ without (the guidelines stage's own time, ${settings.rows} rows)`,
      unit: '×',
      value: summarise([guidelines]),
      target: `≤ ${GUIDELINES_RATIO_TARGET}×`,
      verdict: verdict(guidelines <= GUIDELINES_RATIO_TARGET),
      note: `guidelines stage ${((ingest.timingsMs?.['guidelines'] ?? 0) / 1000).toFixed(1)} s of ${(ingest.wallMs / 1000).toFixed(1)} s wall; in CPU time ${stageCpuRatio(ingest, 'guidelines')?.toFixed(2) ?? '?'}×`,
    });
  }
  trendsFigures(ingest);
}

/** Each stage's share of an ingest's wall time, largest first: where the time goes. */
function stageShares(ingest: Awaited<ReturnType<typeof ensureCache>>['ingest']): string {
  const laps = Object.entries(ingest.timingsMs ?? {}).sort((a, b) => b[1] - a[1]);
  return laps.map(([stage, ms]) => `${stage} ${((ms / ingest.wallMs) * 100).toFixed(0)} %`).join(', ') || 'not reported';
}

/** §7's trends stage (issue 54.3): its own time, and a publish with it ÷ without it. */
function trendsFigures(ingest: Awaited<ReturnType<typeof ensureCache>>['ingest']): void {
  const ms = ingest.timingsMs?.['trends'];
  const ratio = stageRatio(ingest, 'trends');
  if (ms === undefined || ratio === undefined) return;
  figures.push({
    section: '7',
    name: `the trends stage: every series × period of the hub (${settings.rows} rows)`,
    unit: 's',
    value: summarise([ms / 1000]),
    target: `≤ ${TRENDS_STAGE_TARGET.ms / 1000} s at ${TRENDS_STAGE_TARGET.rows.toLocaleString('en')} rows`,
    verdict: verdict(trendsStageVerdict(ingest)),
    note: `in CPU time ${((ingest.cpuMs?.['trends'] ?? 0) / 1000).toFixed(1)} s`,
  });
  figures.push({
    section: '7',
    name: `make ingest with trends ÷ without (the trends stage's own time, ${settings.rows} rows)`,
    unit: '×',
    value: summarise([ratio]),
    target: `≤ ${TRENDS_RATIO_TARGET}×`,
    verdict: verdict(ratio <= TRENDS_RATIO_TARGET),
    note: `trends stage ${(ms / 1000).toFixed(1)} s of ${(ingest.wallMs / 1000).toFixed(1)} s wall; in CPU time ${stageCpuRatio(ingest, 'trends')?.toFixed(2) ?? '?'}×`,
  });
}

/** A section that needs the API but none of the discovered filters (any ROWS): §F, §S, §A or §G. */
async function featuresAlone(path: string, duck: Awaited<ReturnType<typeof openDuck>>, details: Record<string, unknown>, section: 'features' | 'spatial' | 'aggregates' | 'comparisons'): Promise<void> {
  const api = await startApi(path);
  const client = await openClient({ 'x-api-key': BENCH_API_KEY }).catch(async (err: unknown) => {
    await api.stop();
    throw err;
  });
  try {
    if (section === 'spatial') await spatialSection({ settings, base: api.base, duck, figures, details, log, headers: { 'x-api-key': BENCH_API_KEY } });
    else if (section === 'aggregates') await aggregatesSection({ settings, base: api.base, client, duck, figures });
    else if (section === 'comparisons') {
      await comparisonsSection({ settings, base: api.base, client, duck, figures });
      await trendsSection({ settings, base: api.base, client, duck, figures });
    }
    else await featuresSection({ settings, base: api.base, client, duck, figures, details, log });
  } catch (err) {
    failure = err;
  } finally {
    client.close();
    await api.stop();
    duck.close();
  }
  if (!failure && section === 'features') await layerRun(path, details);
}

/** §L: GIS clients paging a layer on an API with make start's defaults (section-layer.ts). */
async function layerRun(path: string, details: Record<string, unknown>): Promise<void> {
  try {
    await layerSection({ duckdbPath: path, figures, details, log });
  } catch (err) {
    failure = err;
  }
}

/** §C: N clients at once of each kind (section-capacity.ts). */
async function capacityRun(path: string, duck: Awaited<ReturnType<typeof openDuck>>, details: Record<string, unknown>): Promise<void> {
  try {
    await capacitySection({ duckdbPath: path, duck, figures, details, log, ...capacity });
  } catch (err) {
    failure = err;
  }
}

/** §P on copies of the cached hub. */
async function publish(cache: { readonly duckdbPath: string; readonly dir: string }, details: Record<string, unknown>): Promise<void> {
  try {
    await publishSection({ rows: settings.rows, runs: settings.runs, hub: cache.duckdbPath, dir: cache.dir, figures, details, log });
  } catch (err) {
    failure = err;
  }
}

/** §E on the cached hub's files. */
async function engines(cache: { readonly duckdbPath: string }, details: Record<string, unknown>): Promise<void> {
  try {
    await enginesSection({ rows: settings.rows, runs: Math.min(settings.runs, 3), hub: cache.duckdbPath, figures, details, log });
  } catch (err) {
    failure = err;
  }
}

/** §R on copies of the cached hub. */
async function retention(cache: { readonly duckdbPath: string; readonly dir: string }, details: Record<string, unknown>): Promise<void> {
  try {
    await retentionSection({ rows: settings.rows, hub: cache.duckdbPath, dir: cache.dir, figures, details, log });
  } catch (err) {
    failure = err;
  }
}

const durationS = (performance.now() - t0) / 1000;
const table = figures.length > 0 ? renderTable(figures) : undefined;
// Every setting that changes what is measured, so the generated page names the run that produced it.
const SHOWN = ['BENCH_CAPACITY_SECONDS', 'BENCH_CAPACITY_CLIENTS', 'BENCH_ONLY', 'BENCH_TEXT_TO_NULL', 'BENCH_SCALE_ONLY', 'BENCH_SCALE', 'BENCH_SKIP_PG', 'BENCH_PUBLISHES', 'BENCH_RUNS', 'BENCH_EXTRACT_RUNS', 'BENCH_FULL_FORMATS', 'BENCH_INGEST'];
const shown = SHOWN.filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]} `).join('');
const command = `${quick ? 'BENCH_QUICK=1 ' : ''}${shown}make bench${process.env.ROWS ? ` ROWS=${settings.rows}` : ''}`;
if (table) console.log(`\n${table}\n`);
for (const f of figures.filter((x) => x.note)) console.log(`- §${f.section} ${f.name}: ${f.note}`);
if (scaleTable) console.log(`\nScale:\n\n${scaleTable}\n`);
const misses = figures.filter((f) => f.verdict === 'MISS').length;
console.log(`\n${figures.length} figures, ${misses} MISS; ${durationS.toFixed(0)} s; ${command} on ${machine.cores} cores, ${machine.memoryGiB} GiB (${machine.cpu})`);
await mkdir(dirname(out), { recursive: true });
await writeFile(
  out,
  `${JSON.stringify({ startedAt, durationS, command, settings, machine, cache: main && { key: main.cache.key, ingest: main.cache.ingest }, postgres: main?.pgLoad, filters: main?.filters, figures, details: main?.details, table, scale, scaleTable, error: failure ? String(failure) : undefined }, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v), 2)}\n`,
);
console.log(`results: ${out}`);
if (!failure && table) {
  const latest = process.env.BENCH_TABLE ?? 'docs/bench/latest.md';
  await mkdir(dirname(latest), { recursive: true });
  await writeFile(latest, renderLatest({ command, startedAt, durationS, machine, table, notes: figures.filter((f) => f.note), scaleTable, misses, count: figures.length }));
  console.log(`table: ${latest}`);
}
if (failure) {
  console.error(failure);
  process.exit(1);
}
