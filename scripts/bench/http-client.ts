/**
 * One keep-alive connection, one request at a time (as the official clients page), reading every byte of the
 * body. No Accept-Encoding is sent unless a request names an encoding; a compressed body is decoded here, as the
 * clients decode it, and its markers are counted in the decoded bytes.
 */
import { Agent, request } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

/** The Accept-Encoding each encoding's clients send: Python requests and R httr2; browsers; zstd-capable ones. */
export const ACCEPT_ENCODING = { gzip: 'gzip, deflate', br: 'gzip, deflate, br', zstd: 'gzip, deflate, br, zstd' } as const;
export type Encoding = keyof typeof ACCEPT_ENCODING;

const DECODERS: Record<string, () => Readable & NodeJS.WritableStream> = {
  gzip: () => zlib.createGunzip(),
  br: () => zlib.createBrotliDecompress(),
  zstd: () => zlib.createZstdDecompress(),
};

export interface Response {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Decoded body bytes. */
  readonly bytes: number;
  /** Bytes on the wire (the compressed body, when it was). */
  readonly wireBytes: number;
  /** Occurrences of the client's `marker` in the body (rows), counted across chunk boundaries. */
  readonly markers: number;
  /** The last `keepTail` bytes of the body as text (where `@odata.nextLink` sits), or the whole body if shorter. */
  readonly tail: string;
  /** The first `keepHead` bytes of the body as text (where a GeoJSON page's links sit), when asked for. */
  readonly head?: string;
  readonly ms: number;
  /** From the request to the response's headers (time to first byte). */
  readonly headersMs: number;
}

export interface GetOptions {
  readonly marker?: Buffer;
  readonly keepTail?: number;
  /** Keep the whole body as text (small responses: counts, aggregates). */
  readonly whole?: boolean;
  /** Ask for this Content-Encoding as its clients do (ACCEPT_ENCODING). */
  readonly encoding?: Encoding;
  /** Keep this many of the body's first bytes as `head`. */
  readonly keepHead?: number;
  /** Request headers of this request alone (e.g. Range). */
  readonly headers?: Record<string, string>;
  /** HEAD instead of GET. */
  readonly method?: 'GET' | 'HEAD';
}

export interface HttpClient {
  get(url: string, opts?: GetOptions): Promise<Response & { body?: string }>;
  close(): void;
}

export function createHttpClient(headers: Record<string, string>): HttpClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    get: (url, opts = {}) =>
      new Promise((resolve, reject) => {
        const started = performance.now();
        const sent = { ...headers, ...(opts.encoding ? { 'Accept-Encoding': ACCEPT_ENCODING[opts.encoding] } : {}), ...opts.headers };
        const req = request(url, { agent, headers: sent, method: opts.method ?? 'GET' }, (res) => {
          const headersMs = performance.now() - started;
          const headChunks: Buffer[] = [];
          let headBytes = 0;
          let wireBytes = 0;
          res.on('data', (chunk: Buffer) => (wireBytes += chunk.length));
          const decoder = DECODERS[String(res.headers['content-encoding'])];
          const body: Readable = decoder ? res.pipe(decoder()) : res;
          let bytes = 0;
          let markers = 0;
          // The last marker.length - 1 bytes seen: a marker split between two chunks is found in them plus the next
          // chunk's head. Each chunk is searched where it lies: copying every chunk (concat) cost the client more
          // CPU than the search, CPU the API then lacked on a 2-core machine.
          let carry: Buffer = Buffer.alloc(0);
          const keepTail = opts.keepTail ?? 4096;
          // References to the last chunks, at least keepTail bytes in all: the tail is copied out once, at the end.
          const recent: Buffer[] = [];
          let recentBytes = 0;
          const whole: Buffer[] = [];
          body.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (opts.whole) whole.push(chunk);
            if (opts.keepHead && headBytes < opts.keepHead) {
              headChunks.push(chunk);
              headBytes += chunk.length;
            }
            if (opts.marker) {
              const found = countMarkers(opts.marker, carry, chunk);
              markers += found.count;
              carry = found.carry;
            }
            recent.push(chunk);
            recentBytes += chunk.length;
            while (recentBytes - recent[0]!.length >= keepTail) recentBytes -= recent.shift()!.length;
          });
          res.on('error', reject);
          body.on('error', reject);
          body.on('end', () => {
            const ms = performance.now() - started;
            const text = opts.whole ? Buffer.concat(whole).toString('utf8') : undefined;
            const tail = Buffer.concat(recent).subarray(-keepTail).toString('utf8');
            const head = opts.keepHead ? Buffer.concat(headChunks).subarray(0, opts.keepHead).toString('utf8') : undefined;
            resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, wireBytes, markers, tail, ms, headersMs, body: text, ...(head === undefined ? {} : { head }) });
          });
        });
        req.on('error', reject);
        req.end();
      }),
    close: () => agent.destroy(),
  };
}

/**
 * Occurrences of `marker` that end in `chunk`: those inside it, and one that began in `carry` (the stream's last
 * marker.length - 1 bytes before it); and the carry for the next chunk.
 */
export function countMarkers(marker: Buffer, carry: Buffer, chunk: Buffer): { count: number; carry: Buffer } {
  const keep = marker.length - 1;
  let n = 0;
  if (carry.length > 0) {
    // Too short to hold a whole marker on either side: whatever it finds straddles the boundary.
    const joint = Buffer.concat([carry, chunk.subarray(0, keep)]);
    for (let i = joint.indexOf(marker); i >= 0; i = joint.indexOf(marker, i + 1)) n++;
  }
  for (let i = chunk.indexOf(marker); i >= 0; i = chunk.indexOf(marker, i + marker.length)) n++;
  const next = chunk.length >= keep ? Buffer.from(chunk.subarray(chunk.length - keep)) : Buffer.concat([carry, chunk]).subarray(-keep);
  return { count: n, carry: next };
}

/** The next page of a JSON page (`@odata.nextLink` at the end of the body) or a CSV page (`Link: <…>; rel="next"`). */
export function nextPage(res: Response): string | undefined {
  const m = /"@odata\.nextLink":"([^"]+)"\}\s*$/.exec(res.tail);
  if (m) return JSON.parse(`"${m[1]}"`) as string;
  const link = res.headers['link'];
  const l = typeof link === 'string' ? /<([^>]+)>;\s*rel="next"/.exec(link) : null;
  return l?.[1];
}
