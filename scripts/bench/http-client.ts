/**
 * One keep-alive connection, one request at a time (as the official clients page), reading every byte of the
 * body. No Accept-Encoding is sent, so figures are for identity bodies.
 */
import { Agent, request } from 'node:http';

export interface Response {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly bytes: number;
  /** Occurrences of the client's `marker` in the body (rows), counted across chunk boundaries. */
  readonly markers: number;
  /** The last `keepTail` bytes of the body as text (where `@odata.nextLink` sits), or the whole body if shorter. */
  readonly tail: string;
  readonly ms: number;
}

export interface GetOptions {
  readonly marker?: Buffer;
  readonly keepTail?: number;
  /** Keep the whole body as text (small responses: counts, aggregates). */
  readonly whole?: boolean;
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
        const req = request(url, { agent, headers }, (res) => {
          let bytes = 0;
          let markers = 0;
          let carry = Buffer.alloc(0);
          const keepTail = opts.keepTail ?? 4096;
          let tail = Buffer.alloc(0);
          const whole: Buffer[] = [];
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (opts.whole) whole.push(chunk);
            if (opts.marker) {
              const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
              for (let i = buf.indexOf(opts.marker); i >= 0; i = buf.indexOf(opts.marker, i + opts.marker.length)) markers++;
              carry = Buffer.from(buf.subarray(Math.max(0, buf.length - (opts.marker.length - 1))));
            }
            tail = chunk.length >= keepTail ? Buffer.from(chunk.subarray(chunk.length - keepTail)) : Buffer.concat([tail, chunk]).subarray(-keepTail);
          });
          res.on('error', reject);
          res.on('end', () => {
            const ms = performance.now() - started;
            const body = opts.whole ? Buffer.concat(whole).toString('utf8') : undefined;
            resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, markers, tail: tail.toString('utf8'), ms, body });
          });
        });
        req.on('error', reject);
        req.end();
      }),
    close: () => agent.destroy(),
  };
}

/** The next page of a JSON page (`@odata.nextLink` at the end of the body) or a CSV page (`Link: <…>; rel="next"`). */
export function nextPage(res: Response): string | undefined {
  const m = /"@odata\.nextLink":"([^"]+)"\}\s*$/.exec(res.tail);
  if (m) return JSON.parse(`"${m[1]}"`) as string;
  const link = res.headers['link'];
  const l = typeof link === 'string' ? /<([^>]+)>;\s*rel="next"/.exec(link) : null;
  return l?.[1];
}
