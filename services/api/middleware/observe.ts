/**
 * What an operator sees of each request: its metrics (observe/api-metrics.ts) and its access-log line, both
 * taken when the body has ended, not when the handler returned: a page or an export streams long after that, and
 * only the end knows how many bytes went out and whether the body was sent whole, cut by an error, or abandoned by
 * its client. Mounted outermost, so the bytes it counts are those the socket was handed (compressed, when they were).
 *
 * One access-log line is one JSON object: time, request id, key id (never the key; the client's address when it
 * sent none), method, path with its query, status, bytes, duration, the Server-Timing stages, publication, rows.
 * Request headers are never logged, so neither is `x-api-key`; a key sent in the query string is redacted, a long
 * target is logged as its prefix, length and hash (log-target.ts), and refusals (4xx, and the gate's 503) are
 * sampled per client (refusal-sampler.ts), so what one client can make the log write is bounded.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { servedRows } from '../http/served-rows.js';
import { PUBLICATION_HEADER } from '../http/paths.js';
import { responseFormat, type ApiMetrics, type ServedRequest } from '../observe/api-metrics.js';
import { routeFamily } from '../observe/route-family.js';
import { apiClient, clientAddress } from './api-key.js';
import { loggedTarget } from './log-target.js';
import { refusalSampler } from './refusal-sampler.js';
import { requestIdOf } from './request-id.js';

export interface ObserveOptions {
  readonly metrics?: ApiMetrics;
  /** Writes one access-log line (without its line feed); left out, there is no access log (ACCESS_LOG=off). */
  readonly accessLog?: (line: string) => void;
  /** Share of requests logged, 0 to 1 (ACCESS_LOG_SAMPLE); server errors and bodies not sent whole always are. */
  readonly sample?: number;
  /** Injected by tests: the sampling draw, and the clock in milliseconds. */
  readonly random?: () => number;
  readonly now?: () => number;
  readonly trustProxy?: boolean | number;
}

type Outcome = ServedRequest['outcome'];

/**
 * The status logged and counted for a client that left before its answer was ready (nginx's "client closed
 * request"): the 500 or 503 an interrupted query or an abandoned wait would have answered is nobody's answer, and
 * counted as a server error it would page an operator for a client's choice.
 */
export const CLIENT_CLOSED = 499;

export function observe(opts: ObserveOptions = {}): MiddlewareHandler {
  const { metrics, accessLog } = opts;
  if (!metrics && !accessLog) return async function unobserved(_c, next) {
    await next();
  };
  const sample = opts.sample ?? 1;
  if (!(sample >= 0 && sample <= 1)) throw new Error(`the access log's sample must be between 0 and 1, got ${sample}`);
  const random = opts.random ?? Math.random;
  const now = opts.now ?? (() => performance.now());
  const refusals = refusalSampler();
  return async function observeRequest(c, next) {
    const start = now();
    const family = routeFamily(c.req.path);
    metrics?.started(family);
    let ended = false;
    const end = (bytes: number, outcome: Outcome, unanswered = false) => {
      if (ended) return;
      ended = true;
      const durationMs = now() - start;
      const served: ServedRequest = {
        family,
        method: c.req.method,
        status: unanswered ? CLIENT_CLOSED : c.res.status,
        contentType: c.res.headers.get('content-type') ?? undefined,
        bytes,
        seconds: durationMs / 1000,
        rows: servedRows(c),
        outcome,
        refusal: unanswered ? undefined : refusal(c, family),
      };
      metrics?.finished(served);
      if (!accessLog) return;
      if ((served.status >= 400 && served.status < 500) || served.refusal !== undefined) {
        const { write, suppressed } = refusals.take(apiClient(c, opts.trustProxy).id, now());
        if (write) accessLog(JSON.stringify({ ...accessRecord(c, served, durationMs, opts.trustProxy), ...(suppressed ? { suppressed } : {}) }));
      } else if (served.status >= 500 || outcome !== 'complete' || random() < sample) {
        accessLog(JSON.stringify(accessRecord(c, served, durationMs, opts.trustProxy)));
      }
    };
    // A client that left before its answer was ready (mid-body, or while its query ran) was not answered: that is
    // `cancelled` with CLIENT_CLOSED, whatever status the answer nobody reads would have had.
    const left = () => c.req.raw.signal.aborted;
    try {
      await next();
    } catch (err) {
      end(0, left() ? 'cancelled' : 'cut', left());
      throw err;
    }
    if (left()) return end(0, 'cancelled', true);
    const body = c.res.body;
    if (!body || c.req.method === 'HEAD') return end(0, 'complete');
    const reader = body.getReader();
    let bytes = 0;
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          let result: ReadableStreamReadResult<Uint8Array>;
          try {
            result = await reader.read();
          } catch (err) {
            end(bytes, 'cut');
            controller.error(err);
            return;
          }
          if (result.done) {
            end(bytes, 'complete');
            controller.close();
            return;
          }
          bytes += result.value.byteLength;
          controller.enqueue(result.value);
        },
        cancel(reason) {
          end(bytes, 'cancelled');
          return reader.cancel(reason);
        },
      },
      // Read only when the server asks: what is counted is what the socket was handed, and the stall timer
      // (cut-on-error.ts) still sees a client that takes nothing.
      { highWaterMark: 0 },
    );
    c.res = new Response(counted, c.res);
  };
}

/**
 * Which limit refused the request, if one did: `rate` the token bucket (its 429 carries RateLimit-*), `concurrency`
 * the places per key, exports or query share (429), `busy` the query gate (503).
 */
function refusal(c: Context, family: string): string | undefined {
  const err = c.error;
  if (!(err instanceof ApiError)) return undefined;
  if (err.code === 'rate_limited') return 'RateLimit-Limit' in err.headers ? 'rate' : 'concurrency';
  // readyz's 503 while draining is not a refusal of work.
  if (err.code === 'unavailable' && family !== 'health') return 'busy';
  return undefined;
}

interface AccessRecord {
  readonly time: string;
  readonly service: 'api';
  readonly msg: 'request';
  readonly requestId: string | undefined;
  readonly keyId?: string;
  readonly client: string;
  readonly method: string;
  readonly path: string;
  readonly pathBytes?: number;
  readonly pathHash?: string;
  readonly status: number;
  readonly bytes: number;
  readonly durationMs: number;
  readonly outcome: Outcome;
  readonly timing?: Record<string, number>;
  readonly publication?: string;
  readonly format?: string;
  readonly rows?: number;
  readonly error?: string;
}

function accessRecord(c: Context, served: ServedRequest, durationMs: number, trustProxy: boolean | number = false): AccessRecord {
  const url = new URL(c.req.url);
  const client = c.get('apiClient');
  const publication = c.get('lease')?.publication ?? c.res.headers.get(PUBLICATION_HEADER) ?? undefined;
  const timing = serverTiming(c.res.headers.get('server-timing'));
  return {
    time: new Date().toISOString(),
    service: 'api',
    msg: 'request',
    requestId: requestIdOf(c),
    ...(client?.kind === 'key' ? { keyId: client.id } : {}),
    client: clientAddress(c, trustProxy),
    method: served.method,
    ...loggedTarget(`${url.pathname}${url.search}`),
    status: served.status,
    bytes: served.bytes,
    durationMs: Math.round(durationMs * 10) / 10,
    outcome: served.outcome,
    ...(timing ? { timing } : {}),
    ...(publication ? { publication } : {}),
    ...(served.contentType ? { format: responseFormat(served.contentType) } : {}),
    ...(served.rows !== undefined && served.outcome === 'complete' ? { rows: served.rows } : {}),
    ...(served.status === CLIENT_CLOSED ? {} : c.error instanceof ApiError ? { error: c.error.code } : c.error ? { error: 'internal' } : {}),
  };
}

/**
 * The stages of a Server-Timing header (http/server-timing.ts writes them) as milliseconds by name.
 * @example serverTiming('parse;dur=0.2, plan;dur=0.1') // { parse: 0.2, plan: 0.1 }
 */
export function serverTiming(header: string | null): Record<string, number> | undefined {
  if (!header) return undefined;
  const stages: Record<string, number> = {};
  for (const part of header.split(',')) {
    const m = /^\s*([A-Za-z0-9_.-]+)\s*;\s*dur=([0-9.]+)\s*$/.exec(part);
    if (m) stages[m[1]!] = Number(m[2]);
  }
  return Object.keys(stages).length ? stages : undefined;
}
