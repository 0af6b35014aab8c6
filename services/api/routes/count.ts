/**
 * GET /v1/odata/v4/{resource}/$count (OData 4.01 Part 2 §4.8, Part 1 §11.2.10): the number of rows `$filter`
 * matches, as the number alone in text/plain, the form generic OData clients (Excel and Power BI, odatajs, pyodata)
 * ask a count in. The same stages as `$count=true` (parse → plan → execute), and its plan: a CountPlan, answered by
 * the statistics where they can (query/compile-count.ts), so both forms give one number for one filter.
 */
import type { Context } from 'hono';
import { getResource } from '../../../schemas/index.js';
import { execute } from '../exec/execute.js';
import type { HandlerDeps } from '../http/handler-deps.js';
import { linkHeader } from '../http/links.js';
import { notFound } from '../http/not-found.js';
import { parseQueryString, rawQueryString } from '../http/request-query.js';
import { parseCountQuery } from '../odata/index.js';
import { planRequest } from './collection.js';

/** OData's raw value of a count (Part 1 §11.2.10: "a simple primitive integer value with media type text/plain"). */
const TEXT_PLAIN = 'text/plain; charset=utf-8';

export function countHandler(deps: Pick<HandlerDeps, 'log'>) {
  return async function count(c: Context): Promise<Response> {
    const lease = c.get('lease');
    const resource = getResource(c.req.param('resource') ?? '');
    if (!resource) throw notFound(c.req.path);
    const query = parseQueryString(rawQueryString(c), parseCountQuery);
    lease.timing.mark('parse');
    const plan = planRequest(query, resource);
    if (plan.kind !== 'count') throw new Error(`/$count planned as ${plan.kind}`);
    lease.timing.mark('plan');
    const result = await execute(plan, lease.snapshot, lease.signal, { log: deps.log });
    lease.timing.mark('execute');
    const link = linkHeader(undefined, query);
    return c.body(String(result.count), 200, { 'Content-Type': TEXT_PLAIN, ...(link ? { Link: link } : {}) });
  };
}
