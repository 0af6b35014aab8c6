/**
 * A body that fails after its headers were sent must reach the client as a cut connection, never as a complete
 * response. @hono/node-server, told of such a failure while it waits for the socket to drain, ends the response
 * (`outgoing.end('Error: …')`: a clean last chunk) before destroying it, so an interrupted export or CSV page would
 * arrive as a short file that looks whole. This wraps every streamed body outermost (after compression) and
 * destroys the socket itself the moment the body errors, before the server can end it.
 *
 * A body whose client takes nothing for `stallMs` is cut the same way (STREAM_STALL_MS): a client that stops
 * reading would otherwise hold its query slot, its place per key and its snapshot for as long as it keeps the
 * connection open. Stalled means the server asked for no next chunk: the previous one still sits in the socket's
 * buffers, which a client reading even slowly keeps emptying.
 */
import type { MiddlewareHandler } from 'hono';

/** What @hono/node-server puts in `c.env` (HttpBindings); absent under `app.request()` in tests. */
interface NodeBindings {
  readonly outgoing?: { destroy(err?: Error): void; readonly destroyed?: boolean };
}

export interface CutOptions {
  /** Cut a body whose client has taken no chunk for this long; never when left out. */
  readonly stallMs?: number | undefined;
  /**
   * The same for a page (a route whose deadline is its first row: pages, counts, items, citations), when shorter:
   * a page is at most MAX_PAGE_BYTES that a client reads at once, while an export or a file may be read slowly for
   * hours, so a page's stalled reader is cut sooner and a wave of stalled pages holds places for less (issue 47
   * item 4). Left out, `stallMs`.
   */
  readonly pageStallMs?: number | undefined;
}

export function cutOnError(opts: CutOptions = {}): MiddlewareHandler {
  return async function cutConnectionOnBodyError(c, next) {
    await next();
    const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
    const body = c.res.body;
    if (!outgoing || !body) return;
    const reader = body.getReader();
    const cut = (err: Error) => {
      if (!outgoing.destroyed) outgoing.destroy(err);
    };
    const page = c.get('lease')?.deadline === 'first-row';
    const stallMs = page && opts.pageStallMs !== undefined ? Math.min(opts.pageStallMs, opts.stallMs ?? Infinity) : opts.stallMs;
    const stall = stallMs === undefined ? undefined : stallTimer(stallMs, () => {
      const err = new Error(`the client read nothing for ${stallMs} ms`);
      cut(err);
      void reader.cancel(err).catch(() => {});
    });
    const guarded = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          stall?.reading();
          let result: ReadableStreamReadResult<Uint8Array>;
          try {
            result = await reader.read();
          } catch (err) {
            stall?.stop();
            cut(err instanceof Error ? err : new Error(String(err)));
            controller.error(err);
            return;
          }
          if (result.done) {
            stall?.stop();
            controller.close();
          } else {
            controller.enqueue(result.value);
            stall?.waiting();
          }
        },
        cancel: (reason) => (stall?.stop(), reader.cancel(reason)),
      },
      { highWaterMark: 0 },
    );
    c.res = new Response(guarded, c.res);
  };
}

/**
 * Calls `onStall` once the body has waited `ms` for its client without a break. One timer per body, moved on only
 * when it fires early (a timer per chunk would be set and cleared thousands of times a second on a fast transfer).
 */
function stallTimer(ms: number, onStall: () => void): { waiting(): void; reading(): void; stop(): void } {
  let since: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    timer = undefined;
    if (since === undefined) return;
    const left = since + ms - performance.now();
    if (left <= 0) return onStall();
    timer = setTimeout(check, left);
    timer.unref();
  };
  return {
    waiting() {
      since = performance.now();
      if (!timer) check();
    },
    reading() {
      since = undefined;
    },
    stop() {
      since = undefined;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
