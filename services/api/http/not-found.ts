import { resources } from '../../../schemas/index.js';
import { ApiError } from '../errors.js';
import { PATHS } from './paths.js';

/** The 404 of a path no route answers, naming the resources there are (the catalogue's, so a new one is listed). */
export function notFound(path: string): ApiError {
  return new ApiError('not_found', `No resource at ${path}. Resources: ${resources.map((r, i) => `${i ? '/' : `${PATHS.odata}/`}${r.name}`).join(', ')}.`);
}
