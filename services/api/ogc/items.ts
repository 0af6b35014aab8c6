/**
 * GET /v1/features/collections/{id}/items and …/items/{featureId}: the OData pipeline with OGC parameters in and
 * GeoJSON out. items-query.ts makes the plan; exec/ runs the page (keyset windows, cursors) and the count
 * (the statistics, exactly as `$count`); stream/ writes the FeatureCollection around the rows DuckDB renders.
 */
import type { Context } from 'hono';
import { ApiError } from '../errors.js';
import { execute, type PageResult, type PageRows } from '../exec/execute.js';
import { checkPageSize } from '../limits/page-size.js';
import { queryDeadline } from '../limits/query-deadline.js';
import { decodeQueryString } from '../odata/index.js';
import type { PagePlan } from '../query/plan.js';
import { rawQueryString, type CollectionDeps } from '../routes/collection.js';
import { baseUrl } from '../routes/links.js';
import { stageTimer } from '../routes/server-timing.js';
import { PAGE_WRITERS } from '../stream/page-writers.js';
import { featureCollection, type FeatureCollectionDef } from './feature-collections.js';
import { collectionUrl, GEOJSON, itemsUrl, JSON_MEDIA, link, nextItemsUrl, odataAlternate, type Link } from './feature-links.js';
import { itemsPlan } from './items-query.js';

export function collectionOf(c: Context): FeatureCollectionDef {
  const id = c.req.param('collectionId') ?? '';
  const collection = featureCollection(id);
  if (!collection) throw new ApiError('not_found', `No collection '${id}'. Collections: locations, observations (GET /v1/features/collections lists them).`);
  return collection;
}

export function itemsHandler(deps: CollectionDeps) {
  return async function items(c: Context): Promise<Response> {
    const timing = stageTimer();
    const collection = collectionOf(c);
    const raw = rawQueryString(c);
    const { plan, query } = itemsPlan(raw, collection);
    timing.mark('plan');
    const { snapshot, release } = deps.acquire();
    const deadline = queryDeadline(c.req.raw.signal, deps.limits?.queryTimeoutMs);
    try {
      // numberMatched is the count `$count` answers, from the statistics where they can: the two run side by side.
      const [page, matched] = await Promise.all([
        execute(plan, snapshot, deadline.signal, { log: deps.log }),
        execute({ kind: 'count', resource: plan.resource, where: plan.where }, snapshot, deadline.signal),
      ]);
      timing.mark('execute');
      checkPageSize(plan.resource.table, plan.fields, page.ids.length, snapshot.columnWidths, deps.limits?.maxPageBytes);
      const base = baseUrl(c.req.url, c.req.raw.headers, deps.links);
      const params = decodeQueryString(raw).map(({ name, value }) => [name, value] as const);
      const links: Link[] = [
        link(itemsUrl(base, collection, params), 'self', GEOJSON, 'This page'),
        ...alternate(odataAlternate(base, collection, plan, query)),
        ...(page.hasNext ? [link(nextItemsUrl(base, collection, params, page.ids[page.ids.length - 1]!), 'next', GEOJSON, 'The next page')] : []),
        link(collectionUrl(base, collection), 'collection', JSON_MEDIA, collection.title),
      ];
      const members = {
        numberMatched: matched.kind === 'count' ? matched.count : undefined,
        numberReturned: page.ids.length,
        timeStamp: new Date().toISOString(),
        links,
      };
      const body = await PAGE_WRITERS.geojson(released(page.rows, release), { fields: plan.fields, context: '', next: undefined, count: page.ids.length, members });
      timing.mark('first-byte');
      return c.body(body, 200, { 'Content-Type': GEOJSON, 'Server-Timing': timing.header() });
    } catch (err) {
      release();
      throw deadline.explain(err);
    } finally {
      deadline.stop();
    }
  };
}

/** One feature by its Id: the page of one row after Id − 1, which is the feature when its Id is the one asked for. */
export function featureHandler(deps: CollectionDeps) {
  return async function feature(c: Context): Promise<Response> {
    const collection = collectionOf(c);
    const id = c.req.param('featureId') ?? '';
    const missing = () => new ApiError('not_found', `No feature '${id}' in ${collection.id}: feature ids are the Ids of /v1/odata/v4/${collection.odataResource.name}.`);
    if (!/^\d{1,18}$/.test(id)) throw missing();
    const { plan: one } = itemsPlan('limit=1', collection);
    const plan: PagePlan = { ...one, after: BigInt(id) - 1n };
    const { snapshot, release } = deps.acquire();
    const deadline = queryDeadline(c.req.raw.signal, deps.limits?.queryTimeoutMs);
    let page: PageResult;
    let text: string;
    try {
      page = await execute(plan, snapshot, deadline.signal, { log: deps.log });
      if (page.ids[0] !== BigInt(id)) throw missing();
      text = await readText(page.rows);
    } catch (err) {
      throw deadline.explain(err);
    } finally {
      deadline.stop();
      release();
    }
    const base = baseUrl(c.req.url, c.req.raw.headers, deps.links);
    const self = `${collectionUrl(base, collection)}/items/${id}`;
    const feature = JSON.parse(text.replace(/,$/, '')) as Record<string, unknown>;
    feature['links'] = [link(self, 'self', GEOJSON, 'This feature'), link(collectionUrl(base, collection), 'collection', JSON_MEDIA, collection.title)];
    return c.body(JSON.stringify(feature), 200, { 'Content-Type': GEOJSON });
  };
}

function alternate(href: string | undefined): Link[] {
  return href ? [link(href, 'alternate', JSON_MEDIA, 'The same rows from the OData API')] : [];
}

/** A single feature is one row: read whole, so its links can be added to it. */
async function readText(rows: PageRows): Promise<string> {
  if (rows.kind !== 'text') throw new Error('a GeoJSON page is read as text');
  const parts: Uint8Array[] = [];
  for await (const chunk of rows.chunks) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

function released(rows: PageRows, release: () => void): PageRows {
  if (rows.kind !== 'text') throw new Error('a GeoJSON page is read as text');
  return { kind: 'text', chunks: withRelease(rows.chunks, release) };
}

async function* withRelease<T, R>(source: AsyncGenerator<T, R>, release: () => void): AsyncGenerator<T, R> {
  try {
    return yield* source;
  } finally {
    release();
  }
}
