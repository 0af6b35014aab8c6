/**
 * Turns streamed chunks into response bytes with back-pressure: a chunk is fetched from DuckDB only when
 * the socket has taken the previous one (ReadableStream `pull`). The first chunk is awaited before the
 * response exists, so a query that fails early still gets a status; a failure after that errors the stream,
 * which aborts the connection: a cut page never looks like a valid short one.
 */

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

/** Text frame: rows joined by `separator`. */
export function textFrame(prefix: string, separator: string, suffix: string): Frame<{ readonly rows: readonly string[] }> {
  return { prefix, suffix, render: (chunk, first) => (first ? '' : separator) + chunk.rows.join(separator) };
}

/**
 * @example
 * const body = await pageStream(snapshot.stream(compiled, signal), textFrame('[', ',', ']'), { count: 10 });
 * return new Response(body, { headers });
 */
export async function pageStream<C extends { readonly ids: readonly (bigint | string)[] }>(
  chunks: AsyncGenerator<C>,
  frame: Frame<C>,
  expect: PageExpectation,
): Promise<ReadableStream<Uint8Array>> {
  let pending: IteratorResult<C> | undefined = await chunks.next();
  let sent = 0;
  let last: bigint | string | undefined;

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
