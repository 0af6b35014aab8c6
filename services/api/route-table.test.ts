/**
 * The route table walked row by row (issue 46): each row's query slot, OpenAPI operation, key rule and family hold
 * for the route the app serves, so a new row that decides one of them wrongly fails here. Through `app.request()`
 * on the fixture file.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './app.js';
import { openDatabase, type Database } from './db/database.js';
import { createQueryGate } from './limits/query-gate.js';
import { buildOpenApi } from './metadata/openapi.js';
import type { ApiMetrics, ServedRequest } from './observe/api-metrics.js';
import { ROUTE_FAMILIES } from './observe/route-family.js';
import { featuresOpenApi } from './ogc/features-openapi.js';
import { PATHS } from './http/paths.js';
import { ROUTE_NAMES, ROUTE_TABLE, routeOf, type RouteName } from './http/route-table.js';

/** A request each row answers: a new row needs one here, which the first test asks for. */
const SAMPLES: Record<RouteName, { readonly path: string; readonly init?: RequestInit }> = {
  healthz: { path: '/healthz' },
  readyz: { path: '/readyz' },
  docs: { path: '/' },
  explore: { path: '/explore' },
  exploreAsset: { path: '/explore/assets/explore.css' },
  serviceDocument: { path: '/v1/odata/v4/' },
  metadata: { path: '/v1/odata/v4/$metadata' },
  openapi: { path: '/v1/openapi.json' },
  collectionQuery: { path: '/v1/odata/v4/Records/$query', init: { method: 'POST', body: '$top=1', headers: { 'content-type': 'text/plain' } } },
  count: { path: '/v1/odata/v4/Records/$count' },
  collection: { path: '/v1/odata/v4/Records?$top=1' },
  export: { path: '/v1/export/Records?$format=csv&$top=1' },
  citation: { path: '/v1/citation/Records' },
  downloads: { path: '/v1/downloads' },
  manifest: { path: '/v1/downloads/manifest.json' },
  publications: { path: '/v1/publications' },
  file: { path: `/v1/downloads/files/sha256-${'0'.repeat(64)}/x.parquet` },
  featuresLanding: { path: '/v1/features' },
  conformance: { path: '/v1/features/conformance' },
  featuresApi: { path: '/v1/features/api' },
  featureCollections: { path: '/v1/features/collections' },
  regionsCollection: { path: '/v1/features/collections/regions' },
  regionsQueryables: { path: '/v1/features/collections/regions/queryables' },
  regionsItems: { path: '/v1/features/collections/regions/items' },
  region: { path: '/v1/features/collections/regions/items/huc8.1' },
  featureCollection: { path: '/v1/features/collections/locations' },
  queryables: { path: '/v1/features/collections/locations/queryables' },
  schema: { path: '/v1/features/collections/water-quality-index/schema' },
  geojsonSchema: { path: '/v1/features/collections/water-quality-index/schema/geojson' },
  items: { path: '/v1/features/collections/observations/items?limit=1' },
  feature: { path: '/v1/features/collections/locations/items/1' },
  datasetPage: { path: '/datasets/10.25976/abcd-ef12' },
  locationPage: { path: '/locations/1' },
  catalogue: { path: '/catalogue' },
  catalogueJsonLd: { path: '/catalogue.jsonld' },
  catalogueTurtle: { path: '/catalogue.ttl' },
  locationsDump: { path: '/catalogue/locations.ndjson' },
  sitemap: { path: '/sitemap.xml' },
  sitemapPart: { path: '/sitemap-1.xml' },
  robots: { path: '/robots.txt' },
  mcp: { path: '/mcp', init: { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } } },
  llmsTxt: { path: '/llms.txt' },
  llmsFullTxt: { path: '/llms-full.txt' },
};

let db: Database;
beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
});
afterAll(async () => {
  await db?.close();
});

const pathOf = (sample: string) => new URL(sample, 'http://x').pathname;

describe('the route table', () => {
  it('has a sample request for every row, and each sample is looked up as its own row', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...ROUTE_NAMES].sort());
    expect(ROUTE_NAMES.map((name) => [name, routeOf(pathOf(SAMPLES[name].path))])).toEqual(ROUTE_NAMES.map((name) => [name, name]));
  });

  it('every route that runs a query answers 503 behind a full gate; every other route answers without a slot', async () => {
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 0, maxWaitMs: 0, maxPerClient: 1 });
    const held = await gate.acquire(undefined, 'someone else');
    const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, access: { queryGate: gate } });
    try {
      const answered = await Promise.all(
        ROUTE_NAMES.map(async (name) => {
          const res = await app.request(SAMPLES[name].path, SAMPLES[name].init);
          await res.body?.cancel();
          return [name, res.status === 503] as const;
        }),
      );
      expect(answered).toEqual(ROUTE_NAMES.map((name) => [name, ROUTE_TABLE[name].querySlot]));
    } finally {
      if (typeof held === 'object') held.release();
    }
  });

  it('every /v1 row has its OpenAPI operation, at its path, for each of its methods', () => {
    const documents = { api: buildOpenApi('http://x'), features: featuresOpenApi('http://x') } as const;
    const prefix = { api: '', features: PATHS.features } as const;
    const missing = ROUTE_NAMES.flatMap((name) => {
      const row = ROUTE_TABLE[name];
      if (row.openapi === 'none') return row.path.startsWith('/v1/') ? [`${name}: none`] : [];
      const { document, operationId } = row.openapi;
      const paths = documents[document].paths as Record<string, Record<string, { operationId?: string }>>;
      return row.methods.flatMap((method) => {
        const wanted = new RegExp(`^${operationId.replace('{method}', method.toLowerCase()).replace(/\{(resource|collection)\}/g, '[A-Za-z]+')}$`);
        const found = Object.entries(paths).some(([path, ops]) => wanted.test(ops[method.toLowerCase()]?.operationId ?? '') && [row.path, ...row.aliases].some((p) => samePattern(p, `${prefix[document]}${path === '/' && document === 'features' ? '' : path}`)));
        return found ? [] : [`${name}: ${method} ${operationId}`];
      });
    });
    expect(missing).toEqual([]);
  });

  it('holds every row\'s key rule to its path: keys and budgets cover /v1 and the MCP door, and only there', () => {
    for (const name of ROUTE_NAMES) {
      const row = ROUTE_TABLE[name];
      // The MCP door is keyed as /v1 is (app.ts): its tool calls are /v1 requests of the same key.
      const v1 = row.path.startsWith('/v1/') || row.path === PATHS.mcp;
      expect([name, row.key === 'open', row.cost === 'none']).toEqual([name, !v1, !v1]);
    }
  });

  it('every family is a metrics label, and every request is counted under its row\'s family', async () => {
    const families: [string, string][] = [];
    const metrics = { started() {}, finished: (r: ServedRequest) => void families.push([r.family, '']), gateWaited() {}, gateRefused() {}, render: () => '' } as ApiMetrics;
    const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, observe: { metrics } });
    for (const name of ROUTE_NAMES) {
      expect((ROUTE_FAMILIES as readonly string[]).includes(ROUTE_TABLE[name].family)).toBe(true);
      families.length = 0;
      const res = await app.request(SAMPLES[name].path, SAMPLES[name].init);
      await res.text();
      expect([name, families[0]?.[0]]).toEqual([name, ROUTE_TABLE[name].family]);
    }
  });
});

/** Whether a Hono pattern (`:name`, `:name{re}` for the rest) and an OpenAPI path (`{name}`) name the same paths. */
function samePattern(hono: string, openapi: string): boolean {
  const a = hono.split('/');
  const b = openapi.split('/');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x === undefined || y === undefined) return false;
    if (x.startsWith(':') && x.endsWith('{.+}')) return true;
    if (x.startsWith(':') || /^\{[^}]+\}$/.test(y)) continue;
    if (x !== y) return false;
  }
  return true;
}
