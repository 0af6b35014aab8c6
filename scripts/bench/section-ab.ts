/**
 * A/B of how the API continues an extract for a client following next links: extract cursors (the default) against
 * prefetching the next page (EXTRACT_PREFETCH=1, services/api/exec/page-prefetch.ts). Both run in this one bench
 * run, on the same file, interleaved A B A B … with a fresh API process per run (so each run's peak RSS is its
 * own), to cancel the drift of a shared machine. Per run: the /Records JSON extract (rows/s, peak RSS), a client
 * paging `$top=100` through next links (median per page) and a one-location page on its own (median).
 */
import { readRss, sampleRss, startApi } from './api-process.js';
import { repeat, summary, type Context } from './context.js';
import { url } from './extract.js';
import { nextPage } from './http-client.js';
import { verdict } from './table.js';

const MODES = { cursor: { EXTRACT_PREFETCH: '0' }, prefetch: { EXTRACT_PREFETCH: '1' } } as const;
type Mode = keyof typeof MODES;
const JSON_ROW = Buffer.from('{"Id":');
/** Pages of the small-page client: enough for a stable median, few enough to stay a small part of a run. */
const SMALL_PAGES = 200;

interface Run {
  readonly mode: Mode;
  readonly rowsPerS: number;
  readonly peakMB: number;
  readonly endMB: number;
  readonly smallPageMs: number;
  readonly locationPageMs: number;
}

export async function abSection(ctx: Context, duckdbPath: string, rounds: number): Promise<void> {
  const { settings, client, filters, figures, log } = ctx;
  // Every row at 1M; the first 1M rows at 10M (a 10M extract per run would take 6 runs × minutes).
  const pages = Math.min(Math.ceil(filters.totalRows / 10_000), 100);
  const rows = Math.min(filters.totalRows, pages * 10_000);
  const location = filters.pages.find((s) => s.key === 'location')!;
  log(`A/B cursor vs prefetch: ${rounds} rounds, each a fresh API per mode; extract of ${rows} rows, ${SMALL_PAGES} pages of $top=100`);
  const runs: Run[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const mode of Object.keys(MODES) as Mode[]) {
      const api = await startApi(duckdbPath, MODES[mode]);
      try {
        const first = url(api.base, 'Records', { $top: '10000' });
        await client.extract(first, 'json', { maxPages: 20 });
        const sampler = sampleRss(api.pid);
        const r = await client.extract(first, 'json', { maxPages: pages });
        const rss = sampler.stop();
        if (r.rows !== rows) throw new Error(`A/B ${mode}: extract returned ${r.rows} rows, expected ${rows}`);
        const small = await smallPages(ctx, url(api.base, 'Records', { $top: '100' }));
        const loc = url(api.base, 'Records', { $filter: location.odata!, $top: '10000' });
        const one = await repeat(settings.runs, 1, () => client.http.get(loc, { marker: JSON_ROW }));
        const run: Run = {
          mode,
          rowsPerS: r.rows / (r.ms / 1000),
          peakMB: rss.peakMB,
          endMB: readRss(api.pid)?.rssMB ?? NaN,
          smallPageMs: summary(small).median,
          locationPageMs: summary(one.map((x) => x.ms)).median,
        };
        runs.push(run);
        log(`  ${mode}: ${Math.round(run.rowsPerS)} rows/s, peak ${run.peakMB.toFixed(0)} MB, $top=100 page ${run.smallPageMs.toFixed(2)} ms, location page ${run.locationPageMs.toFixed(1)} ms`);
      } finally {
        await api.stop();
      }
    }
  }
  const of = (mode: Mode, f: (r: Run) => number) => runs.filter((r) => r.mode === mode).map(f);
  /** prefetch ÷ cursor, round by round. */
  const ratios = (f: (r: Run) => number) => summary(of('prefetch', f).map((p, i) => p / of('cursor', f)[i]!));
  const rowsLabel = rows < filters.totalRows ? `first ${rows} rows` : `${rows} rows`;
  const metrics: readonly { name: string; unit: string; f: (r: Run) => number }[] = [
    { name: `/Records JSON extract, ${rowsLabel}`, unit: 'rows/s', f: (r) => r.rowsPerS },
    { name: 'API peak RSS during that extract', unit: 'MB', f: (r) => r.peakMB },
    { name: `/Records $top=100 through next links, median of ${SMALL_PAGES} pages`, unit: 'ms', f: (r) => r.smallPageMs },
    { name: `/Records ${location.label}, one page`, unit: 'ms', f: (r) => r.locationPageMs },
  ];
  for (const m of metrics) {
    figures.push(
      { section: 'A/B', name: `cursor: ${m.name}`, unit: m.unit, value: summary(of('cursor', m.f)), verdict: 'info' },
      { section: 'A/B', name: `prefetch: ${m.name}`, unit: m.unit, value: summary(of('prefetch', m.f)), ratio: ratios(m.f).median, ratioOf: 'cursor (median of round ratios)', verdict: verdict(undefined), note: `prefetch ÷ cursor by round: ${of('prefetch', m.f).map((p, i) => (p / of('cursor', m.f)[i]!).toFixed(3)).join(', ')}` },
    );
  }
  ctx.details['ab'] = runs;
}

/** Per-page times of a client following next links from `first`, for SMALL_PAGES pages after a warm-up of 10. */
async function smallPages(ctx: Context, first: string): Promise<number[]> {
  const ms: number[] = [];
  let next: string | undefined = first;
  for (let page = 0; next && page < SMALL_PAGES + 10; page++) {
    const res = await ctx.client.http.get(next, { marker: JSON_ROW });
    if (res.status !== 200) throw new Error(`${next}: HTTP ${res.status}`);
    if (page >= 10) ms.push(res.ms);
    next = nextPage(res);
  }
  return ms;
}
