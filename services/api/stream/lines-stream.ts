/**
 * Text made a chunk at a time (a window of NDJSON lines) as a response body with back-pressure: the next chunk is
 * made only when the socket has taken the previous one (ReadableStream `pull`). The first is awaited before the
 * response exists, so a query that fails at once still gets a status; a later failure errors the stream, which
 * cuts the connection (a cut body is never a valid file).
 */
const encoder = new TextEncoder();

export async function linesStream(chunks: AsyncGenerator<string>): Promise<ReadableStream<Uint8Array>> {
  let pending: IteratorResult<string> | undefined = await chunks.next();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = pending ?? (await chunks.next());
          pending = undefined;
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (err) {
          await chunks.return(undefined);
          controller.error(err);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}
