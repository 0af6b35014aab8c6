/**
 * The API's one error type and its one JSON body.
 *
 * Every 4xx/5xx our code sends has the shape
 * `{"message": "...", "errors": [{"status", "code", "detail", "source": {"parameter"}}]}`: `message` is what
 * the DataStream clients print, `errors` is what datastreamsh and the browser example look for. The codes are
 * stable API, declared once below with their statuses. `requestId` (the response's X-Request-Id, when the app
 * named one: middleware/request-id.ts) is what to quote when reporting the error; an operator finds the request's
 * access-log line by it.
 */
import { ODataError, ODATA_ERROR_CODES } from './odata/odata-error.js';
import { PlanError, PLAN_ERROR_CODES } from './query/plan-error.js';

type Statuses<T extends Record<string, { readonly status: number }>> = { readonly [K in keyof T]: T[K]['status'] };
const statuses = <T extends Record<string, { readonly status: number }>>(codes: T) =>
  Object.fromEntries(Object.entries(codes).map(([code, v]) => [code, v.status])) as Statuses<T>;

/** Every code the API answers with, and its HTTP status: the stages' tables, then those of the HTTP layer. */
export const API_ERROR_CODES = {
  ...statuses(ODATA_ERROR_CODES),
  ...statuses(PLAN_ERROR_CODES),
  // OGC API – Features' query parameters (limit, bbox, datetime, properties, cursor, f, an unknown one).
  invalid_parameter: 400,
  // An $apply aggregate over values in more than one unit (exec/execute.ts), named with the units found.
  mixed_units: 400,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  unknown_publication: 400,
  // A Host header that is not a host name (http/request-base.ts): no link is built on it.
  invalid_host: 400,
  missing_api_key: 401,
  invalid_api_key: 403,
  // A browser's request to /mcp from an origin neither on CORS_ORIGINS nor the instance's own (mcp/mcp-handler.ts).
  origin_not_allowed: 403,
  // A publication (a next link's, or one a URL pins) past its retention: start again on the current one.
  publication_gone: 410,
  // A POSTed query body that did not arrive in time or fast enough (middleware/body-first.ts).
  body_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  uri_too_long: 414,
  range_not_satisfiable: 416,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  // A query past the DuckDB memory bound (limits/out-of-memory.ts): too large for the memory queries share.
  query_too_large: 503,
  query_timeout: 504,
} as const satisfies Record<string, number>;

export type ApiErrorCode = keyof typeof API_ERROR_CODES;

export interface ErrorSource {
  readonly parameter?: string;
  /** 0-based position in the parameter's decoded value. */
  readonly offset?: number;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly source: ErrorSource = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = API_ERROR_CODES[code];
  }

  /** A stage's error as the HTTP layer answers it: same code, message and place. */
  static from(err: ODataError | PlanError): ApiError {
    return new ApiError(err.code, err.message, { parameter: err.parameter, offset: err.offset });
  }
}

export interface ErrorBody {
  message: string | null;
  errors: {
    status: string;
    code: string;
    detail: string;
    source?: { parameter?: string; offset?: number };
  }[];
  requestId?: string;
}

/**
 * The body of an error under OGC API – Features (/v1/features): the standard's exception (`code`, `description`)
 * with the API's own members beside it, so one body serves GIS clients and ours.
 */
export function featuresErrorBody(err: ApiError, requestId?: string): ErrorBody & { code: string; description: string } {
  return { code: err.code, description: err.message, ...errorBody(err, requestId) };
}

/**
 * The body for an error. An undecodable query string gets `"message": null`, byte-compatible with the public
 * API's gateway, which clients may match on; the reason still goes in `errors`.
 */
export function errorBody(err: ApiError, requestId?: string): ErrorBody {
  const source = err.source.parameter !== undefined || err.source.offset !== undefined ? { ...err.source } : undefined;
  return {
    message: err.code === 'undecodable_query' ? null : err.message,
    errors: [{ status: String(err.status), code: err.code, detail: err.message, ...(source ? { source } : {}) }],
    ...(requestId ? { requestId } : {}),
  };
}
