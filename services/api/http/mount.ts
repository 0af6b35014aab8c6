/**
 * `mount(route, handler)`: a row of the route table (route-table.ts) made a route, its middleware composed in one
 * order, the same for every row:
 *
 *   access (the row's key rule → its budget → its places → its query slot: middleware/access.ts's `forRoute`)
 *     → lease (the row's rule: snapshot, ETag/304, deadline, Server-Timing, one release; lease.ts) → handler
 *
 * after what every request passes (app.ts: request id, observe, cut, headers, compression, URL length, and under
 * /v1 CORS and the key). A handler therefore never decides its own policy: adding a route is its row, its handler
 * and one `mount`. The edge takes the access policy as a function, so it imports no middleware.
 */
import type { Handler, Hono, MiddlewareHandler } from 'hono';
import { lease, type LeaseDeps } from './lease.js';
import { ROUTE_TABLE, type RouteMethod, type RouteName, type RouteRow } from './route-table.js';

/** One handler for every method of the row, or one per method (items: GET, and POST with a CQL2-JSON body). */
export type RouteHandler = Handler | Readonly<Partial<Record<RouteMethod, Handler>>>;

export type Mount = (route: RouteName, handler: RouteHandler) => void;

export interface MountDeps extends LeaseDeps {
  /** The access middleware of a row, in its order (middleware/access.ts's `forRoute`). */
  readonly access: (row: RouteRow) => readonly MiddlewareHandler[];
}

export function mounter(app: Hono, deps: MountDeps): Mount {
  // Hono types `on` by its paths' parameters; a row's are declared as data, so its handlers read them untyped.
  const on = app.on.bind(app) as (method: string, paths: string[], ...handlers: (MiddlewareHandler | Handler)[]) => Hono;
  return function mount(route, handler) {
    const row: RouteRow = ROUTE_TABLE[route];
    const chain = [...deps.access(row), ...(row.lease === 'none' ? [] : [lease(row.lease, deps)])];
    for (const method of row.methods) {
      const handle = typeof handler === 'function' ? handler : handler[method];
      if (!handle) throw new Error(`route ${route}: its row declares ${method} but no handler was given for it`);
      on(method, [row.path, ...row.aliases], ...chain, handle);
    }
    if (typeof handler !== 'function') {
      const extra = Object.keys(handler).filter((m) => !(row.methods as readonly string[]).includes(m));
      if (extra.length) throw new Error(`route ${route}: handlers for ${extra.join(', ')}, which its row does not declare`);
    }
  };
}
