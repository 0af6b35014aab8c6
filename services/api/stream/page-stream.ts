/**
 * Turns streamed row chunks into response bytes with back-pressure: a chunk is fetched from DuckDB only when
 * the socket has taken the previous one (ReadableStream `pull`). The first chunk is awaited before the
 * response exists, so a query that fails early still gets a status; a failure after that errors the stream,
 * which aborts the connection: a cut page never looks like a valid short one.
 */
import type { RowChunk } from '../db/snapshot.js';

export interface Frame {
  /** Bytes before the first row, e.g. `{"value":[`. */
  readonly prefix: string;
  /** Between rows, e.g. `,`. */
  readonly separator: string;
  /** After the last row, e.g. `]}`. */
  readonly suffix: string;
}

/** What phase one promised: exactly these many rows, Ids ascending. */
export interface PageExpectation {
  readonly count: number;
}

const encoder = new TextEncoder();

/**
 * @example
 * const body = await pageStream(snapshot.stream(compiled, signal), { prefix: '[', separator: ',', suffix: ']' }, { count: 10 });
 * return new Response(body, { headers });
 */
export async function pageStream(chunks: AsyncGenerator<RowChunk>, frame: Frame, expect: PageExpectation): Promise<ReadableStream<Uint8Array>> {
  let pending: IteratorResult<RowChunk> | undefined = await chunks.next();
  let sent = 0;
  let last: bigint | string | undefined;

  function render(chunk: RowChunk): string {
    for (const id of chunk.ids) {
      // Phase two streams without ORDER BY; a table that ever came back out of order must not be served.
      if (last !== undefined && !(id > last)) throw new Error(`rows out of Id order at ${String(id)}`);
      last = id;
    }
    const text = chunk.rows.join(frame.separator);
    const out = sent === 0 ? text : frame.separator + text;
    sent += chunk.rows.length;
    if (sent > expect.count) throw new Error(`page has more rows than the ${expect.count} planned`);
    return out;
  }

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(frame.prefix));
      },
      async pull(controller) {
        try {
          const next = pending ?? (await chunks.next());
          pending = undefined;
          if (next.done) {
            if (sent !== expect.count) throw new Error(`page ended after ${sent} of ${expect.count} rows`);
            controller.enqueue(encoder.encode(frame.suffix));
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(render(next.value)));
        } catch (err) {
          await chunks.return(undefined);
          controller.error(err);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    // One DuckDB chunk in flight at a time: memory stays at a chunk, whatever the page size.
    { highWaterMark: 1 },
  );
}
