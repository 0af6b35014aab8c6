/**
 * Turns streamed chunks into response bytes with back-pressure: a chunk is fetched from DuckDB only when
 * the socket has taken the previous one (ReadableStream `pull`). The first chunk is awaited before the
 * response exists, so a query that fails early still gets a status; a failure after that errors the stream,
 * which aborts the connection: a cut page never looks like a valid short one.
 */
import type { Key } from '../query/plan.js';

/** How one output format frames a page. */
export interface Frame<C> {
  /** Bytes before the first row, e.g. `{"value":[`. */
  readonly prefix: string | Uint8Array;
  /** One chunk's bytes; `first` is true for the page's first chunk (separators go between chunks). */
  readonly render: (chunk: C, first: boolean) => string | Uint8Array;
  /** After the last row, e.g. `]}`. */
  readonly suffix: string | Uint8Array;
}

/** What phase one promised: exactly these many rows, Ids ascending. */
export interface PageExpectation {
  readonly count: number;
}

const encoder = new TextEncoder();
const bytes = (b: string | Uint8Array) => (typeof b === 'string' ? encoder.encode(b) : b);

/**
 * @example
 * const body = await pageStream(snapshot.streamColumns(compiled, signal), arrowFrame(plan.fields), { count: 10 });
 * return new Response(body, { headers });
 */
export async function pageStream<C extends { readonly ids: readonly Key[] }>(
  chunks: AsyncGenerator<C>,
  frame: Frame<C>,
  expect: PageExpectation,
): Promise<ReadableStream<Uint8Array>> {
  let pending: IteratorResult<C> | undefined = await chunks.next();
  let sent = 0;
  let last: Key | undefined;

  function render(chunk: C): Uint8Array {
    for (const id of chunk.ids) {
      // Phase two streams without ORDER BY; a table that ever came back out of order must not be served.
      if (last !== undefined && !(id > last)) throw new Error(`rows out of Id order at ${String(id)}`);
      last = id;
    }
    const out = bytes(frame.render(chunk, sent === 0));
    sent += chunk.ids.length;
    if (sent > expect.count) throw new Error(`page has more rows than the ${expect.count} planned`);
    return out;
  }

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(bytes(frame.prefix));
      },
      async pull(controller) {
        try {
          const next = pending ?? (await chunks.next());
          pending = undefined;
          if (next.done) {
            if (sent !== expect.count) throw new Error(`page ended after ${sent} of ${expect.count} rows`);
            controller.enqueue(bytes(frame.suffix));
            controller.close();
            return;
          }
          controller.enqueue(render(next.value));
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

/**
 * Bytes per write to the response: a page of 10,000 Records rows is megabytes, which the pipe delivers in 64 KiB
 * reads; gathering them into fewer writes saves the per-write cost of web streams and the socket.
 */
const TEXT_BATCH = 256 * 1024;

/** How a text format frames the rows DuckDB's COPY writer produced. */
export interface TextFrame {
  readonly prefix: string;
  readonly suffix: string;
  /** What COPY writes after the last row that the format does not want (JSON: the final comma): checked and dropped. */
  readonly trailer: string;
}

/**
 * The text path: bytes from `Snapshot.copyText` framed as a page, with the same guarantees as `pageStream`: the
 * first bytes are awaited before the response exists, one batch in flight, and the suffix is written only when
 * the COPY reports exactly the planned number of rows (rows are sorted by Id in SQL, see exec/page-window.ts).
 *
 * @example
 * const body = await textPageStream(snapshot.copyText(q, ',', signal), { prefix: '[', suffix: ']', trailer: ',' }, { count: 10 });
 */
export async function textPageStream(source: AsyncGenerator<Uint8Array, number>, frame: TextFrame, expect: PageExpectation): Promise<ReadableStream<Uint8Array>> {
  const trailer = bytes(frame.trailer);
  let pending: IteratorResult<Uint8Array, number> | undefined = await source.next();
  // The last `trailer.length` bytes seen: sent only once more bytes follow them.
  let held: Uint8Array = new Uint8Array(0);

  /** The pipe's reads (64 KiB at most) gathered to about TEXT_BATCH bytes, and whether the page ended (its row count). */
  async function gather(): Promise<{ data: Uint8Array; rows?: number }> {
    const parts: Uint8Array[] = held.length ? [held] : [];
    let size = held.length;
    while (size < TEXT_BATCH) {
      const next = pending ?? (await source.next());
      pending = undefined;
      if (next.done) return { data: Buffer.concat(parts, size), rows: next.value };
      parts.push(next.value);
      size += next.value.length;
    }
    return { data: Buffer.concat(parts, size) };
  }

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(bytes(frame.prefix));
      },
      async pull(controller) {
        try {
          const { data, rows } = await gather();
          const cut = Math.max(0, data.length - trailer.length);
          held = data.slice(cut);
          if (cut > 0) controller.enqueue(data.subarray(0, cut));
          if (rows === undefined) return;
          if (rows !== expect.count) throw new Error(`page has ${rows} rows, ${expect.count} planned`);
          if (rows > 0 && Buffer.compare(held, trailer) !== 0) throw new Error(`page text does not end with ${JSON.stringify(frame.trailer)}`);
          controller.enqueue(bytes(frame.suffix));
          controller.close();
        } catch (err) {
          await source.return(0);
          controller.error(err);
        }
      },
      async cancel() {
        await source.return(0);
      },
    },
    { highWaterMark: 1 },
  );
}
