/**
 * Regression (issue 37 item 5): JavaScript's built-in names reached lookups. An items parameter or a CQL2 property
 * named `constructor`, `toString`, `__proto__` … was found on a plain object's prototype and answered 500;
 * `hasOwnProperty` and its kin were accepted where any other unknown parameter is a 400; `/explore/assets/constructor`
 * answered 503 "assets are not built"; `$apply … as __proto__` dropped the count from every row.
 *
 * Every name `Object.prototype` has is fed to every place a request names something (parameter names and values,
 * filter properties, `$select`, `$apply` aliases, path segments, the key header) and must be answered exactly as an
 * ordinary unknown name is there: the same status, a refusal with the API's error body, never a 5xx or a stack.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './app.js';
import { openDatabase, type Database } from './db/database.js';
import { openKeyStore, type KeyStore } from './keys/key-store.js';
import { expectErrorBody } from './testing/error-body.js';

const NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])];
/** What a built-in name is compared with: a name no table holds. */
const ORDINARY = 'zzNoSuchName';
const KEY = 'names-key';

let db: Database;
let keys: KeyStore;
let app: Hono;
let assetsDir: string;
const unexpected: unknown[] = [];

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  keys = await openKeyStore({ plainKeys: [KEY], pollMs: 0 });
  assetsDir = mkdtempSync(join(tmpdir(), 'tributary-names-'));
  writeFileSync(join(assetsDir, 'explore.js'), '');
  app = createApp({
    acquire: () => db.acquire(),
    links: { trustProxy: false },
    access: { keys, rateLimit: { rps: 1e9, burst: 1e9 } },
    explore: { assetsDir },
    logError: (err) => unexpected.push(err),
  });
});
afterAll(async () => {
  keys.close();
  await db.close();
  rmSync(assetsDir, { recursive: true, force: true });
});

const q = encodeURIComponent;
const ODATA = '/v1/odata/v4/Records?$top=1&';
const ITEMS = '/v1/features/collections/observations/items?limit=1&';
const FILE = `/v1/downloads/files/sha256-${'0'.repeat(64)}`;

interface Surface {
  readonly where: string;
  readonly path: (name: string) => string;
  /** The name goes in the key header instead of the URL. */
  readonly asKey?: true;
}

const SURFACES: readonly Surface[] = [
  // Parameter names.
  { where: 'an OData custom parameter', path: (n) => `${ODATA}${q(n)}=1` },
  { where: 'an OData system option', path: (n) => `${ODATA}$${q(n)}=1` },
  { where: 'an export parameter', path: (n) => `/v1/export/Records?$top=1&${q(n)}=1` },
  { where: 'an items parameter (observations)', path: (n) => `${ITEMS}${q(n)}=1` },
  { where: 'an items parameter (locations)', path: (n) => `/v1/features/collections/locations/items?limit=1&${q(n)}=1` },
  // Parameter values.
  { where: '$format', path: (n) => `${ODATA}$format=${q(n)}` },
  { where: '$top', path: (n) => `/v1/odata/v4/Records?$top=${q(n)}` },
  { where: '$count', path: (n) => `${ODATA}$count=${q(n)}` },
  { where: '$skiptoken', path: (n) => `${ODATA}$skiptoken=Id:${q(n)}` },
  { where: '$apply', path: (n) => `${ODATA}$apply=${q(n)}` },
  { where: "an export's $format", path: (n) => `/v1/export/Records?$format=${q(n)}` },
  { where: 'a $filter string', path: (n) => `${ODATA}$filter=${q(`CharacteristicName eq '${n}'`)}` },
  { where: 'a $filter region', path: (n) => `${ODATA}$filter=${q(`RegionId eq '${n}'`)}` },
  { where: 'a CQL2 string', path: (n) => `${ITEMS}filter=${q(`CharacteristicName = '${n}'`)}` },
  { where: 'a queryable parameter', path: (n) => `${ITEMS}CharacteristicName=${q(n)}` },
  { where: 'a numeric queryable parameter', path: (n) => `${ITEMS}ActivityStartYear=${q(n)}` },
  ...['limit', 'bbox', 'bbox-crs', 'datetime', 'f', 'cursor', 'filter-crs'].map((p): Surface => ({ where: `items ${p}`, path: (n) => `${ITEMS}${p}=${q(n)}` })),
  { where: 'filter-lang', path: (n) => `${ITEMS}filter-lang=${q(n)}&filter=${q("CharacteristicName = 'pH'")}` },
  { where: 'the change feed since', path: (n) => `/v1/publications?since=${q(n)}` },
  { where: 'the key header', path: () => `${ODATA}$select=Id`, asKey: true },
  // Filter properties and functions, OData and CQL2.
  { where: 'a $filter property', path: (n) => `${ODATA}$filter=${q(`${n} eq 1`)}` },
  { where: 'a $filter in', path: (n) => `${ODATA}$filter=${q(`${n} in ('a')`)}` },
  { where: 'a $filter function', path: (n) => `${ODATA}$filter=${q(`${n}(CharacteristicName,'a')`)}` },
  { where: "a $filter function's property", path: (n) => `${ODATA}$filter=${q(`startswith(${n},'a')`)}` },
  { where: 'a $filter operator', path: (n) => `${ODATA}$filter=${q(`CharacteristicName ${n} 'a'`)}` },
  { where: 'an export $filter property', path: (n) => `/v1/export/Records?$filter=${q(`${n} eq 1`)}` },
  { where: 'a CQL2 property', path: (n) => `${ITEMS}filter=${q(`${n} = 1`)}` },
  { where: 'a CQL2 property on locations', path: (n) => `/v1/features/collections/locations/items?filter=${q(`${n} = 1`)}` },
  { where: 'a CQL2 IS NULL', path: (n) => `${ITEMS}filter=${q(`${n} IS NULL`)}` },
  { where: 'a CQL2 LIKE', path: (n) => `${ITEMS}filter=${q(`${n} LIKE 'a%'`)}` },
  { where: 'a CQL2 IN', path: (n) => `${ITEMS}filter=${q(`${n} IN ('a')`)}` },
  { where: 'a CQL2 BETWEEN', path: (n) => `${ITEMS}filter=${q(`${n} BETWEEN 1 AND 2`)}` },
  { where: 'a CQL2 function', path: (n) => `${ITEMS}filter=${q(`${n}(CharacteristicName)`)}` },
  { where: 'a CQL2 spatial property', path: (n) => `${ITEMS}filter=${q(`S_INTERSECTS(${n},BBOX(-80,43,-79,44))`)}` },
  // $select fields and $apply names.
  { where: '$select', path: (n) => `${ODATA}$select=${q(n)}` },
  { where: "an export's $select", path: (n) => `/v1/export/Records?$select=${q(n)}` },
  { where: 'items properties', path: (n) => `${ITEMS}properties=${q(n)}` },
  { where: 'a $apply grouping', path: (n) => `${ODATA}$apply=${q(`groupby((${n}),aggregate($count as N))`)}` },
  { where: 'a $apply aggregate', path: (n) => `${ODATA}$apply=${q(`groupby((CharacteristicName),aggregate(${n} with sum as N))`)}` },
  { where: 'a $apply filter', path: (n) => `${ODATA}$apply=${q(`filter(${n} eq 1)/groupby((CharacteristicName),aggregate($count as N))`)}` },
  // Path segments.
  { where: 'an OData resource', path: (n) => `/v1/odata/v4/${q(n)}` },
  { where: 'an export resource', path: (n) => `/v1/export/${q(n)}` },
  { where: 'a collectionId', path: (n) => `/v1/features/collections/${q(n)}` },
  { where: "a collectionId's items", path: (n) => `/v1/features/collections/${q(n)}/items` },
  { where: "a collectionId's queryables", path: (n) => `/v1/features/collections/${q(n)}/queryables` },
  { where: 'a featureId (observations)', path: (n) => `/v1/features/collections/observations/items/${q(n)}` },
  { where: 'a featureId (locations)', path: (n) => `/v1/features/collections/locations/items/${q(n)}` },
  { where: 'a features path', path: (n) => `/v1/features/${q(n)}` },
  { where: 'a downloads file name', path: (n) => `${FILE}/${q(n)}` },
  { where: 'a downloads file name with an extension', path: (n) => `${FILE}/${q(n)}.csv` },
  { where: 'a downloads file hash', path: (n) => `/v1/downloads/files/${q(n)}/x.csv` },
  { where: 'an explore asset', path: (n) => `/explore/assets/${q(n)}` },
  { where: 'a top-level path', path: (n) => `/${q(n)}` },
];

async function ask(surface: Surface, name: string): Promise<{ status: number; text: string; path: string }> {
  const path = surface.path(name);
  const res = await app.request(path, { headers: { 'x-api-key': surface.asKey ? name : KEY } });
  return { status: res.status, text: await res.text(), path };
}

describe("JavaScript's built-in names reach no lookup", () => {
  it.each(SURFACES)('$where: every Object.prototype name is answered as an ordinary unknown name', async (surface) => {
    const logged = unexpected.length;
    const ordinary = await ask(surface, ORDINARY);
    expect(ordinary.status, `${ordinary.path}\n${ordinary.text}`).toBeLessThan(500);
    for (const name of NAMES) {
      const { status, text, path } = await ask(surface, name);
      expect(status, `${path}\n${text.slice(0, 300)}`).toBe(ordinary.status);
      if (status >= 400) expectErrorBody(status, text, path);
    }
    expect(unexpected.slice(logged)).toEqual([]);
  });

  it('a $apply count alias named like a built-in is a member of every row, __proto__ included', async () => {
    for (const name of NAMES) {
      const res = await app.request(`/v1/odata/v4/Records?$apply=${q(`groupby((CharacteristicName),aggregate($count as ${name}))`)}`, { headers: { 'x-api-key': KEY } });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      // JSON.parse makes `__proto__` an own member, as the client's parser does.
      const rows = (JSON.parse(text) as { value: Record<string, unknown>[] }).value;
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(Object.hasOwn(row, name), `${name} in ${JSON.stringify(row)}`).toBe(true);
        expect(typeof row[name], name).toBe('number');
      }
    }
  });
});
