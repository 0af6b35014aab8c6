/**
 * The family of routes a request belongs to: the label its metrics carry. A path is never a label (every filter
 * and page would be a series of its own); a family is one of a few names, each route's declared in its row of
 * http/route-table.ts. `other` is what matches no row (a 404).
 */
import { ROUTE_TABLE, routeOf } from '../http/route-table.js';

export const ROUTE_FAMILIES = ['health', 'docs', 'explore', 'discovery', 'odata', 'export', 'citation', 'search', 'downloads', 'files', 'publications', 'features', 'items', 'pages', 'mcp', 'other'] as const;
export type RouteFamily = (typeof ROUTE_FAMILIES)[number];

/**
 * @example routeFamily('/v1/odata/v4/Observations') // 'odata'
 * @example routeFamily('/v1/odata/v4/$metadata') // 'discovery'
 */
export function routeFamily(path: string): RouteFamily {
  const route = routeOf(path);
  return route ? ROUTE_TABLE[route].family : 'other';
}
