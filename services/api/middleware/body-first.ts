/**
 * A query POSTed in a body (OData's `…/$query`, OGC items with CQL2-JSON), or an MCP message (`/mcp`), is read whole here, before any limit
 * takes a slot or a place for it (issue 47 item 3): read after the query gate, a body trickled a byte at a time
 * held a query slot for as long as Node's 300 s request timeout, and eight such clients shut everyone out. Reading
 * costs this server only a socket, and the read is bounded three ways: `MAX_BODY_BYTES` (413), a deadline for the
 * whole body (`BODY_TIMEOUT_MS`) and, after its first second, a minimum rate (`BODY_MIN_BYTES_PER_SECOND`); either
 * of the last two answers 408 `body_timeout`. The handler then takes the bytes from `c.get('queryBody')`
 * (http/request-body.ts).
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { tooLarge } from '../http/request-body.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The POSTed query body, read whole and within its limits by `bodyFirst`. */
    queryBody: Uint8Array;
  }
}

export interface BodyLimits {
  readonly maxBytes: number;
  /** The whole body must have arrived by then. */
  readonly timeoutMs: number;
  /** After the first second, bytes must have arrived at least this fast on average. */
  readonly minBytesPerSecond: number;
}

export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_MIN_BYTES_PER_SECOND = 4096;
/** How often the rate is looked at, and the grace before it is: a client's first packets may take a moment. */
const CHECK_MS = 250;
const GRACE_MS = 1000;

export function bodyFirst(limits: BodyLimits): MiddlewareHandler {
  return async function readBodyFirst(c, next) {
    if (c.req.method !== 'POST') return next();
    const declared = Number(c.req.header('content-length') ?? NaN);
    if (declared > limits.maxBytes) throw tooLarge(declared, limits.maxBytes);
    c.set('queryBody', await readBounded(c.req.raw, limits));
    return next();
  };
}

/** The body's bytes, or an ApiError (413, 408) once it breaks a limit; its reader is cancelled then. */
async function readBounded(request: Request, limits: BodyLimits): Promise<Uint8Array> {
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array();
  const start = performance.now();
  const parts: Uint8Array[] = [];
  let bytes = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const slow = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      const elapsed = performance.now() - start;
      if (elapsed >= limits.timeoutMs) {
        reject(new ApiError('body_timeout', `The body did not arrive within ${limits.timeoutMs} ms (BODY_TIMEOUT_MS; ${bytes} bytes came): send it at once, as any HTTP client does.`));
      } else if (elapsed >= GRACE_MS && bytes < (limits.minBytesPerSecond * elapsed) / 1000) {
        reject(new ApiError('body_timeout', `The body arrived at ${Math.round((bytes * 1000) / elapsed)} bytes/s, slower than the ${limits.minBytesPerSecond} bytes/s a POSTed body must (BODY_MIN_BYTES_PER_SECOND): send it at once, as any HTTP client does.`));
      }
    }, CHECK_MS);
  });
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), slow]);
      if (chunk.done) return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      bytes += chunk.value.byteLength;
      if (bytes > limits.maxBytes) throw tooLarge(bytes, limits.maxBytes);
      parts.push(chunk.value);
    }
  } catch (err) {
    void reader.cancel().catch(() => {});
    throw err;
  } finally {
    clearInterval(timer);
  }
}
