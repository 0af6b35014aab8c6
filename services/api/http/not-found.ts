import { ApiError } from '../errors.js';
import { PATHS } from './paths.js';

/** The 404 of a path no route answers, naming the resources there are. */
export function notFound(path: string): ApiError {
  return new ApiError('not_found', `No resource at ${path}. Resources: ${PATHS.odata}/Metadata, /Locations, /Observations, /Records.`);
}
