/**
 * The family of routes a request belongs to: the label its metrics carry. A path is never a label (every filter
 * and page would be a series of its own); a family is one of a few names, declared here from paths.ts.
 */
import { PATHS } from '../http/paths.js';

export const ROUTE_FAMILIES = ['health', 'docs', 'explore', 'discovery', 'odata', 'export', 'downloads', 'files', 'publications', 'features', 'items', 'mcp', 'other'] as const;
export type RouteFamily = (typeof ROUTE_FAMILIES)[number];

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * @example routeFamily('/v1/odata/v4/Observations') // 'odata'
 * @example routeFamily('/v1/odata/v4/$metadata') // 'discovery'
 */
export function routeFamily(path: string): RouteFamily {
  if (path === PATHS.healthz || path === PATHS.readyz) return 'health';
  if (path === PATHS.docs || path === PATHS.llmsTxt || path === PATHS.llmsFullTxt) return 'docs';
  if (path === PATHS.mcp) return 'mcp';
  if (under(path, PATHS.explore)) return 'explore';
  if (path === PATHS.openapi || path === PATHS.odata || path === `${PATHS.odata}/` || path === `${PATHS.odata}/$metadata`) return 'discovery';
  if (under(path, PATHS.odata)) return 'odata';
  if (under(path, PATHS.export)) return 'export';
  if (under(path, PATHS.files)) return 'files';
  if (under(path, PATHS.downloads)) return 'downloads';
  if (under(path, PATHS.publications)) return 'publications';
  // Items (and one feature) run queries; the rest of OGC API – Features is discovery documents.
  if (under(path, PATHS.features)) return /^\/v1\/features\/collections\/[^/]+\/items(\/|$)/.test(path) ? 'items' : 'features';
  return 'other';
}
