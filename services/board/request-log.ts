import type { Context, MiddlewareHandler } from 'hono';
import type { Log } from './log.js';

/**
 * One line per request: method, path (no query string, which may carry user text), status, duration and client.
 * For streamed listings the duration is time to first byte; the stream's own failures are logged separately.
 */
export function requestLog(log: Log, clientOf: (c: Context) => string): MiddlewareHandler {
  return async function requestLog(c, next) {
    const start = performance.now();
    try {
      await next();
    } finally {
      log({
        level: 'info',
        msg: 'request',
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - start) * 10) / 10,
        client: clientOf(c),
      });
    }
  };
}
