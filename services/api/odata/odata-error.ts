/**
 * The query-parsing stage's error type and the one table of its codes.
 *
 * Every failure of `odata/` is an `ODataError`; the HTTP layer maps it onto
 * its own `ApiError` (status, code, message, parameter, offset) in one place.
 * Codes are stable API: clients and docs key on them, so never rename one.
 */
import { FORMAT_NAMES } from '../formats.js';

/** Every code this stage can raise, with its HTTP status and what it means. */
export const ODATA_ERROR_CODES = {
  undecodable_query: { status: 400, summary: 'The query string has a bad percent-escape, invalid UTF-8 or a character that must be percent-encoded.' },
  duplicate_option: { status: 400, summary: 'A system query option ($top, $filter, …) appears more than once.' },
  unsupported_option: { status: 400, summary: 'A system query option this API does not implement ($orderby, $skip, $expand, …).' },
  invalid_select: { status: 400, summary: '$select is not a comma-separated list of field names.' },
  invalid_filter: { status: 400, summary: 'A $filter (or $apply filter) expression is malformed.' },
  unsupported_expression: { status: 400, summary: 'A well-formed expression outside the supported dialect (e.g. field compared with field).' },
  unsupported_function: { status: 400, summary: 'A function other than startswith, endswith, contains, geo.intersects and geo.distance.' },
  invalid_geometry: { status: 400, summary: 'A geometry literal is malformed or invalid: an unclosed or self-crossing ring, a coordinate out of range, too many positions.' },
  too_deep: { status: 400, summary: 'Parentheses or not operators nested deeper than the limit.' },
  too_many_values: { status: 400, summary: 'An in (...) list longer than the limit.' },
  too_many_terms: { status: 400, summary: 'A filter with more comparisons than the limit.' },
  invalid_top: { status: 400, summary: '$top is not an integer in the allowed range.' },
  invalid_skiptoken: { status: 400, summary: '$skiptoken is not of the form Id:<integer> or Id:<uuid>.' },
  invalid_count: { status: 400, summary: '$count is not true or false.' },
  invalid_format: { status: 400, summary: `$format is not one of ${FORMAT_NAMES.join(', ')} (or their media types).` },
  unsupported_apply: { status: 400, summary: '$apply uses a transformation, path, field or aggregation method outside the supported filter/groupby/aggregate forms.' },
} as const satisfies Record<string, { readonly status: number; readonly summary: string }>;

/** A stable error code of the query-parsing stage. */
export type ODataErrorCode = keyof typeof ODATA_ERROR_CODES;

/** Where in the request an error was found. */
export interface ODataErrorLocation {
  /** The query option, e.g. `$filter`; absent for errors about the query string as a whole. */
  readonly parameter?: string;
  /** 0-based position in the option's decoded value (or in the raw query string for `undecodable_query`). */
  readonly offset?: number;
}

/**
 * The one error type thrown by `odata/`.
 *
 * @example
 * try { parseQuery('$top=-1') } catch (e) {
 *   if (e instanceof ODataError) console.log(e.status, e.code, e.parameter); // 400 invalid_top $top
 * }
 */
export class ODataError extends Error {
  override readonly name = 'ODataError';
  readonly status: number;
  readonly parameter: string | undefined;
  readonly offset: number | undefined;

  constructor(
    readonly code: ODataErrorCode,
    message: string,
    location: ODataErrorLocation = {},
  ) {
    super(message);
    this.status = ODATA_ERROR_CODES[code].status;
    this.parameter = location.parameter;
    this.offset = location.offset;
  }
}
