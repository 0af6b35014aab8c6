import { resources } from '../../../schemas/index.js';
import { ApiError } from '../errors.js';
import { PATHS, REGIONS_COLLECTION } from './paths.js';
import type { RouteRow } from './route-table.js';

/**
 * The 404 of a path no route answers, naming what there is near it: OGC API – Features' resources under its path,
 * the OData resources elsewhere (the catalogue's, so a new one is listed).
 */
export function notFound(path: string, near: RouteRow['errors'] = 'api'): ApiError {
  if (near === 'features') {
    const ids = [...resources.flatMap((r) => (r.ogc === 'none' ? [] : [r.ogc.id])), REGIONS_COLLECTION];
    return new ApiError('not_found', `No resource at ${path}. OGC API – Features: ${PATHS.features}, /conformance, /api, /collections, /collections/{${ids.join('|')}}[/items[/{featureId}]|/queryables|/schema].`);
  }
  return new ApiError('not_found', `No resource at ${path}. Resources: ${resources.map((r, i) => `${i ? '/' : `${PATHS.odata}/`}${r.name}`).join(', ')}.`);
}
