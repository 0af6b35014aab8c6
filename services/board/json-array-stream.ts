import type { Listing } from './messages.js';

export interface JsonArrayOptions {
  /** A listing nobody reads from for this long is cut: its cursor holds a connection (and, with PGlite, the database). */
  readonly stallMs: number;
  /**
   * Cuts the connection when the array cannot be finished, so a truncated array never looks complete; returns
   * false when there is no connection to cut (app.request() in tests), and the stream errors instead.
   */
  readonly abort: (reason: Error) => boolean;
  readonly onError?: (err: unknown) => void;
}

const CHUNK_CHARS = 16 * 1024;

/**
 * Streams a listing as one JSON array, a chunk at a time as the client reads (back-pressure reaches the cursor),
 * and closes the listing however the response ends: completed, cancelled by the client, failed or stalled.
 */
export function jsonArrayStream(listing: Listing, opts: JsonArrayOptions): ReadableStream<Uint8Array> {
  const rows = listing[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  let first = true;
  let timer: NodeJS.Timeout | undefined;
  let stopped: Promise<void> | undefined;
  // Failing and then being cancelled by the closing socket both arrive here; the listing closes once.
  const stop = (): Promise<void> => {
    clearTimeout(timer);
    return (stopped ??= listing.close());
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const fail = (err: Error): void => {
    opts.onError?.(err);
    void stop();
    // Erroring the stream as well would make the server adapter append "Error: …" to the cut body.
    if (!opts.abort(err)) controller.error(err);
  };

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      async pull() {
        clearTimeout(timer);
        let chunk = first ? '[' : '';
        try {
          while (chunk.length < CHUNK_CHARS) {
            const next = await rows.next();
            if (next.done) {
              await stop();
              controller.enqueue(encoder.encode(`${chunk}]\n`));
              controller.close();
              return;
            }
            chunk += (first ? '' : ',') + JSON.stringify(next.value);
            first = false;
          }
        } catch (err) {
          fail(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        controller.enqueue(encoder.encode(chunk));
        timer = setTimeout(() => fail(new Error(`listing stalled for ${opts.stallMs} ms`)), opts.stallMs);
        timer.unref();
      },
      cancel: stop,
    },
    // Pull only when the previous chunk was taken, so a slow client slows the cursor instead of filling memory.
    { highWaterMark: 0 },
  );
}
