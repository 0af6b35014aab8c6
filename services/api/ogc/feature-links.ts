/**
 * The features API's URLs. Every link is absolute on the same base as OData's (http/links.ts: PUBLIC_BASE_URL,
 * else the forwarded headers when TRUST_PROXY=1, else the request), so they stay right behind a proxy.
 */
import { formatFilter, odataExpressible } from '../odata/index.js';
import type { Query } from '../odata/ast.js';
import type { PagePlan } from '../query/plan.js';
import { encodeValue } from '../http/links.js';
import { NEXT_LINK_PARAM, PATHS, PIN_PARAM } from '../http/paths.js';
import type { FeatureCollectionDef } from './feature-collections.js';

export const GEOJSON = 'application/geo+json';
export const JSON_MEDIA = 'application/json';
export const OPENAPI_MEDIA = 'application/vnd.oai.openapi+json;version=3.0';
export const SCHEMA_MEDIA = 'application/schema+json';

export interface Link {
  readonly href: string;
  readonly rel: string;
  readonly type?: string;
  readonly title?: string;
}

export function link(href: string, rel: string, type?: string, title?: string): Link {
  return { href, rel, ...(type ? { type } : {}), ...(title ? { title } : {}) };
}

/**
 * Longest link a document lists besides `next`: the longest request target the API reads by default (MAX_URL_BYTES),
 * so no link is one a client could not follow. A filter POSTed in a body makes `self` and the alternates repeat it
 * (a 1 MB outline made a 5 MB page of one feature, issue 47 item 6); they are left out, and `next` alone carries it
 * (past MAX_URL_BYTES, POST the same body with its cursor, as OData's next link says).
 */
export const DOCUMENT_LINK_MAX_BYTES = 16 * 1024;

/** The links a document lists: every `next`, and the others no longer than DOCUMENT_LINK_MAX_BYTES. */
export function boundedLinks(links: readonly Link[]): Link[] {
  return links.filter((l) => l.rel === 'next' || Buffer.byteLength(l.href) <= DOCUMENT_LINK_MAX_BYTES);
}

/**
 * The collection's schemas (collection-schema.ts): Part 5's logical schema, and the GeoJSON Feature's, which GDAL reads
 * from a `describedby` link of exactly this media type. Link relations are case-insensitive (RFC 8288 §2.1.1), but
 * GDAL 3.6 (Debian's, under R sf) matches only the spelling `describedBy`, and 3.12 either: the link is written both ways.
 */
export function schemaLinks(url: string): Link[] {
  return [
    link(`${url}/schema`, 'http://www.opengis.net/def/rel/ogc/1.0/schema', SCHEMA_MEDIA, 'The properties of its features, typed (OGC API – Features Part 5)'),
    link(`${url}/schema/geojson`, 'describedby', SCHEMA_MEDIA, 'Its features as GeoJSON, typed (JSON Schema)'),
    link(`${url}/schema/geojson`, 'describedBy', SCHEMA_MEDIA, 'Its features as GeoJSON, typed (JSON Schema)'),
  ];
}

export function collectionUrl(base: string, collection: FeatureCollectionDef): string {
  return `${base}${PATHS.features}/collections/${collection.id}`;
}

/** `…/items?…` with these parameters, each encoded as http/links.ts encodes OData's. */
export function itemsUrl(base: string, collection: FeatureCollectionDef, params: readonly (readonly [string, string])[]): string {
  const query = params.map(([k, v]) => `${encodeValue(k)}=${encodeValue(v)}`).join('&');
  return `${collectionUrl(base, collection)}/items${query ? `?${query}` : ''}`;
}

/**
 * The request's parameters without `cursor` and `publication`, then the publication the page was read from (so the
 * next page is read from it too) and the cursor after the page's last Id.
 */
export function nextItemsUrl(base: string, collection: FeatureCollectionDef, params: readonly (readonly [string, string])[], lastKey: bigint | string, publication: string | undefined): string {
  const cursor = NEXT_LINK_PARAM.items;
  const kept = params.filter(([k]) => k !== cursor && k !== PIN_PARAM);
  return itemsUrl(base, collection, [...kept, ...(publication ? [[PIN_PARAM, publication] as const] : []), [cursor, String(lastKey)]]);
}

/**
 * The same rows from the OData API (JSON), when the OData resource can filter as the collection did (the
 * observations' bbox has no OData counterpart: Records do not filter by Latitude).
 */
export function odataAlternate(base: string, collection: FeatureCollectionDef, plan: PagePlan, query: Query): string | undefined {
  const filterable = new Set(collection.odataResource.filterable);
  if (plan.where && !dimNames(query).every((n) => filterable.has(n))) return undefined;
  if (query.filter && !odataExpressible(query.filter)) return undefined;
  const params: [string, string][] = [];
  if (query.select) params.push(['$select', plan.fields.map((f) => f.name).join(',')]);
  if (query.filter) params.push(['$filter', formatFilter(query.filter)]);
  params.push(['$top', String(plan.top)]);
  if (plan.after !== undefined) params.push([NEXT_LINK_PARAM.odata, `Id:${plan.after}`]);
  return `${base}${PATHS.odata}/${collection.odataResource.name}?${params.map(([k, v]) => `${k}=${encodeValue(v)}`).join('&')}`;
}

function dimNames(query: Query): string[] {
  const out: string[] = [];
  const visit = (e: Query['filter']): void => {
    if (!e) return;
    if (e.kind === 'and' || e.kind === 'or') {
      visit(e.left);
      visit(e.right);
    } else if (e.kind === 'not') visit(e.operand);
    else if (e.kind === 'spatial' || e.kind === 'distance') out.push('LocationId');
    else out.push(e.property.name);
  };
  visit(query.filter);
  return out;
}
