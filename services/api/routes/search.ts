/**
 * GET /v1/search/datasets?text=…[&$filter=…][&$top=…]: the datasets whose name, abstract, keywords or organisations
 * hold every word of `text`, ranked (issue 56 item 4), read from the index ingest builds at publish, under a
 * Metadata `$filter` ("has such an observation": a region, a characteristic). One request, one pass: parse → plan
 * (the Metadata filter, by the collections' planner) → execute (exec/search.ts) → JSON. MCP's `search_datasets` is
 * this request made as its caller.
 */
import type { Context } from 'hono';
import { getResource } from '../../../schemas/index.js';
import { ApiError } from '../errors.js';
import { SEARCH_TEXT, SEARCH_TOP, searchDatasets } from '../exec/search.js';
import { JSON_TYPE } from '../formats.js';
import { parseRequestQuery } from '../http/request-query.js';
import { servesRows } from '../http/served-rows.js';
import { formatFilter } from '../odata/index.js';
import type { Query } from '../odata/ast.js';
import type { CountPlan } from '../query/plan.js';
import { planRequest } from './collection.js';

interface SearchRequest {
  readonly text: string;
  readonly words: readonly string[];
  readonly query: Query;
  readonly top: number;
}

/** The request's `text`, `$filter` and `$top`; any other query option is a 400 naming it. */
export function readSearch(c: Context): SearchRequest {
  const query = parseRequestQuery(c);
  const other = (['select', 'skiptoken', 'apply', 'format'] as const).find((o) => query[o] !== undefined) ?? (query.count ? 'count' : undefined);
  if (other) throw new ApiError('unsupported_option', `$${other} does not apply to a search: give text, and optionally $filter (over Metadata) and $top.`, { parameter: `$${other}` });
  const texts = query.otherParams.filter(([name]) => name === 'text').map(([, v]) => v);
  if (texts.length > 1) throw new ApiError('duplicate_option', 'text is given more than once: give it once, with every word.', { parameter: 'text' });
  const text = texts[0] ?? '';
  const words = text.split(/\s+/).filter(Boolean);
  if (text.length > SEARCH_TEXT.maxChars || words.length > SEARCH_TEXT.maxWords) {
    throw new ApiError('invalid_parameter', `text may hold at most ${SEARCH_TEXT.maxWords} words in ${SEARCH_TEXT.maxChars} characters: search by the few that matter.`, { parameter: 'text' });
  }
  const top = query.top ?? SEARCH_TOP.default;
  if (top < 1 || top > SEARCH_TOP.max) throw new ApiError('invalid_top', `$top of a search is 1 to ${SEARCH_TOP.max} datasets (default ${SEARCH_TOP.default}).`, { parameter: '$top' });
  return { text, words, query, top };
}

export function searchHandler() {
  return async function search(c: Context): Promise<Response> {
    const lease = c.get('lease');
    const { text, words, query, top } = readSearch(c);
    lease.timing.mark('parse');
    const plan = planRequest({ filter: query.filter, count: true, otherParams: [] }, getResource('Metadata')!) as CountPlan;
    lease.timing.mark('plan');
    const found = await searchDatasets(plan, words, top, lease.snapshot, lease.signal);
    lease.timing.mark('execute');
    servesRows(c, found.datasets.length);
    const body = { publication: lease.publication ?? null, text, filter: query.filter ? formatFilter(query.filter) : null, matched: found.matched, value: found.datasets };
    return c.body(JSON.stringify(body), 200, { 'Content-Type': JSON_TYPE });
  };
}
