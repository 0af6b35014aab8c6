/**
 * §1z: the paged JSON and CSV extracts with each Content-Encoding the clients ask for by default (gzip: Python
 * requests, R httr2, curl --compressed; br: browsers; zstd: browsers and clients built with it), against the same
 * extract uncompressed in the same run. The client decodes every body, as the clients do, on the same 2 cores.
 * Then the codec table behind the levels of services/api/middleware/compress.ts: one real 10,000-row page
 * compressed in this process as the middleware does it (a flush per 64 KiB write), per codec and level.
 */
import zlib from 'node:zlib';
import type { Transform } from 'node:stream';
import { COMPRESSORS } from '../../services/api/middleware/compress.js';
import { BENCH_API_KEY } from './api-process.js';
import { repeat, summary, type Context } from './context.js';
import { url } from './extract.js';
import type { Encoding } from './http-client.js';
import type { Figure } from './table.js';

const ENCODINGS: readonly (Encoding | undefined)[] = [undefined, 'gzip', 'br', 'zstd'];

const z = zlib.constants;
/** What the middleware serves (its own table, so the label cannot drift from it) and neighbouring levels. */
const CODECS: readonly (readonly [string, () => Transform])[] = [
  ['gzip (served)', COMPRESSORS.gzip],
  ['gzip 4', () => zlib.createGzip({ level: 4, flush: z.Z_SYNC_FLUSH })],
  ['gzip 6', () => zlib.createGzip({ level: 6, flush: z.Z_SYNC_FLUSH })],
  ['br 1', () => zlib.createBrotliCompress({ flush: z.BROTLI_OPERATION_FLUSH, params: { [z.BROTLI_PARAM_QUALITY]: 1 } })],
  ['br (served)', COMPRESSORS.br],
  ['zstd (served)', COMPRESSORS.zstd],
  ['zstd 3', () => zlib.createZstdCompress({ flush: z.ZSTD_e_flush, params: { [z.ZSTD_c_compressionLevel]: 3 } })],
  ['zstd 6', () => zlib.createZstdCompress({ flush: z.ZSTD_e_flush, params: { [z.ZSTD_c_compressionLevel]: 6 } })],
];

export async function compressionSection(ctx: Context): Promise<void> {
  const { settings, client, base, figures, log } = ctx;
  // The first 20 pages (200k rows), twice after a 2-page warm-up: the per-page cost does not depend on the offset
  // (§2), and four encodings of two formats would otherwise be most of a quick run.
  const pages = Math.min(20, Math.ceil(ctx.filters.totalRows / 10_000));
  const details: Record<string, unknown> = {};
  for (const format of ['json', 'csv'] as const) {
    const first = url(base, 'Records', { $top: '10000', ...(format === 'json' ? {} : { $format: format }) });
    log(`§1z ${format} extract, ${pages} pages, as ${ENCODINGS.map((e) => e ?? 'identity').join(', ')}`);
    let identity = NaN;
    for (const encoding of ENCODINGS) {
      await client.extract(first, format, { maxPages: 2, encoding });
      const runs = await repeat(Math.min(2, settings.extractRuns), 0, () => client.extract(first, format, { maxPages: pages, encoding }));
      const rps = summary(runs.map((r) => r.rows / (r.ms / 1000)));
      if (encoding === undefined) identity = rps.median;
      const wire = runs[0]!.wireBytes / runs[0]!.bytes;
      const figure: Figure = {
        section: '1z',
        name: `HTTP /Records ${format.toUpperCase()} extract, ${encoding ?? 'identity'}, first ${pages} pages`,
        unit: 'rows/s',
        value: rps,
        ...(encoding ? { ratio: rps.median / identity, ratioOf: 'identity', target: '≥ 0.5× identity' } : {}),
        verdict: encoding ? (rps.median / identity >= 0.5 ? 'PASS' : 'MISS') : 'info',
        note: `${(runs[0]!.wireBytes / 1e6).toFixed(1)} MB on the wire${encoding ? ` (${(1 / wire).toFixed(1)}:1)` : ''}`,
      };
      figures.push(figure);
      details[`${format}-${encoding ?? 'identity'}`] = runs;
    }
  }
  ctx.details['compression'] = details;
  await codecTable(ctx);
}

async function codecTable(ctx: Context): Promise<void> {
  for (const format of ['json', 'csv'] as const) {
    const page = await fetch(url(ctx.base, 'Records', { $top: '10000', ...(format === 'json' ? {} : { $format: format }) }), { headers: { 'x-api-key': BENCH_API_KEY } });
    const body = Buffer.from(await page.arrayBuffer());
    for (const [name, make] of CODECS) {
      let out = 0;
      const runs = await repeat(ctx.settings.runs, 1, async () => {
        const started = performance.now();
        out = await compressed(body, make());
        return body.length / 1e6 / ((performance.now() - started) / 1000);
      });
      ctx.figures.push({ section: '1z', name: `${format.toUpperCase()} page (${(body.length / 1e6).toFixed(1)} MB) compressed by ${name}`, unit: 'MB/s', value: summary(runs), verdict: 'info', note: `${(body.length / out).toFixed(1)}:1` });
    }
  }
}

/** Bytes out of `codec` for `body` written in 64 KiB pieces, as a page's chunks reach the middleware. */
function compressed(body: Buffer, codec: Transform): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = 0;
    codec.on('data', (d: Buffer) => (out += d.length));
    codec.on('end', () => resolve(out));
    codec.on('error', reject);
    for (let i = 0; i < body.length; i += 65_536) codec.write(body.subarray(i, i + 65_536));
    codec.end();
  });
}
