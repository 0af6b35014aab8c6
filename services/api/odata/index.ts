/** Public surface of the query-parsing stage: raw query string → typed `Query`, no catalogue knowledge. */
export type * from './ast.js';
export { ODATA_ERROR_CODES, ODataError, type ODataErrorCode, type ODataErrorLocation } from './odata-error.js';
export { parseQuery, parseSelect, TOP_RANGE } from './parse-query.js';
export { parseCountQuery } from './parse-count-query.js';
export { parseFilter, FILTER_LIMITS } from './parse-filter.js';
export { parseApply, AGGREGATE_METHODS } from './parse-apply.js';
export { formatApply } from './format-apply.js';
export { formatFilter, formatLiteral, odataExpressible } from './format-filter.js';
export { LOCATION_PROPERTY } from './geo-functions.js';
export { GEOMETRY_LIMITS, type Geometry } from './geometry.js';
export { decodeQueryString, type QueryParam } from './query-string.js';
