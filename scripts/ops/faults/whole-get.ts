/**
 * One GET read to its end, or seen cut: what a client of the official kind can tell after a replica dies under it.
 * A response the server could not finish arrives without its last chunk; Node reports that as an error or a close
 * before the end, never as a short body that looks whole. gzip is asked for and undone, as the clients do.
 */
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';

export interface WholeGet {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The decoded body; undefined when the response was cut (or the connection failed before one). */
  readonly body?: Buffer;
  readonly cut: boolean;
  readonly servedBy?: string;
}

export interface WholeGetOptions {
  readonly headers?: Record<string, string>;
  /** Once the first body chunk of a 200 has arrived: called, then awaited before the rest is read (a client paused there). */
  readonly onFirstChunk?: (servedBy: string | undefined) => Promise<void> | void;
}

export function wholeGet(url: string, opts: WholeGetOptions = {}): Promise<WholeGet> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: WholeGet) => {
      if (!settled) (settled = true), resolve(r);
    };
    // A connection of its own: on Node's keep-alive global agent a request may go out on a socket the proxy is closing.
    const req = request(url, { headers: { 'accept-encoding': 'gzip', ...opts.headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      const servedBy = typeof res.headers['x-served-by'] === 'string' ? res.headers['x-served-by'] : undefined;
      const base = { status: res.statusCode ?? 0, headers: res.headers, servedBy };
      let first = true;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (!first || !opts.onFirstChunk || res.statusCode !== 200) return;
        first = false;
        res.pause();
        void Promise.resolve(opts.onFirstChunk(servedBy)).then(() => res.resume());
      });
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        try {
          done({ ...base, cut: false, body: res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw });
        } catch {
          done({ ...base, cut: true });
        }
      });
      res.on('error', () => done({ ...base, cut: true }));
      res.on('close', () => done({ ...base, cut: true }));
    });
    req.on('error', () => done({ status: 0, headers: {}, cut: true }));
    req.end();
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Seconds a 429 or 503 asks the client to wait (Retry-After), or 1. */
export function retryAfterMs(r: WholeGet): number {
  const s = Number(r.headers['retry-after']);
  return (Number.isFinite(s) && s > 0 ? s : 1) * 1000;
}
