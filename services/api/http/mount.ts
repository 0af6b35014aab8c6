/**
 * `mount(route, handler)`: a row of the route table (route-table.ts) made a route, its middleware composed in one
 * order, the same for every row:
 *
 *   route (its name, for the error body's shape) → CORS and the key (unless its key rule is `open`) → body (a
 *   POSTed query or message read whole, unless its row says `none`) → access (the row's key-only rule → its budget → its places →
 *   its query slot: middleware/access.ts's `forRoute`) → cache (`no-store` rows) → lease (the row's rule: snapshot,
 *   ETag/304, deadline, Server-Timing, one release; lease.ts) → handler
 *
 * after what every request passes (app.ts: request id, the base URL, observe, cut, headers, compression, URL length).
 * The same row answers `OPTIONS` with its `Allow` (a browser's preflight by CORS; no key, as it reads nothing) and any
 * other method with 405 and `Allow`, behind its key rule. A handler therefore never decides its own policy: adding a route is its row, its handler and
 * one `mount`. The edge takes the policies as functions, so it imports no middleware.
 */
import type { Context, Handler, Hono, MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { lease, type LeaseDeps } from './lease.js';
import { ROUTE_TABLE, type RouteMethod, type RouteName, type RouteRow } from './route-table.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The route-table row the request was matched to (app.ts renders its errors by the row's `errors`). */
    route: RouteName;
  }
}

/** One handler for every method of the row, or one per method (items: GET, and POST with a CQL2-JSON body). */
export type RouteHandler = Handler | Readonly<Partial<Record<RouteMethod, Handler>>>;

export type Mount = (route: RouteName, handler: RouteHandler) => void;

export interface MountDeps extends LeaseDeps {
  /** CORS of a row whose key rule is not `open` (middleware/access.ts's `door`): browsers' preflights and headers. */
  readonly cors: (row: RouteRow) => readonly MiddlewareHandler[];
  /** The key check of a row whose key rule is not `open` (middleware/access.ts's `door`). */
  readonly key: (row: RouteRow) => readonly MiddlewareHandler[];
  /** Reads a POSTed body whole within its limits (middleware/body-first.ts), for rows whose body is not `none`. */
  readonly body: MiddlewareHandler;
  /** The access middleware of a row, in its order (middleware/access.ts's `forRoute`). */
  readonly access: (row: RouteRow) => readonly MiddlewareHandler[];
}

/** What `Allow` lists for a row: its methods, HEAD with GET, and OPTIONS. */
export function allowOf(row: RouteRow): string {
  return [...row.methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])), 'OPTIONS'].join(', ');
}

export function mounter(app: Hono, deps: MountDeps): Mount {
  // Hono types `on` by its paths' parameters; a row's are declared as data, so its handlers read them untyped.
  const on = app.on.bind(app) as (method: string, paths: string[], ...handlers: (MiddlewareHandler | Handler)[]) => Hono;
  return function mount(route, handler) {
    const row: RouteRow = ROUTE_TABLE[route];
    const paths = [row.path, ...row.aliases];
    const named: MiddlewareHandler = (c, next) => {
      c.set('route', route);
      return next();
    };
    const cors = deps.cors(row);
    const chain = [named, ...cors, ...deps.key(row), ...(row.body === 'none' ? [] : [deps.body]), ...deps.access(row), ...(row.cache === 'no-store' ? [noStore] : []), ...(row.lease === 'none' ? [] : [lease(row.lease, deps)])];
    for (const method of row.methods) {
      const handle = typeof handler === 'function' ? handler : handler[method];
      if (!handle) throw new Error(`route ${route}: its row declares ${method} but no handler was given for it`);
      on(method, paths, ...chain, handle);
    }
    if (typeof handler !== 'function') {
      const extra = Object.keys(handler).filter((m) => !(row.methods as readonly string[]).includes(m));
      if (extra.length) throw new Error(`route ${route}: handlers for ${extra.join(', ')}, which its row does not declare`);
    }
    const allow = allowOf(row);
    // A preflight is the door's CORS's to answer; any other OPTIONS names the methods.
    on('OPTIONS', paths, named, ...cors, (c: Context) => c.body(null, 204, { Allow: allow }));
    // A wrong method is still a request of the route: its key rule holds (and names the key in the access log).
    for (const path of paths) app.all(path, named, ...cors, ...deps.key(row), wrongMethod(row, allow));
  };
}

/** 405 for a method the row does not declare (RFC 9110 §15.5.6: with the methods it does, in `Allow`). */
function wrongMethod(row: RouteRow, allow: string): Handler {
  const readOnly = row.methods.every((m) => m === 'GET');
  const why = row.wrongMethod ?? (readOnly ? 'this API is read-only. Use GET (or HEAD).' : `use ${row.methods.join(' or ')}.`);
  return (c) => {
    throw new ApiError('method_not_allowed', `${c.req.method} is not allowed here: ${why}`, {}, { Allow: allow });
  };
}

/** A health answer is of this instant: no cache or proxy may keep it. */
const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('Cache-Control', 'no-store');
};
