/**
 * GET /v1/features/collections/{id}/items and …/items/{featureId}: the OData pipeline with OGC parameters in and
 * GeoJSON out. items-query.ts makes the plan; exec/ runs the page (keyset windows, cursors) and the count
 * (the statistics, exactly as `$count`); stream/ writes the FeatureCollection around the rows DuckDB renders.
 */
import type { Context } from 'hono';
import { resources } from '../../../schemas/index.js';
import { ApiError } from '../errors.js';
import { execute, type PageRows } from '../exec/execute.js';
import { checkPageSize } from '../limits/page-size.js';
import { decodeQueryString } from '../odata/index.js';
import type { PagePlan } from '../query/plan.js';
import { PAGE_WRITERS } from '../stream/page-writers.js';
import type { HandlerDeps } from '../http/handler-deps.js';
import { signposts } from '../citation/signposts.js';
import { linkHeader } from '../http/links.js';
import { PATHS, REGIONS_COLLECTION } from '../http/paths.js';
import { rawQueryString } from '../http/request-query.js';
import { servesRows } from '../http/served-rows.js';
import { FEATURE_COLLECTIONS, featureCollection, type FeatureCollectionDef } from './feature-collections.js';
import { boundedLinks, collectionUrl, GEOJSON, itemsUrl, JSON_MEDIA, link, nextItemsUrl, odataAlternate, type Link } from './feature-links.js';
import { featureHtml, HTML_CSP, itemsHtml } from './features-html.js';
import { HTML_MEDIA, responseEncoding, withF } from './html-negotiation.js';
import { FILTER_LANG_JSON, itemsPlan } from './items-query.js';
import { DEFAULT_MAX_BODY_BYTES, readQueryBody } from '../http/request-body.js';

export function collectionOf(c: Context): FeatureCollectionDef {
  const id = c.req.param('collectionId') ?? '';
  const collection = featureCollection(id);
  if (!collection) {
    // A resource without an OGC door (schemas/catalogue.ts) is named as such: its rows are in the OData API only.
    const resource = resources.find((r) => r.name.toLowerCase() === id.toLowerCase() && r.ogc === 'none');
    const why = resource ? `${resource.name} has no OGC collection (read it at ${PATHS.odata}/${resource.name})` : `No collection '${id}'`;
    throw new ApiError('not_found', `${why}. Collections: ${[...FEATURE_COLLECTIONS.map((f) => f.id), REGIONS_COLLECTION].join(', ')} (GET ${PATHS.features}/collections lists them).`);
  }
  return collection;
}

/**
 * A POSTed items query: the URL's parameters, and the body a CQL2-JSON filter (as pygeoapi and the USGS Water
 * Data APIs accept), read as if it had been `filter=<body>&filter-lang=cql2-json`, which the links then carry.
 */
export async function itemsBodyQuery(c: Context, deps: HandlerDeps): Promise<string> {
  const raw = urlBesideBody(rawQueryString(c));
  const body = await readQueryBody(c, { maxBytes: deps.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, types: CQL2_JSON_TYPES, holds: 'a CQL2-JSON filter' });
  let compact: string;
  try {
    compact = JSON.stringify(JSON.parse(body));
  } catch (err) {
    throw new ApiError('invalid_filter', `The body is not JSON (${(err as Error).message}): send a CQL2-JSON filter, e.g. {"op": "s_intersects", "args": [{"property": "geometry"}, {"type": "Polygon", "coordinates": [[[-120, 49], [-110, 49], [-110, 60], [-120, 49]]]}]}.`, { parameter: 'filter' });
  }
  return [raw, `filter=${encodeURIComponent(compact)}`, `filter-lang=${FILTER_LANG_JSON}`].filter((p) => p !== '').join('&');
}

/**
 * The URL's parameters beside a CQL2-JSON body, without its `filter-lang`: pygeoapi's documented form names the body's
 * language in the URL (`POST …/items?filter-lang=cql2-json`), which agrees with the body and is read once; a `filter`
 * in the URL, or a `filter-lang` naming another language, contradicts the body.
 */
function urlBesideBody(raw: string): string {
  const kept: string[] = [];
  for (const part of raw === '' ? [] : raw.split('&')) {
    const [param] = decodeQueryString(part);
    if (param?.name === 'filter') throw new ApiError('invalid_parameter', 'filter is in the URL and the filter in the body: send the filter once, in the body as CQL2-JSON.', { parameter: 'filter' });
    if (param?.name !== 'filter-lang') kept.push(part);
    else if (param.value !== FILTER_LANG_JSON) {
      throw new ApiError(
        'invalid_parameter',
        `filter-lang=${param.value.slice(0, 40)} in the URL disagrees with the body, which is read as CQL2-JSON: send filter-lang=${FILTER_LANG_JSON} (or leave it out), or send a CQL2-Text filter in the URL with GET.`,
        { parameter: 'filter-lang' },
      );
    }
  }
  return kept.join('&');
}

/** Media types of a CQL2-JSON body: OGC's registered one, and plain JSON. */
export const CQL2_JSON_TYPES = ['application/query-cql-json', 'application/cql2+json', 'application/json'] as const;

/** `readQuery`: where the items query is, the URL (GET) or the URL and a CQL2-JSON body (`itemsBodyQuery`). */
export function itemsHandler(deps: HandlerDeps, readQuery: (c: Context, deps: HandlerDeps) => string | Promise<string> = (c) => rawQueryString(c)) {
  return async function items(c: Context): Promise<Response> {
    const lease = c.get('lease');
    const collection = collectionOf(c);
    const encoding = responseEncoding(c);
    const raw = await readQuery(c, deps);
    const { plan, query } = itemsPlan(raw, collection);
    lease.timing.mark('plan');
    // numberMatched is the count `$count` answers, from the statistics where they can: the two run side by side.
    const [page, matched] = await Promise.all([
      execute(plan, lease.snapshot, lease.signal, { log: deps.log }),
      execute({ kind: 'count', resource: plan.resource, where: plan.where }, lease.snapshot, lease.signal),
    ]);
    lease.timing.mark('execute');
    checkPageSize(plan.resource.table, plan.fields, page.ids.length, lease.snapshot.columnWidths, deps.limits?.maxPageBytes);
    const base = c.get('base');
    const params = decodeQueryString(raw).map(({ name, value }) => [name, value] as const);
    const self = itemsUrl(base, collection, params);
    const odata = odataAlternate(base, collection, plan, query);
    const next = page.hasNext ? nextItemsUrl(base, collection, params, page.ids[page.ids.length - 1]!, lease.publication) : undefined;
    const links: Link[] = [
      link(self, 'self', GEOJSON, 'This page'),
      ...alternate(odata),
      link(withF(self, 'html'), 'alternate', HTML_MEDIA, 'This page as HTML, with a map'),
      ...(next ? [link(next, 'next', GEOJSON, 'The next page')] : []),
      link(collectionUrl(base, collection), 'collection', JSON_MEDIA, collection.title),
    ];
    // The citation is of the OData resource's rows: only where OData can filter as the items did (the alternate link).
    const signs = odata || !plan.where ? await signposts(base, collection.odataResource.name, query.filter, query, lease) : {};
    const header = linkHeader(next, query, signs);
    const members = { numberMatched: matched.kind === 'count' ? matched.count : undefined, numberReturned: page.ids.length, timeStamp: new Date().toISOString(), links: boundedLinks(links) };
    const body = await PAGE_WRITERS.geojson({ kind: 'text', chunks: lease.hold(textChunks(page.rows)) }, { fields: plan.fields, context: '', next: undefined, count: page.ids.length, members });
    if (encoding === 'html') {
      // A page is at most `limit` features, so the HTML is rendered from the whole GeoJSON document.
      const page = JSON.parse(await new Response(body).text()) as Parameters<typeof itemsHtml>[3];
      lease.timing.mark('first-byte');
      return c.body(itemsHtml(base, self, collection, page), 200, htmlHeaders);
    }
    lease.timing.mark('first-byte');
    servesRows(c, page.ids.length);
    return c.body(body, 200, { 'Content-Type': GEOJSON, Vary: 'Accept', ...(header ? { Link: header } : {}) });
  };
}

const htmlHeaders = { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': HTML_CSP, Vary: 'Accept' };

/** One feature by its Id: the page of one row after Id − 1, which is the feature when its Id is the one asked for. */
export function featureHandler(deps: HandlerDeps) {
  return async function feature(c: Context): Promise<Response> {
    const lease = c.get('lease');
    const collection = collectionOf(c);
    const encoding = responseEncoding(c);
    const id = c.req.param('featureId') ?? '';
    const missing = () => new ApiError('not_found', `No feature '${id}' in ${collection.id}: feature ids are the Ids of ${PATHS.odata}/${collection.odataResource.name}.`);
    if (!/^\d{1,18}$/.test(id)) throw missing();
    const { plan: one } = itemsPlan('limit=1', collection);
    const plan: PagePlan = { ...one, after: BigInt(id) - 1n };
    const page = await execute(plan, lease.snapshot, lease.signal, { log: deps.log });
    if (page.ids[0] !== BigInt(id)) throw missing();
    const text = await readText(page.rows);
    const base = c.get('base');
    const self = `${collectionUrl(base, collection)}/items/${id}`;
    const feature = JSON.parse(text.replace(/,$/, '')) as Record<string, unknown>;
    feature['links'] = [
      link(self, 'self', GEOJSON, 'This feature'),
      link(withF(self, 'html'), 'alternate', HTML_MEDIA, 'This feature as HTML, with a map'),
      link(collectionUrl(base, collection), 'collection', JSON_MEDIA, collection.title),
    ];
    if (encoding === 'html') return c.body(featureHtml(base, self, collection, feature as unknown as Parameters<typeof featureHtml>[3]), 200, htmlHeaders);
    servesRows(c, 1);
    return c.body(JSON.stringify(feature), 200, { 'Content-Type': GEOJSON, Vary: 'Accept' });
  };
}

function alternate(href: string | undefined): Link[] {
  return href ? [link(href, 'alternate', JSON_MEDIA, 'The same rows from the OData API')] : [];
}

/** A single feature is one row: read whole, so its links can be added to it. */
async function readText(rows: PageRows): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of textChunks(rows)) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

function textChunks(rows: PageRows): Extract<PageRows, { kind: 'text' }>['chunks'] {
  if (rows.kind !== 'text') throw new Error('a GeoJSON page is read as text');
  return rows.chunks;
}
