/**
 * Response compression for streamed pages. Hono's own `compress` has neither brotli nor zstd, and the DataStream
 * clients need a rule it does not know: brotli only when the client lists gzip too. datastream-py without the
 * brotli module and datastreamsh's curl without --compressed send `Accept-Encoding: br` alone and cannot decode it.
 * zstd (RFC 8878; Node's zlib since 22.15) goes to any client that lists it: browsers since 2024, curl built with
 * libzstd, urllib3 2 with `zstandard` installed. Level 1 compresses a JSON page both faster and smaller than
 * brotli 4 or gzip 4. gzip is served at level 1: at 4 its CPU held the CSV extract far below its identity rate for
 * a wire barely smaller (docs/performance.md, §1z compression; the bench's codec table).
 */
import { Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { MiddlewareHandler } from 'hono';

export interface CompressOptions {
  /** Bodies smaller than this (when their length is known) are sent as they are. */
  readonly threshold?: number;
}

export type Encoding = 'zstd' | 'br' | 'gzip';

/** `zstd` when listed; else `br` when gzip and br are both listed, `gzip` when gzip is; otherwise identity. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  const listed = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    listed.set(name.trim(), q ? Number(q.slice(2)) : 1);
  }
  const ok = (name: string) => (listed.get(name) ?? 0) > 0;
  if (ok('zstd')) return 'zstd';
  if (!ok('gzip')) return undefined;
  return ok('br') ? 'br' : 'gzip';
}

/** What each encoding is served with (the bench's codec table measures these against their neighbours). */
export const COMPRESSORS: { readonly [E in Encoding]: () => Transform } = {
  zstd: () => zlib.createZstdCompress({ flush: zlib.constants.ZSTD_e_flush, params: { [zlib.constants.ZSTD_c_compressionLevel]: 1 } }),
  br: () => zlib.createBrotliCompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: () => zlib.createGzip({ level: 1, flush: zlib.constants.Z_SYNC_FLUSH }),
};

export function compress(opts: CompressOptions = {}): MiddlewareHandler {
  const threshold = opts.threshold ?? 1024;
  return async function compressResponse(c, next) {
    await next();
    const res = c.res;
    c.header('Vary', 'Accept-Encoding', { append: true });
    if (!res.body || res.headers.has('Content-Encoding') || c.req.method === 'HEAD') return;
    // A dataset file is served as its bytes: its ranges, length and hash count those bytes (downloads/dataset-file.ts).
    if (res.headers.has('Accept-Ranges')) return;
    const type = res.headers.get('Content-Type') ?? '';
    if (!/json|csv|xml|html|text/.test(type)) return;
    const length = res.headers.get('Content-Length');
    if (length !== null && Number(length) < threshold) return;
    const encoding = chooseEncoding(c.req.header('accept-encoding'));
    if (!encoding) return;
    // Flush after every write so each DuckDB chunk reaches the client as soon as it is compressed;
    // low levels keep compression from becoming the bottleneck of an extract.
    const compressor = COMPRESSORS[encoding]();
    const source = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
    source.on('error', (err) => compressor.destroy(err));
    // A client that leaves cancels the compressed stream; pass that back so the page stops its DuckDB query.
    compressor.on('close', () => source.destroy());
    const body = Readable.toWeb(source.pipe(compressor)) as ReadableStream<Uint8Array>;
    const headers = new Headers(res.headers);
    headers.set('Content-Encoding', encoding);
    headers.delete('Content-Length');
    c.res = new Response(body, { status: res.status, headers });
  };
}
