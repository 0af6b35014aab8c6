/**
 * Concurrency limits. A request holds its place until its response has been sent, not only until the handler
 * returns: a page keeps its DuckDB query open while it streams.
 *
 * - per client (the documentation asks clients not to send parallel requests): beyond `max`, 429;
 * - global DuckDB query slots with a short queue (limits/query-gate.ts), of which calls without a key hold at most
 *   their share: when full, 503 with Retry-After. A response
 *   waiting on its client parks its slot (another query runs meanwhile) and takes it back before it reads on; one
 *   client holds at most its share of the slots (beyond it, 429).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import type { QueryGate, QuerySlot } from '../limits/query-gate.js';
import { apiClient } from './api-key.js';

export interface PerClientOptions {
  readonly max: number;
  readonly trustProxy?: boolean | number;
  /**
   * Where the places are counted: in this process by default; redis/redis-slots.ts counts them in Redis so that
   * the limit holds across replicas.
   */
  readonly slots?: ClientSlots;
  /**
   * A limit beside the requests' own, counted under names of its own: `export` whole-result exports (and whole
   * dataset files), `file` requests for dataset files.
   */
  readonly scope?: 'export' | 'file';
}

/** Places in flight per client: `tryAcquire` resolves the release of a place, or undefined when all `max` are taken. */
export interface ClientSlots {
  tryAcquire(id: string, max: number): Promise<(() => void) | undefined> | (() => void) | undefined;
}

/** The in-process count of places. */
export function localSlots(): ClientSlots {
  const inFlight = new Map<string, number>();
  return {
    tryAcquire(id, max) {
      const n = inFlight.get(id) ?? 0;
      if (n >= max) return undefined;
      inFlight.set(id, n + 1);
      return () => {
        const left = (inFlight.get(id) ?? 1) - 1;
        if (left > 0) inFlight.set(id, left);
        else inFlight.delete(id);
      };
    },
  };
}

export function concurrencyPerClient(opts: PerClientOptions): MiddlewareHandler {
  if (!Number.isInteger(opts.max) || opts.max < 1) throw new Error(`max concurrent requests per key must be ≥ 1, got ${opts.max}`);
  const slots = opts.slots ?? localSlots();
  return async function limitConcurrencyPerClient(c, next) {
    const client = apiClient(c, opts.trustProxy).id;
    const release = await slots.tryAcquire(opts.scope ? `${opts.scope}:${client}` : client, opts.max);
    if (!release && opts.scope === 'export') {
      throw new ApiError(
        'rate_limited',
        `Too many exports at once: at most ${opts.max} per key. Wait for your running export to finish (or cancel it), then retry.`,
        {},
        { 'Retry-After': '5' },
      );
    }
    if (!release && opts.scope === 'file') {
      throw new ApiError(
        'rate_limited',
        `Too many dataset file requests at once: at most ${opts.max} per key. Wait for one to finish before sending the next (an engine reading in parallel: lower its number of parallel reads).`,
        {},
        { 'Retry-After': '1' },
      );
    }
    if (!release) {
      throw new ApiError(
        'rate_limited',
        `Too many parallel requests: at most ${opts.max} per key at once. Wait for a response to finish before sending the next request (the API asks clients not to send requests in parallel).`,
        {},
        { 'Retry-After': '1' },
      );
    }
    await holdUntilSent(c, next, release);
  };
}

export function queryGate(gate: QueryGate, trustProxy: boolean | number = false): MiddlewareHandler {
  return async function waitForQuerySlot(c, next) {
    const client = apiClient(c, trustProxy);
    const slot = await gate.acquire(c.req.raw.signal, client.id, client.kind === 'browser');
    if (slot === 'keyless_share') {
      throw new ApiError(
        'unavailable',
        'The API is busy: the queries of calls without an API key have taken their share of the queue. Retry after the number of seconds in Retry-After, or send an API key (x-api-key).',
        {},
        { 'Retry-After': '2' },
      );
    }
    if (slot === 'client_share') {
      throw new ApiError(
        'rate_limited',
        'Too many queries at once from one client: wait for a response to finish (read it to its end) before sending the next request.',
        {},
        { 'Retry-After': '1' },
      );
    }
    if (typeof slot !== 'object') {
      throw new ApiError('unavailable', 'The API is busy: too many queries are running. Retry after the number of seconds in Retry-After.', {}, { 'Retry-After': '2' });
    }
    await holdUntilSent(c, next, () => slot.release(), slot);
  };
}

/**
 * HEAD gets the headers of the GET and no body. Hono drops that body without cancelling it, which would leave a
 * page's DuckDB query (and its snapshot) open for nobody: cancel it here, which interrupts the query.
 */
export function headWithoutBody(): MiddlewareHandler {
  return async function cancelHeadBody(c, next) {
    await next();
    if (c.req.method !== 'HEAD' || !c.res.body) return;
    await c.res.body.cancel();
    c.res = new Response(null, { status: c.res.status, headers: c.res.headers });
  };
}

/**
 * Runs the rest of the chain and calls `done` exactly once when the response body has been fully read,
 * cancelled or failed (or at once when there is no body). The client's disconnect also ends it, in case the
 * server never reads the body. With `slot`, the slot is parked whenever a chunk waits for the client to take it,
 * and taken back before the next chunk is read.
 */
export async function holdUntilSent(c: Context, next: () => Promise<void>, done: () => void, slot?: Pick<QuerySlot, 'park' | 'resume'>): Promise<void> {
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    c.req.raw.signal.removeEventListener('abort', finish);
    done();
  };
  c.req.raw.signal.addEventListener('abort', finish, { once: true });
  try {
    await next();
  } catch (err) {
    finish();
    throw err;
  }
  const body = c.res.body;
  if (!body || c.req.method === 'HEAD') return finish();
  const reader = body.getReader();
  const tracked = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (slot && !(await slot.resume(c.req.raw.signal))) {
            // The client left while this response waited for a slot: the abort cancels the rows; end the body too,
            // as cut (never complete), with the code Node gives a premature close so the server does not log a stack.
            controller.error(Object.assign(new Error('the client went away'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
            finish();
            return;
          }
          const { done: end, value } = await reader.read();
          if (end) {
            controller.close();
            finish();
          } else {
            controller.enqueue(value);
            slot?.park();
          }
        } catch (err) {
          controller.error(err);
          finish();
        }
      },
      async cancel(reason) {
        finish();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  // A disconnect must reach the page stream even when a transform in between (compression) does not pass
  // cancellation back: cancelling here ends the DuckDB query. A client that left while the handler was still
  // working (its abort came before this listener) is cancelled at once: Node may not tell the server a second
  // time, and a body nobody reads would hold its query, connection and pipe forever.
  const cancel = () => void reader.cancel(c.req.raw.signal.reason).catch(() => {});
  if (c.req.raw.signal.aborted) cancel();
  else c.req.raw.signal.addEventListener('abort', cancel, { once: true });
  c.res = new Response(tracked, { status: c.res.status, headers: c.res.headers });
}
