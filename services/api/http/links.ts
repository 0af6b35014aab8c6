/**
 * Absolute URLs the API hands out: `@odata.nextLink`, the `Link` header, `@odata.context`, the service document,
 * OpenAPI's server and the docs page. Behind a load balancer the request's own host is an internal one, so the
 * base is, in order: PUBLIC_BASE_URL, the forwarded headers when TRUST_PROXY=1, the request.
 */
import { formatApply, formatFilter } from '../odata/index.js';
import type { Expr, Query } from '../odata/ast.js';
import type { ApplyPlan, Key, PagePlan } from '../query/plan.js';
import { NEXT_LINK_PARAM, PATHS, PIN_PARAM } from './paths.js';
import { publicOrigin } from './public-origin.js';

export interface BaseUrlOptions {
  readonly publicBaseUrl?: string | undefined;
  readonly trustProxy: boolean | number;
}

/** `https://host[:port]` with no trailing slash (see public-origin.ts for the proxy headers read). */
export function baseUrl(requestUrl: string, headers: Headers, opts: BaseUrlOptions): string {
  if (opts.publicBaseUrl) return opts.publicBaseUrl.replace(/\/+$/, '');
  return publicOrigin(requestUrl, headers, opts.trustProxy);
}

/** RFC 3986 unreserved characters stay; everything else, including `'()*!:`, is percent-encoded. */
export function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The next page's URL: every option of the request ($select, $filter, $top, $format), the publication the page was
 * read from (so the next page is read from it too, whatever is published meanwhile) and the new $skiptoken.
 *
 * @example
 * nextLink('https://api.example.org', plan, query, 1234n, '20261123T112900123Z-1a2b3c4d')
 * // → https://api.example.org/v1/odata/v4/Observations?$filter=CharacteristicName%20eq%20%27pH%27&$top=1000&publication=20261123T112900123Z-1a2b3c4d&$skiptoken=Id%3A1234
 */
export function nextLink(base: string, plan: PagePlan, query: Query, lastKey: Key, publication: string | undefined): string {
  const params: [string, string][] = [];
  if (query.select) params.push(['$select', plan.fields.map((f) => f.name).join(',')]);
  if (query.filter) params.push(['$filter', formatFilter(query.filter)]);
  params.push(['$top', String(plan.top)]);
  if (query.format) params.push(['$format', query.format]);
  if (publication) params.push([PIN_PARAM, publication]);
  params.push([NEXT_LINK_PARAM.odata, `Id:${lastKey}`]);
  return collectionUrl(base, plan.resource.name, params);
}

/** The next page of an `$apply` result: the same options and publication, the cursor counting groups already sent. */
export function nextApplyLink(base: string, plan: ApplyPlan, query: Query, publication: string | undefined): string {
  const params: [string, string][] = [['$apply', formatApply(query.apply!)]];
  if (query.filter) params.push(['$filter', formatFilter(query.filter)]);
  params.push(['$top', String(plan.top)]);
  if (query.format) params.push(['$format', query.format]);
  if (publication) params.push([PIN_PARAM, publication]);
  params.push([NEXT_LINK_PARAM.odata, `Id:${(plan.after ?? 0n) + BigInt(plan.top)}`]);
  return collectionUrl(base, plan.resource.name, params);
}

function collectionUrl(base: string, resource: string, params: readonly (readonly [string, string])[]): string {
  return `${base}${PATHS.odata}/${resource}?${params.map(([k, v]) => `${k}=${encodeValue(v)}`).join('&')}`;
}

/** `@odata.context` of a collection: `…/$metadata#Observations` or `…/$metadata#Observations(Id,DOI)`. */
export function contextUrl(base: string, plan: PagePlan): string {
  const fields = plan.selected ? `(${plan.fields.map((f) => f.name).join(',')})` : '';
  return `${base}${PATHS.odata}/$metadata#${plan.resource.name}${fields}`;
}

/**
 * The DOI a query pins: the value of a top-level `and` term `DOI eq '…'` of `$filter` (or of the `$apply`
 * filter). Undefined when there is none, or when two terms name different DOIs (the answer is then empty).
 */
export function pinnedDoi(query: Query): string | undefined {
  const dois = new Set<string>();
  const visit = (e: Expr | undefined): void => {
    if (!e) return;
    if (e.kind === 'and') {
      visit(e.left);
      visit(e.right);
    } else if (e.kind === 'compare' && e.op === 'eq' && e.property.name === 'DOI' && e.value.kind === 'string') {
      dois.add(e.value.value);
    }
  };
  visit(query.filter);
  visit(query.apply?.filter);
  return dois.size === 1 ? [...dois][0] : undefined;
}

/** `https://doi.org/<doi>`, percent-encoding what may not appear in a URI (and `<>` that would end the link). */
export function doiUrl(doi: string): string {
  return `https://doi.org/${encodeValue(doi).replace(/%2F/g, '/')}`;
}

/** The media type of the citation a `describedby` link names (the route answers others too: docs/api.md). */
export const CSL_JSON = 'application/vnd.citationstyles.csl+json';

/** FAIR signposting beside the next link: what describes the result and the licence it is under. */
export interface Signposts {
  /** The citation of the same query (citationUrl), `rel="describedby"`. */
  readonly describedBy?: string | undefined;
  /** The licence's URL, `rel="license"`, when one is known for the whole result. */
  readonly license?: string | undefined;
}

/**
 * The `Link` header: `rel="next"` first, then `rel="cite-as"`, `rel="describedby"` and `rel="license"`.
 * datastreamjs's transport reads the next page with `/<(.*?)>; rel="next"/`, a lazy match from the first `<`:
 * with any other link first it would read `https://doi.org/…>; rel="cite-as", <next` as the URL.
 */
/**
 * Longest `Link` header, all its links together. A filter POSTed in a body (a long outline) makes links of tens or
 * hundreds of KB, each repeating the filter; HTTP clients refuse response heads that large (Node's fetch, undici,
 * fails above 16 KiB) and HAProxy answers 502 for a head past its buffer (issue 47 item 6). Links are added in
 * their order while the header stays within this, so with the response's other headers every head stays under
 * 8 KiB: a link left out is still in a JSON body (`@odata.nextLink`), and the citation is reached by the same
 * `$filter` under /v1/citation.
 */
export const LINK_HEADER_MAX_BYTES = 6 * 1024;

export function linkHeader(next: string | undefined, query: Query, signposts: Signposts = {}): string | undefined {
  const doi = pinnedDoi(query);
  const candidates = [
    ...(next ? [`<${next}>; rel="next"`] : []),
    ...(doi ? [`<${doiUrl(doi)}>; rel="cite-as"`] : []),
    ...(signposts.describedBy ? [`<${signposts.describedBy}>; rel="describedby"; type="${CSL_JSON}"`] : []),
    ...(signposts.license ? [`<${signposts.license}>; rel="license"`] : []),
  ];
  const links: string[] = [];
  let bytes = 0;
  for (const link of candidates) {
    const more = Buffer.byteLength(link) + (links.length ? 2 : 0);
    if (bytes + more > LINK_HEADER_MAX_BYTES) continue;
    links.push(link);
    bytes += more;
  }
  return links.length ? links.join(', ') : undefined;
}

/**
 * What a query reads: the resource with its `$filter`, pinned to the publication it was answered from (PIN_PARAM).
 *
 * @example
 * pinnedQueryUrl('https://api.example.org', 'Records', parseFilter("CharacteristicName eq 'pH'"), '20260101T000000Z-ab12')
 * // → https://api.example.org/v1/odata/v4/Records?$filter=CharacteristicName%20eq%20%27pH%27&publication=20260101T000000Z-ab12
 */
export function pinnedQueryUrl(base: string, resource: string, filter: Expr | undefined, publication: string | undefined): string {
  return withQuery(`${base}${PATHS.odata}/${resource}`, filter, publication);
}

/** The citation of a query (routes/citation.ts): the same `$filter` and publication under PATHS.citation. */
export function citationUrl(base: string, resource: string, filter: Expr | undefined, publication: string | undefined): string {
  return withQuery(`${base}${PATHS.citation}/${resource}`, filter, publication);
}

function withQuery(url: string, filter: Expr | undefined, publication: string | undefined): string {
  const params: [string, string][] = [...(filter ? [['$filter', formatFilter(filter)] as [string, string]] : []), ...(publication ? [[PIN_PARAM, publication] as [string, string]] : [])];
  return params.length ? `${url}?${params.map(([k, v]) => `${k}=${encodeValue(v)}`).join('&')}` : url;
}
