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
import { allowOf } from './http/mount.js';
import { ROUTE_NAMES, ROUTE_TABLE, routeOf, type RouteName, type RouteRow } from './http/route-table.js';

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
  datasetSearch: { path: '/v1/search/datasets?text=river' },
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

  it('holds every row\'s key rule to its path: keys and budgets cover /v1 and the MCP door, and only there (and llms.txt\'s discovery budget)', () => {
    for (const name of ROUTE_NAMES) {
      const row = ROUTE_TABLE[name];
      // The MCP door is keyed as /v1 is (its row's key rule): its tool calls are /v1 requests of the same key.
      const v1 = row.path.startsWith('/v1/') || row.path === PATHS.mcp;
      // llms.txt is open to anyone and costs a discovery request of the address that asks (issue 56 item 5).
      const budgeted = v1 || row.path === PATHS.llmsTxt || row.path === PATHS.llmsFullTxt;
      expect([name, row.key === 'open', row.cost === 'none']).toEqual([name, !v1, !budgeted]);
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

describe('the edge from the row (issue 53 item 4)', () => {
  /** Every documented path, its parameters filled as a client would: the API's and the features API's OpenAPI. */
  const documented = (): { readonly path: string; readonly methods: readonly string[] }[] => {
    const fill = (path: string) => path.replace('{resource}', 'Records').replace('{collectionId}', 'locations').replace('{featureId}', '1').replace('{regionId}', 'huc8.1')
      .replace('{hash}', `sha256-${'0'.repeat(64)}`).replace('{name}', 'x.parquet').replace('{doi}', '10.25976/abcd-ef12').replace('{id}', '1');
    const of = (doc: { paths: object }, prefix: string) =>
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).map(([path, ops]) => ({
        path: fill(`${prefix}${path === '/' && prefix ? '' : path}`),
        methods: Object.keys(ops).filter((m) => ['get', 'post'].includes(m)).map((m) => m.toUpperCase()),
      }));
    return [...of(buildOpenApi('http://x') as { paths: object }, ''), ...of(featuresOpenApi('http://x'), PATHS.features)];
  };

  it('every documented path: a wrong method is 405 with its row\'s Allow and error body, and OPTIONS is 204 with the same Allow', async () => {
    const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false } });
    const paths = documented();
    expect(paths.length).toBeGreaterThan(40);
    for (const { path, methods } of paths) {
      const route = routeOf(path);
      expect(route, path).toBeDefined();
      const row: RouteRow = ROUTE_TABLE[route!];
      const allow = allowOf(row);
      for (const m of methods) expect(allow.split(', '), `${path} documents ${m}`).toContain(m);
      for (const wrong of ['DELETE', 'PUT', 'PATCH', ...(row.methods.includes('GET') ? [] : ['GET'])]) {
        const res = await app.request(path, { method: wrong });
        const body = (await res.json()) as Record<string, any>;
        expect([path, wrong, res.status, res.headers.get('allow')]).toEqual([path, wrong, 405, allow]);
        expect(body['errors'][0].code).toBe('method_not_allowed');
        // The features API's error body carries OGC's code and description besides the API's own.
        expect([path, 'description' in body]).toEqual([path, row.errors === 'features']);
      }
      const options = await app.request(path, { method: 'OPTIONS' });
      expect([path, options.status, options.headers.get('allow')]).toEqual([path, 204, allow]);
    }
  });

  it('a path no row answers is a 404 in the body of the row nearest it', async () => {
    const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false } });
    const features = (await (await app.request('/v1/features/collections/locations/nothing/here')).json()) as Record<string, unknown>;
    expect(String(features['description'])).toContain('OGC API – Features');
    const odata = await app.request('/v1/odata/v4/Records/nothing/here');
    expect(odata.status).toBe(404);
    expect((await odata.json()) as Record<string, unknown>).not.toHaveProperty('description');
  });

  it('a row\'s cache rule: health answers are never stored, other GETs are public for a minute or as their lease says', async () => {
    const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false } });
    for (const name of ROUTE_NAMES) {
      const row: RouteRow = ROUTE_TABLE[name];
      if (!row.methods.includes('GET')) continue;
      const res = await app.request(SAMPLES[name].path, SAMPLES[name].init);
      await res.body?.cancel();
      if (res.status !== 200) continue;
      const cache = res.headers.get('cache-control');
      if (row.cache === 'no-store') expect([name, cache]).toEqual([name, 'no-store']);
      else expect([name, cache]).toEqual([name, row.lease !== 'none' && row.lease.cacheControl ? row.lease.cacheControl : 'public, max-age=60']);
    }
  });

  it('handlers read the base URL the request computed once: PUBLIC_BASE_URL in every link', async () => {
    const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false, publicBaseUrl: 'https://public.example.org' } });
    for (const path of ['/v1/odata/v4/Records?$top=1', '/v1/features/collections/locations', '/v1/downloads', '/llms.txt', '/v1/openapi.json']) {
      const text = await (await app.request(path)).text();
      expect([path, text.includes('https://public.example.org')]).toEqual([path, true]);
      expect([path, text.includes('http://localhost')]).toEqual([path, false]);
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
