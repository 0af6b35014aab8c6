/**
 * §C capacity (issue 39): N concurrent clients against one API with the default limits, for N = 1, 2, 4 … 32, of
 * three kinds (the `CLIENT_KINDS` table): the official DataStream clients (sequential 10,000-row pages following
 * `@odata.nextLink`, gzip, 2 requests/s), GIS clients paging OGC API – Features items (sequential, unpaced, as GDAL
 * does) and engines reading the manifest's Parquet files with range requests (unpaced). Each client has its own key
 * and starts at its own place in the data, so no two read the same pages. Per N: aggregate rows/s (bytes/s for the
 * engines), p50/p99 request time, refusals (429: the client waits Retry-After, as the official clients do), 5xx,
 * and each client's share. Per kind: the largest N whose p99 stays ≤ 2 s with no 5xx, and where a request's time
 * goes at the next N (time to first byte beyond the stages of `Server-Timing`: the limits and the query gate; each
 * stage; the body).
 */
import { apiSettings } from '../../services/api/config.js';
import { startApi } from './api-process.js';
import type { Context } from './context.js';
import { num } from './duck.js';
import { createHttpClient, nextPage, type HttpClient, type Response } from './http-client.js';
import { summarise } from './stats.js';
import { verdict, type Figure } from './table.js';

const P99_LIMIT_MS = 2000;
const DEFAULT_CLIENTS = [1, 2, 4, 8, 16, 32];

export type CapacityContext = Pick<Context, 'figures' | 'details' | 'log' | 'duck'> & {
  readonly duckdbPath: string;
  /** Seconds each N runs (BENCH_CAPACITY_SECONDS). */
  readonly seconds: number;
  /** The Ns (BENCH_CAPACITY_CLIENTS). */
  readonly clients: readonly number[];
};

/** One request a client made: its time, what it got, and the stages the API reported. */
interface Sample {
  readonly client: number;
  readonly ms: number;
  readonly headersMs: number;
  readonly status: number;
  /** Rows (pages) or bytes (files) it brought. */
  readonly amount: number;
  readonly stages: Readonly<Record<string, number>>;
}

/** What a client of a kind does: its first request, what a response brings, and the request after it. */
interface ClientKind {
  readonly label: string;
  readonly unit: 'rows/s' | 'MB/s';
  /** Milliseconds between the starts of two requests of one client (0: unpaced). */
  readonly paceMs: number;
  run(http: HttpClient, start: Start, stopAt: number, record: (r: Response, amount: number) => Promise<void>): Promise<void>;
}

interface Start {
  readonly base: string;
  /** This client's place in the data: an Id to continue after, or a file of the manifest. */
  readonly afterId: number;
  readonly file?: { readonly url: string; readonly bytes: number };
}

const ODATA_ROW = Buffer.from('{"Id":');
const FEATURE = Buffer.from('{"type":"Feature"');
/** The page size GIS clients ask for (GDAL's OAPIF driver and QGIS ask for pages of this order). */
const GIS_LIMIT = 1000;
/** An engine reads a Parquet file's footer, then its column chunks in ranges of about this size. */
const RANGE_BYTES = 1 << 20;

async function follow(http: HttpClient, first: string, stopAt: number, opts: { marker: Buffer; keepHead?: number; next: (r: Response) => string | undefined }, record: (r: Response, amount: number) => Promise<void>) {
  let next: string | undefined = first;
  while (next && performance.now() < stopAt) {
    const res = await http.get(next, { marker: opts.marker, encoding: 'gzip', ...(opts.keepHead ? { keepHead: opts.keepHead } : {}) });
    await record(res, res.markers);
    if (res.status === 200) next = opts.next(res) ?? first;
  }
}

export const CLIENT_KINDS: Readonly<Record<'odata' | 'features' | 'files', ClientKind>> = {
  odata: {
    label: 'OData clients (10,000-row Records pages by @odata.nextLink, gzip, 2 requests/s)',
    unit: 'rows/s',
    paceMs: 500,
    run: (http, s, stopAt, record) =>
      follow(http, `${s.base}/v1/odata/v4/Records?$top=10000${s.afterId > 0 ? `&$skiptoken=Id:${s.afterId}` : ''}`, stopAt, { marker: ODATA_ROW, next: nextPage }, record),
  },
  features: {
    label: `GIS clients (${GIS_LIMIT}-feature OGC API – Features items pages by their next link, gzip, unpaced)`,
    unit: 'rows/s',
    paceMs: 0,
    run: (http, s, stopAt, record) =>
      follow(
        http,
        `${s.base}/v1/features/collections/observations/items?limit=${GIS_LIMIT}${s.afterId > 0 ? `&cursor=${s.afterId}` : ''}`,
        stopAt,
        { marker: FEATURE, keepHead: 8192, next: (r) => /\{"href":"([^"]+)","rel":"next"/.exec(r.head ?? '')?.[1] },
        record,
      ),
  },
  files: {
    label: `engines reading the manifest's Parquet files (footer, then ${RANGE_BYTES >> 20} MiB ranges, unpaced)`,
    unit: 'MB/s',
    paceMs: 0,
    async run(http, s, stopAt, record) {
      const file = s.file!;
      const footer = Math.min(file.bytes, 65_536);
      const ranges = [[file.bytes - footer, file.bytes - 1]];
      for (let at = 0; at < file.bytes - footer; at += RANGE_BYTES) ranges.push([at, Math.min(at + RANGE_BYTES, file.bytes - footer) - 1]);
      for (let i = 0; performance.now() < stopAt; i = (i + 1) % ranges.length) {
        const [from, to] = ranges[i]!;
        const res = await http.get(file.url, { headers: { Range: `bytes=${from}-${to}` } });
        await record(res, res.status === 206 ? res.bytes : 0);
      }
    },
  },
};

/** `Server-Timing: parse;dur=0.1, plan;dur=0.0, …` as stage → ms. */
export function serverTiming(header: string | string[] | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of String(header ?? '').split(',')) {
    const m = /^\s*([\w-]+)\s*;\s*dur=([\d.]+)/.exec(part);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

/** The p-th percentile (nearest rank) of `xs`. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** N clients of `kind` for `seconds`; every request's sample. */
async function runClients(kind: ClientKind, starts: readonly Start[], keys: readonly string[], seconds: number): Promise<{ samples: Sample[]; elapsedS: number }> {
  const samples: Sample[] = [];
  const t0 = performance.now();
  const stopAt = t0 + seconds * 1000;
  await Promise.all(
    starts.map(async (start, client) => {
      // Independent clients do not start in step: spread over the first pace interval (or half a second).
      await sleep(((kind.paceMs || 500) * client) / starts.length);
      const http = createHttpClient({ 'x-api-key': keys[client]! });
      let last = performance.now();
      try {
        await kind.run(http, start, stopAt, async (res, amount) => {
          samples.push({ client, ms: res.ms, headersMs: res.headersMs, status: res.status, amount: res.status < 300 ? amount : 0, stages: serverTiming(res.headers['server-timing']) });
          const wait = res.status === 429 ? Number(res.headers['retry-after'] ?? 1) * 1000 : kind.paceMs - (performance.now() - last);
          if (wait > 0) await sleep(wait);
          last = performance.now();
        });
      } finally {
        http.close();
      }
    }),
  );
  return { samples, elapsedS: (performance.now() - t0) / 1000 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Where a served request's time went, as medians: TTFB beyond the reported stages, each stage, the body. */
export function timeSplit(samples: readonly Sample[]): Record<string, number> {
  const served = samples.filter((s) => s.status < 300);
  if (served.length === 0) return {};
  const names = [...new Set(served.flatMap((s) => Object.keys(s.stages)))];
  const median = (xs: number[]) => summarise(xs).median;
  return {
    'waiting (limits, query gate: TTFB beyond Server-Timing)': median(served.map((s) => Math.max(0, s.headersMs - Object.values(s.stages).reduce((a, b) => a + b, 0)))),
    ...Object.fromEntries(names.map((n) => [n, median(served.map((s) => s.stages[n] ?? 0))])),
    body: median(served.map((s) => s.ms - s.headersMs)),
  };
}

const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);

export async function capacitySection(ctx: CapacityContext): Promise<void> {
  const { figures, log } = ctx;
  const most = Math.max(...ctx.clients);
  const keys = Array.from({ length: most }, (_, i) => `capacity-${i + 1}`);
  // The limits a deployment runs with (config.ts's defaults), not the bench's unlimited bucket.
  const api = await startApi(ctx.duckdbPath, { PAGE_ROWS_PER_SECOND: apiSettings.PAGE_ROWS_PER_SECOND.default, PAGE_ROWS_BURST: apiSettings.PAGE_ROWS_BURST.default, PAGE_MIN_ROWS: apiSettings.PAGE_MIN_ROWS.default, API_KEYS: keys.join(',') });
  const details: Record<string, unknown> = {};
  try {
    const ids = (await ctx.duck.all('SELECT min("Id") AS lo, max("Id") AS hi FROM observations', []))[0]!;
    const span = { lo: num(ids['lo']!), hi: num(ids['hi']!) };
    const manifest = (await (await fetch(`${api.base}/v1/downloads/manifest.json`, { headers: { 'x-api-key': keys[0]! } })).json()) as { files: { url: string; bytes: number }[] };
    const files = [...manifest.files].sort((a, b) => b.bytes - a.bytes);
    for (const [name, kind] of Object.entries(CLIENT_KINDS)) {
      log(`§C capacity: ${kind.label}`);
      const rows: { n: number; p99: number; fivexx: number; split: Record<string, number> }[] = [];
      for (const n of ctx.clients) {
        const starts: Start[] = Array.from({ length: n }, (_, i) => ({
          base: api.base,
          afterId: i === 0 ? 0 : Math.floor(span.lo - 1 + ((span.hi - span.lo + 1) * i) / n),
          ...(files.length > 0 ? { file: files[i % files.length]! } : {}),
        }));
        if (name === 'files' && files.length === 0) throw new Error('§C: the manifest lists no dataset file to read');
        const { samples, elapsedS } = await runClients(kind, starts, keys, ctx.seconds);
        const served = samples.filter((s) => s.status < 300);
        const times = served.map((s) => s.ms);
        const total = served.reduce((a, s) => a + s.amount, 0);
        const perClient = Array.from({ length: n }, (_, c) => served.filter((s) => s.client === c).reduce((a, s) => a + s.amount, 0) / (total || 1));
        const refused = samples.filter((s) => s.status === 429).length;
        const fivexx = samples.filter((s) => s.status >= 500).length;
        const p50 = percentile(times, 50);
        const p99 = percentile(times, 99);
        const rate = kind.unit === 'MB/s' ? total / 1e6 / elapsedS : total / elapsedS;
        rows.push({ n, p99, fivexx, split: timeSplit(samples) });
        figures.push({
          section: 'C',
          name: `${kind.label}: ${n} at once, aggregate`,
          unit: kind.unit,
          value: summarise([rate]),
          verdict: 'info',
          note: `${served.length} requests served in ${elapsedS.toFixed(0)} s: p50 ${fmtMs(p50)}, p99 ${fmtMs(p99)}; ${refused} refused (429), ${fivexx} 5xx; each client's share ${(100 * Math.min(...perClient)).toFixed(1)}–${(100 * Math.max(...perClient)).toFixed(1)}% (even: ${(100 / n).toFixed(1)}%)`,
        });
        details[`${name}:${n}`] = { elapsedS, total, p50, p99, refused, fivexx, perClient, split: rows.at(-1)!.split, statuses: countBy(samples.map((s) => s.status)) };
        log(`§C ${name} N=${n}: ${Math.round(rate)} ${kind.unit}, p99 ${fmtMs(p99)}, ${refused} refused, ${fivexx} 5xx`);
      }
      const within = rows.filter((r) => r.p99 <= P99_LIMIT_MS && r.fivexx === 0);
      const largest = within.length > 0 ? Math.max(...within.map((r) => r.n)) : 0;
      const beyond = rows.find((r) => r.n > largest) ?? rows.at(-1)!;
      const split = Object.entries(beyond.split).map(([stage, ms]) => `${stage} ${fmtMs(ms)}`).join(', ');
      figures.push({
        section: 'C',
        name: `${kind.label}: the most at once with p99 ≤ 2 s and no 5xx`,
        unit: 'clients',
        value: summarise([largest]),
        target: `≥ 1 of ${ctx.clients.join(', ')}`,
        verdict: verdict(largest >= 1),
        note: `${beyond.n === largest ? `every N passed; at ${beyond.n}` : `at ${beyond.n}: p99 ${fmtMs(beyond.p99)}${beyond.fivexx ? `, ${beyond.fivexx} 5xx` : ''};`} a request's median time: ${split}`,
      });
    }
  } finally {
    await api.stop();
  }
  ctx.details['capacity'] = details;
}

function countBy(xs: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}

/** BENCH_CAPACITY_CLIENTS: the Ns, comma-separated. */
export function capacityClients(raw: string | undefined): number[] {
  if (raw === undefined || raw === '') return DEFAULT_CLIENTS;
  const ns = raw.split(',').map((s) => Number(s.trim()));
  if (ns.some((n) => !Number.isSafeInteger(n) || n < 1)) throw new Error(`BENCH_CAPACITY_CLIENTS must be positive integers, comma-separated, got '${raw}'`);
  return ns;
}
