/**
 * GET /v1/citation/{resource}?$filter=…: what a result must credit (issue 38). The
 * stages of a page (parse → plan → execute → respond) with the collection's own parser and planner: the rows are
 * counted per dataset by the `$apply` plan (the statistics), joined with each dataset's citation fields, and
 * written in the format negotiated as doi.org negotiates (Accept, or `format=` for a link in a browser).
 */
import type { Context } from 'hono';
import { getResource, resources } from '../../../schemas/index.js';
import { citationDocument } from '../citation/citation-document.js';
import { CITATION_FORMAT_NAMES, CITATION_FORMATS, citationFormatByName, citationFormatFromAccept, DEFAULT_CITATION_FORMAT, type CitationFormat } from '../citation/citation-formats.js';
import { ApiError } from '../errors.js';
import { citeGuidelines, citeResult } from '../exec/citation.js';
import type { HandlerDeps } from '../http/handler-deps.js';
import { linkHeader } from '../http/links.js';
import { PATHS } from '../http/paths.js';
import { rawQueryString, takeOption } from '../http/request-query.js';
import { ODataError, parseQuery } from '../odata/index.js';
import { planCitation, type CitationPlan } from '../query/plan-citation.js';
import { PlanError } from '../query/plan-error.js';

const FORMAT_PARAMS = ['format', '$format'] as const;
const FORMAT_LIST = CITATION_FORMAT_NAMES.map((f) => `${f} (${CITATION_FORMATS[f].mediaType})`).join(', ');

export function citationHandler(deps: HandlerDeps) {
  return async function citation(c: Context): Promise<Response> {
    const lease = c.get('lease');
    const resource = getResource(c.req.param('resource') ?? '');
    if (!resource) {
      throw new ApiError('not_found', `No citation at ${c.req.path}. Cite a query as ${PATHS.citation}/{${resources.map((r) => r.name).join('|')}} with its $filter.`);
    }
    const { query: raw, value: formatParam } = takeOption(rawQueryString(c), FORMAT_PARAMS);
    const format = negotiate(formatParam, c.req.header('accept'));
    const plan = planRequest(raw, resource);
    lease.timing.mark('plan');
    const [cited, guidelines] = await Promise.all([citeResult(plan, lease.snapshot, lease.signal), citeGuidelines(plan, lease.snapshot, lease.signal)]);
    lease.timing.mark('execute');
    const doc = citationDocument(plan, cited, c.get('base'), lease.publication, guidelines);
    const licences = new Set(doc.datasets.map((d) => d.LicenceUrl));
    const link = linkHeader(undefined, { count: false, otherParams: [], ...(plan.filter ? { filter: plan.filter } : {}) }, {
      // One licence for every dataset cited is the result's licence.
      license: licences.size === 1 ? ([...licences][0] ?? undefined) : undefined,
    });
    const def = CITATION_FORMATS[format];
    // Vary: Accept is every successful GET's (middleware/security-headers.ts).
    const headers: Record<string, string> = { 'Content-Type': def.contentType };
    if (link) headers['Link'] = link;
    if (format !== 'json' && format !== 'text') headers['Content-Disposition'] = `inline; filename="${resource.name}-citation.${def.extension}"`;
    return c.body(def.render(doc), 200, headers);
  };
}

/** `format=` (a browser's link) before Accept (a client's negotiation), as `$format` goes before Accept on pages. */
function negotiate(formatParam: string | undefined, accept: string | undefined): CitationFormat {
  if (formatParam !== undefined) {
    const f = citationFormatByName(formatParam);
    if (f) return f;
    throw new ApiError('not_acceptable', `format=${formatParam.slice(0, 60)} is not a citation format. Formats: ${FORMAT_LIST}; without format= or Accept, ${DEFAULT_CITATION_FORMAT}.`, { parameter: 'format' });
  }
  const f = citationFormatFromAccept(accept);
  if (f) return f;
  throw new ApiError('not_acceptable', `Accept: ${(accept ?? '').slice(0, 100)} names no format a citation is written in. Formats: ${FORMAT_LIST}; or send format=<name>.`);
}

/** The collection's parser and planner: a filter that cannot be a page cannot be cited either (the same 400). */
function planRequest(queryString: string, resource: NonNullable<ReturnType<typeof getResource>>): CitationPlan {
  try {
    return planCitation(parseQuery(queryString), resource);
  } catch (err) {
    if (err instanceof ODataError || err instanceof PlanError) throw ApiError.from(err);
    throw err;
  }
}
