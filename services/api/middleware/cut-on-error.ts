/**
 * A body that fails after its headers were sent must reach the client as a cut connection, never as a complete
 * response. @hono/node-server, told of such a failure while it waits for the socket to drain, ends the response
 * (`outgoing.end('Error: …')`: a clean last chunk) before destroying it, so an interrupted export or CSV page would
 * arrive as a short file that looks whole. This wraps every streamed body outermost (after compression) and
 * destroys the socket itself the moment the body errors, before the server can end it.
 */
import type { MiddlewareHandler } from 'hono';

/** What @hono/node-server puts in `c.env` (HttpBindings); absent under `app.request()` in tests. */
interface NodeBindings {
  readonly outgoing?: { destroy(err?: Error): void; readonly destroyed?: boolean };
}

export function cutOnError(): MiddlewareHandler {
  return async function cutConnectionOnBodyError(c, next) {
    await next();
    const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
    const body = c.res.body;
    if (!outgoing || !body) return;
    const reader = body.getReader();
    const guarded = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          let result: ReadableStreamReadResult<Uint8Array>;
          try {
            result = await reader.read();
          } catch (err) {
            if (!outgoing.destroyed) outgoing.destroy(err instanceof Error ? err : new Error(String(err)));
            controller.error(err);
            return;
          }
          if (result.done) controller.close();
          else controller.enqueue(result.value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    c.res = new Response(guarded, c.res);
  };
}
