/**
 * Response compression for streamed pages. Hono's own `compress` has no brotli, and the DataStream clients
 * need a rule it does not know: compress only when the client lists gzip. datastream-py without the brotli
 * module and datastreamsh's curl without --compressed send `Accept-Encoding: br` alone and cannot decode it.
 */
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { MiddlewareHandler } from 'hono';

export interface CompressOptions {
  /** Bodies smaller than this (when their length is known) are sent as they are. */
  readonly threshold?: number;
}

/** `br` when gzip and br are both listed, `gzip` when gzip is, otherwise identity. */
export function chooseEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
  const listed = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    listed.set(name.trim(), q ? Number(q.slice(2)) : 1);
  }
  const ok = (name: string) => (listed.get(name) ?? 0) > 0;
  if (!ok('gzip')) return undefined;
  return ok('br') ? 'br' : 'gzip';
}

export function compress(opts: CompressOptions = {}): MiddlewareHandler {
  const threshold = opts.threshold ?? 1024;
  return async function compressResponse(c, next) {
    await next();
    const res = c.res;
    c.header('Vary', 'Accept-Encoding', { append: true });
    if (!res.body || res.headers.has('Content-Encoding') || c.req.method === 'HEAD') return;
    const type = res.headers.get('Content-Type') ?? '';
    if (!/json|csv|xml|html|text/.test(type)) return;
    const length = res.headers.get('Content-Length');
    if (length !== null && Number(length) < threshold) return;
    const encoding = chooseEncoding(c.req.header('accept-encoding'));
    if (!encoding) return;
    // Flush after every write so each DuckDB chunk reaches the client as soon as it is compressed;
    // low levels keep compression from becoming the bottleneck of an extract.
    const compressor =
      encoding === 'br'
        ? zlib.createBrotliCompress({
            flush: zlib.constants.BROTLI_OPERATION_FLUSH,
            params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 },
          })
        : zlib.createGzip({ level: 4, flush: zlib.constants.Z_SYNC_FLUSH });
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
