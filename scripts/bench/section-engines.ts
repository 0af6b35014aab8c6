/**
 * §E engines (issue 39): polars reading the hub through `/v1/downloads/manifest.json` over HTTP, as an engine does
 * (a footer, then the column chunks it needs, each a range request metered by bytes), against the same files read
 * from local disk. One API of its own with keys off and the default file budget (FILE_BYTES_PER_SECOND and
 * FILE_BYTES_BURST), so the figure is what a new user of `make start` gets. The query counts every row and sums one
 * column, so both sides read the same column chunks of every file.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { plainFilesDir } from '../../schemas/publication-files.js';
import { startApi } from './api-process.js';
import { summary, type Context } from './context.js';
import { verdict } from './table.js';

export interface EnginesContext extends Pick<Context, 'figures' | 'details' | 'log'> {
  readonly rows: number;
  readonly runs: number;
  /** The bench's hub: its dataset files lie beside it (`<hub>.files`). */
  readonly hub: string;
}

const GOAL = 0.5;

const SCAN = `
import json, sys, time
import polars as pl
sources = json.loads(sys.stdin.read())
t0 = time.perf_counter()
out = pl.scan_parquet(sources).select(pl.len().alias('n'), pl.col('ResultValue').sum().alias('s')).collect()
print(json.dumps({'rows': int(out['n'][0]), 'seconds': time.perf_counter() - t0}))
`;

async function scan(sources: readonly string[]): Promise<{ rows: number; seconds: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', SCAN], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as { rows: number; seconds: number }) : reject(new Error(`polars exited with ${code}: ${err}`))));
    child.stdin.end(JSON.stringify(sources));
  });
}

export async function enginesSection(ctx: EnginesContext): Promise<void> {
  const api = await startApi(ctx.hub, { API_KEYS: '' });
  const http: number[] = [];
  const local: number[] = [];
  try {
    const manifest = (await (await fetch(`${api.base}/v1/downloads/manifest.json`)).json()) as { rows: number; files: { url: string; object: string }[] };
    const urls = manifest.files.map((f) => f.url);
    const paths = manifest.files.map((f) => join(plainFilesDir(ctx.hub), f.object));
    ctx.log(`§E polars over ${urls.length} files: HTTP against local disk, ${ctx.runs} runs each`);
    // Interleaved, after one warm-up of each, so a slower moment of the machine falls on both.
    for (let i = 0; i <= ctx.runs; i++) {
      const overHttp = await scan(urls);
      const onDisk = await scan(paths);
      if (overHttp.rows !== manifest.rows || onDisk.rows !== manifest.rows) throw new Error(`polars counted ${overHttp.rows} rows over HTTP and ${onDisk.rows} on disk; the manifest lists ${manifest.rows}`);
      if (i === 0) continue;
      http.push(overHttp.seconds * 1000);
      local.push(onDisk.seconds * 1000);
    }
  } finally {
    await api.stop();
  }
  ctx.details['engines'] = { httpMs: http, localMs: local };
  const ratio = summary(local).median / summary(http).median;
  ctx.figures.push({
    section: 'E',
    name: `polars scanning the manifest's files over HTTP (keys off, default file budget) ÷ the same files on local disk, ${ctx.rows} rows (throughput)`,
    unit: '×',
    value: summary([ratio]),
    target: `≥ ${GOAL}×`,
    verdict: verdict(ratio >= GOAL),
    note: `HTTP ${summary(http).median.toFixed(0)} ms, local ${summary(local).median.toFixed(0)} ms (medians of ${ctx.runs})`,
  });
}
