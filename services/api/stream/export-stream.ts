/**
 * A whole-result export's bytes as a response body, with back-pressure: the next chunk is read from the pipe only
 * when the socket has taken the previous one (ReadableStream `pull`), and the pipe's reader stops DuckDB's writer
 * when it falls behind (db/extract/copy-export.ts). The first chunk is awaited before the response exists, so a
 * query that fails at once still gets a status. After that a failure, or a COPY that wrote another number of rows
 * than were counted, errors the stream, which aborts the connection: the client sees a cut transfer (no final
 * chunk), never a short file that looks complete.
 */

export async function exportStream(chunks: AsyncGenerator<Uint8Array, number>, prefix: Uint8Array | undefined, expectRows: number): Promise<ReadableStream<Uint8Array>> {
  let pending: IteratorResult<Uint8Array, number> | undefined = await chunks.next();
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (prefix) controller.enqueue(prefix);
      },
      async pull(controller) {
        try {
          const next = pending ?? (await chunks.next());
          pending = undefined;
          if (next.done) {
            if (next.value !== expectRows) throw new Error(`export wrote ${next.value} rows where ${expectRows} were counted`);
            controller.close();
            return;
          }
          controller.enqueue(next.value);
        } catch (err) {
          await chunks.return(0);
          controller.error(err);
        }
      },
      async cancel() {
        await chunks.return(0);
      },
    },
    { highWaterMark: 1 },
  );
}
