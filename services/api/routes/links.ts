/**
 * Absolute URLs the API hands out: `@odata.nextLink`, the `Link` header and `@odata.context`. Behind a load
 * balancer the request's own host is an internal one, so the base is, in order: PUBLIC_BASE_URL, the
 * forwarded headers when TRUST_PROXY=1, the request.
 */
import { formatFilter } from '../odata/index.js';
import type { Query } from '../odata/ast.js';
import type { ApplyPlan, PagePlan } from '../query/plan.js';

export const BASE_PATH = '/v1/odata/v4';

export interface BaseUrlOptions {
  readonly publicBaseUrl?: string | undefined;
  readonly trustProxy: boolean;
}

/** `https://host[:port]` with no trailing slash. */
export function baseUrl(requestUrl: string, headers: Headers, opts: BaseUrlOptions): string {
  if (opts.publicBaseUrl) return opts.publicBaseUrl.replace(/\/+$/, '');
  const url = new URL(requestUrl);
  if (opts.trustProxy) {
    // A proxy chain appends: the first value is what the client used.
    const proto = headers.get('x-forwarded-proto')?.split(',')[0]?.trim();
    const host = headers.get('x-forwarded-host')?.split(',')[0]?.trim();
    if (proto && /^https?$/.test(proto)) url.protocol = `${proto}:`;
    if (host && /^[A-Za-z0-9.\-:[\]]+$/.test(host)) url.host = host;
  }
  return url.origin;
}

/** RFC 3986 unreserved characters stay; everything else, including `'()*!:`, is percent-encoded. */
export function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The next page's URL: every option of the request ($select, $filter, $top, $format) plus the new $skiptoken.
 *
 * @example
 * nextLink('https://api.example.org', plan, query, 1234n)
 * // → https://api.example.org/v1/odata/v4/Observations?$filter=CharacteristicName%20eq%20%27pH%27&$top=1000&$skiptoken=Id%3A1234
 */
export function nextLink(base: string, plan: PagePlan, query: Query, lastKey: bigint | string): string {
  const params: [string, string][] = [];
  if (query.select) params.push(['$select', plan.fields.map((f) => f.name).join(',')]);
  if (query.filter) params.push(['$filter', formatFilter(query.filter)]);
  params.push(['$top', String(plan.top)]);
  if (query.format) params.push(['$format', query.format]);
  params.push(['$skiptoken', `Id:${lastKey}`]);
  return `${base}${BASE_PATH}/${plan.resource.name}?${params.map(([k, v]) => `${k}=${encodeValue(v)}`).join('&')}`;
}

/** The next page of an `$apply` result: the same options, the cursor counting groups already sent. */
export function nextApplyLink(base: string, plan: ApplyPlan, query: Query): string {
  const apply = query.apply!;
  const groupby = `groupby((${apply.groupBy.map((p) => p.name).join(',')}),aggregate($count as ${apply.countAlias}))`;
  const params: [string, string][] = [['$apply', apply.filter ? `filter(${formatFilter(apply.filter)})/${groupby}` : groupby]];
  if (query.filter) params.push(['$filter', formatFilter(query.filter)]);
  params.push(['$top', String(plan.top)]);
  params.push(['$skiptoken', `Id:${(plan.after ?? 0n) + BigInt(plan.top)}`]);
  return `${base}${BASE_PATH}/${plan.resource.name}?${params.map(([k, v]) => `${k}=${encodeValue(v)}`).join('&')}`;
}

/** `@odata.context` of a collection: `…/$metadata#Observations` or `…/$metadata#Observations(Id,DOI)`. */
export function contextUrl(base: string, plan: PagePlan): string {
  const fields = plan.selected ? `(${plan.fields.map((f) => f.name).join(',')})` : '';
  return `${base}${BASE_PATH}/$metadata#${plan.resource.name}${fields}`;
}
