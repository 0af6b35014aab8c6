/**
 * The planning stage's error type and the one table of its codes. Planning is where the catalogue is consulted,
 * so these are the errors of a well-formed query that asks for something a resource does not have. The HTTP layer
 * maps a PlanError onto its ApiError in one place (routes/collection.ts), as it does an ODataError.
 */
import { ODATA_ERROR_CODES } from '../odata/index.js';

/** Every code this stage raises, with its HTTP status and what it means. Codes are stable API. */
export const PLAN_ERROR_CODES = {
  unknown_field: { status: 400, summary: 'A $select or $filter name that is not a field of the resource (with a near miss suggested).' },
  not_selectable: { status: 400, summary: 'A field that exists but cannot be selected.' },
  not_filterable: { status: 400, summary: 'A field that exists but cannot be filtered on.' },
  invalid_value: { status: 400, summary: "A $filter value that does not fit its field's type or operator." },
  apply_too_large: { status: 400, summary: 'An $apply past one of its declared limits (grouping fields, holistic aggregates: query/apply-limits.ts), named with the limit.' },
  // Shared with parsing: a skiptoken or $apply that parses but does not fit this resource.
  invalid_skiptoken: ODATA_ERROR_CODES.invalid_skiptoken,
  unsupported_apply: ODATA_ERROR_CODES.unsupported_apply,
} as const satisfies Record<string, { readonly status: number; readonly summary: string }>;

export type PlanErrorCode = keyof typeof PLAN_ERROR_CODES;

/**
 * The one error type thrown by `query/plan.ts`.
 *
 * @example
 * try { planQuery(parseQuery('$select=Nope'), getResource('Records')!) } catch (e) {
 *   if (e instanceof PlanError) console.log(e.code, e.parameter); // unknown_field $select
 * }
 */
export class PlanError extends Error {
  override readonly name = 'PlanError';
  readonly parameter: string | undefined;
  readonly offset: number | undefined;

  constructor(
    readonly code: PlanErrorCode,
    message: string,
    location: { readonly parameter?: string; readonly offset?: number } = {},
  ) {
    super(message);
    this.parameter = location.parameter;
    this.offset = location.offset;
  }
}
