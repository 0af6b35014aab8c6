/**
 * Keep finding them (issue 37 item 9): generated requests through the whole request path (`app.request()`, keys
 * and limits on) on the real fixture file, over the grammars a client writes in: OData ($filter, $select, $top,
 * $skiptoken, $count, $apply) and OGC API – Features items (CQL2 filter and filter-lang, bbox, datetime, limit,
 * properties, cursor, queryable parameters). Names and values are well-formed or hostile: Object.prototype's
 * names, huge numbers, unicode, quotes, NUL, very long text, deep nesting. Every answer is a 2xx whose JSON parses or
 * a 4xx with the API's error body, never a 5xx; nothing is logged as unexpected; and the heap after the run is within
 * a generous bound of before.
 *
 * Bounded: a fixed seed and number of runs, so `make test` costs the same every time and a failure replays as is.
 * http-fuzz.test.ts runs OData's grammar by the ten thousand on a stubbed database for SQL injection; this file runs
 * fewer requests, each on the real one, so what DuckDB refuses is found too.
 */
import fc from 'fast-check';
import type { Hono } from 'hono';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dimensions, getResource, type FieldType } from '../../schemas/index.js';
import { createApp } from './app.js';
import { openDatabase, type Database } from './db/database.js';
import { openKeyStore, type KeyStore } from './keys/key-store.js';
import { expectErrorBody } from './testing/error-body.js';

// FUZZ_SEED and FUZZ_RUNS explore further by hand; `make test` runs the fixed ones.
const SEED = Number(process.env.FUZZ_SEED ?? 37);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const KEY = 'fuzz-key';
let db: Database;
let keys: KeyStore;
let app: Hono;
const unexpected: unknown[] = [];

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  keys = await openKeyStore({ plainKeys: [KEY], pollMs: 0 });
  app = createApp({
    acquire: () => db.acquire(),
    links: { trustProxy: false },
    limits: { queryTimeoutMs: 30_000, maxPageBytes: 64 * 1024 * 1024 },
    access: { keys, rateLimit: { rps: 1e9, burst: 1e9 }, maxConcurrentPerKey: 4 },
    logError: (err) => unexpected.push(err),
  });
});
afterAll(async () => {
  keys.close();
  await db.close();
});

// ---- Names and values, well-formed and hostile ----

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
const HUGE = ['9'.repeat(400), '1e309', '-1e309', '1e-400', '9223372036854775807', '9223372036854775808', '-9223372036854775809', '18446744073709551616', '1.7976931348623157e308', '4.9e-324', '-0', '0x10', 'NaN', 'Infinity', '00000000000000000001'];
const PIECES = ["'", "''", '"', '\\', ';', '--', '/*', '%', '&', '=', '+', '(', ')', ',', ' ', '😀', 'é', 'ß', '\u0000', '\n', '\t', '\u202e', '\u00a0', '\ufeff', '𝔘', '..', '/', 'a', '1'];
// Lone surrogates cannot be percent-encoded, so no client can send them.
const isWellFormed = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
const longText = fc.tuple(fc.constantFrom('a', "'", '(', '😀', '\u0000', '1'), fc.integer({ min: 500, max: 12_000 })).map(([c, n]) => c.repeat(n));
const hostileText = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }).map((p) => p.join('')) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }).filter(isWellFormed) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES, '__proto__', ...HUGE) },
  { weight: 1, arbitrary: longText },
);
/** Mostly well-formed, so most requests reach the database; sometimes hostile. */
const mostly = <T,>(wellFormed: fc.Arbitrary<T>, hostile: fc.Arbitrary<T>) => fc.oneof({ weight: 6, arbitrary: wellFormed }, { weight: 1, arbitrary: hostile });
const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

const resourceNames = (resource: string) => getResource(resource)!.filterable;
const fieldNames = (resource: string) => getResource(resource)!.fields.map((f) => f.name);
const typeOf = new Map(dimensions.map((d) => [d.name, d.type]));

/** A literal of the type (as OData writes it), or anything else. */
function literal(type: FieldType | undefined): fc.Arbitrary<string> {
  const typed: Partial<Record<FieldType, fc.Arbitrary<string>>> = {
    integer: fc.oneof(fc.integer({ min: -5, max: 3000 }).map(String), fc.constantFrom(...HUGE)),
    number: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }).map(String), fc.constantFrom(...HUGE)),
    date: fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    timestamp: fc.date({ noInvalidDate: true, min: new Date('0001-01-01'), max: new Date('9999-12-31') }).map((d) => d.toISOString()),
    string: mostly(fc.constantFrom('pH', 'Surface Water', 'Lake', 'hub.lake', 'admin.2.ca', '10.25976/abcd-1234'), hostileText).map(quote),
  };
  return fc.oneof({ weight: 12, arbitrary: (type && typed[type]) ?? typed.string! }, hostileText, hostileText.map(quote), fc.constantFrom('null', 'true'));
}

/** A field of the resource (filterable or not), or a hostile name. */
const nameFor = (names: readonly string[]) => fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...names) }, hostileText);

/** `leaf` and/or/not'd into a tree, sometimes wrapped far deeper than the parsers' depth limit. */
function tree(leaf: fc.Arbitrary<string>, ops: { and: string; or: string; not: string }): fc.Arbitrary<string> {
  const { expr } = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.tuple(tie('expr'), fc.constantFrom(ops.and, ops.or), tie('expr')).map(([a, op, b]) => `${a} ${op} ${b}`),
      tie('expr').map((e) => `${ops.not} (${e})`),
      tie('expr').map((e) => `(${e})`),
    ),
  }));
  const deep = fc.tuple(leaf, fc.integer({ min: 20, max: 400 }), fc.constantFrom('(', `${ops.not} (`, `${ops.not} `)).map(([l, n, open]) => `${open.repeat(n)}${l}${open.endsWith('(') ? ')'.repeat(n) : ''}`);
  return fc.oneof({ weight: 8, arbitrary: expr }, { weight: 1, arbitrary: deep });
}

// ---- OData ----

function odataFilter(resource: string): fc.Arbitrary<string> {
  const name = nameFor(resourceNames(resource));
  const leaf = fc.oneof(
    name.chain((n) => fc.tuple(fc.constantFrom('eq', 'ne', 'lt', 'gt', 'le', 'ge'), literal(typeOf.get(n))).map(([op, v]) => `${n} ${op} ${v}`)),
    name.chain((n) => fc.array(literal(typeOf.get(n)), { minLength: 1, maxLength: 5 }).map((vs) => `${n} in (${vs.join(',')})`)),
    fc.tuple(mostly(fc.constantFrom('startswith', 'endswith', 'contains'), fc.constantFrom(...PROTOTYPE_NAMES, 'length', 'tolower')), name, literal('string')).map(([f, n, v]) => `${f}(${n},${v})`),
  );
  return tree(leaf, { and: 'and', or: 'or', not: 'not' });
}

const GROUPS = ['CharacteristicName', 'ActivityStartYear', 'RegionId', 'DOI', 'LocationId', 'MonitoringLocationType'];
const alias = mostly(fc.oneof(fc.constantFrom('Count', 'n', ...PROTOTYPE_NAMES, '__proto__'), fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,300}$/)), hostileText);

function odataApply(resource: string): fc.Arbitrary<string> {
  const groupby = fc.tuple(fc.uniqueArray(nameFor(GROUPS), { minLength: 1, maxLength: 3 }), alias).map(([gs, a]) => `groupby((${gs.join(',')}),aggregate($count as ${a}))`);
  return fc.oneof(
    { weight: 4, arbitrary: groupby },
    { weight: 2, arbitrary: fc.tuple(odataFilter(resource), groupby).map(([f, g]) => `filter(${f})/${g}`) },
    { weight: 1, arbitrary: hostileText },
  );
}

const top = mostly(fc.integer({ min: 0, max: 50 }).map(String), fc.oneof(fc.constantFrom('10000', '10001', '-1', ...HUGE), hostileText));
type Param = readonly [string, string];
/** One to four parameters, each named once (a repeated one is refused before anything else is read). */
const distinct = (param: fc.Arbitrary<Param>) => fc.uniqueArray(param, { minLength: 1, maxLength: 4, selector: ([name]) => name.toLowerCase() });

function odataOptions(resource: string): fc.Arbitrary<Param[]> {
  const known: fc.Arbitrary<Param> = fc.oneof(
    odataFilter(resource).map((f): Param => ['$filter', f]),
    fc.array(nameFor(fieldNames(resource)), { minLength: 1, maxLength: 6 }).map((ns): Param => ['$select', ns.join(',')]),
    mostly(fc.bigInt({ min: 0n, max: 40_000n }).map(String), fc.oneof(fc.bigInt({ min: -5n, max: 2n ** 70n }).map(String), fc.uuid(), hostileText)).map((t): Param => ['$skiptoken', `Id:${t}`]),
    mostly(fc.constantFrom('true', 'false', 'TRUE'), hostileText).map((v): Param => ['$count', v]),
    odataApply(resource).map((a): Param => ['$apply', a]),
    mostly(fc.constantFrom('json', 'csv', 'arrow', 'text/csv'), hostileText).map((v): Param => ['$format', v]),
  );
  const hostile: fc.Arbitrary<Param> = fc.oneof(fc.tuple(hostileText, hostileText), fc.constantFrom(...PROTOTYPE_NAMES, '__proto__').map((n): Param => [`$${n}`, '1']));
  const option = mostly(known, hostile);
  return fc.tuple(top, distinct(option)).map(([t, rest]) => [['$top', t], ...rest]);
}

// ---- OGC API – Features items ----

function cql2Filter(collection: 'observations' | 'locations'): fc.Arbitrary<string> {
  const names = collection === 'observations' ? [...resourceNames('Records'), 'MonitoringLocationLatitude', 'MonitoringLocationLongitude'] : resourceNames('Locations');
  const name = nameFor(names);
  const value = (n: string) => literal(typeOf.get(n)).map((v) => (typeOf.get(n) === 'date' && /^\d/.test(v) ? `DATE('${v}')` : v));
  const coord = fc.oneof(fc.double({ min: -200, max: 200, noNaN: true }).map(String), fc.constantFrom(...HUGE));
  const leaf = fc.oneof(
    name.chain((n) => fc.tuple(fc.constantFrom('=', '<>', '<', '>', '<=', '>='), value(n)).map(([op, v]) => `${n} ${op} ${v}`)),
    name.chain((n) => fc.array(value(n), { minLength: 1, maxLength: 5 }).map((vs) => `${n} IN (${vs.join(', ')})`)),
    name.chain((n) => fc.tuple(value(n), value(n)).map(([a, b]) => `${n} BETWEEN ${a} AND ${b}`)),
    fc.tuple(name, fc.constantFrom('%a', 'a%', '%a%', '_', '%', "'", '\\%')).map(([n, p]) => `${n} LIKE ${quote(p)}`),
    fc.tuple(name, fc.constantFrom('IS NULL', 'IS NOT NULL')).map(([n, t]) => `${n} ${t}`),
    fc.array(coord, { minLength: 4, maxLength: 4 }).map((c) => `S_INTERSECTS(geometry, BBOX(${c.join(', ')}))`),
    fc.tuple(coord, coord).map(([x, y]) => `S_INTERSECTS(geometry, POINT(${x} ${y}))`),
    fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES, 'CASEI', 'T_AFTER'), name).map(([f, n]) => `${f}(${n}) = 1`),
  );
  return tree(leaf, { and: 'AND', or: 'OR', not: 'NOT' });
}

const coordinate = mostly(fc.double({ min: -190, max: 190, noNaN: true }).map(String), fc.oneof(fc.constantFrom(...HUGE), hostileText));
const day = fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const instant = mostly(fc.oneof(day.map((d) => d.slice(0, 10)), day, fc.constantFrom('..', '')), hostileText);
const interval = fc.tuple(day, day, fc.boolean()).map(([a, b, open]) => {
  const [from, to] = a < b ? [a, b] : [b, a];
  return open ? `${from.slice(0, 10)}/..` : `${from}/${to}`;
});
const bbox = fc.tuple(fc.double({ min: -180, max: 180, noNaN: true }), fc.double({ min: -180, max: 180, noNaN: true }), fc.double({ min: -90, max: 90, noNaN: true }), fc.double({ min: -90, max: 90, noNaN: true })).map(
  ([west, east, a, b]) => [west, Math.min(a, b), east, Math.max(a, b)].join(','),
);

function itemsParams(collection: 'observations' | 'locations'): fc.Arbitrary<Param[]> {
  const queryables = collection === 'observations' ? resourceNames('Records') : resourceNames('Locations');
  const known: fc.Arbitrary<Param> = fc.oneof(
    cql2Filter(collection).map((f): Param => ['filter', f]),
    mostly(fc.constant('cql2-text'), fc.oneof(fc.constant('cql2-json'), hostileText)).map((v): Param => ['filter-lang', v]),
    mostly(bbox, fc.array(coordinate, { minLength: 3, maxLength: 7 }).map((c) => c.join(','))).map((b): Param => ['bbox', b]),
    mostly(interval, fc.tuple(instant, fc.option(instant)).map(([a, b]) => (b === null ? a : `${a}/${b}`))).map((v): Param => ['datetime', v]),
    fc.array(nameFor(fieldNames(collection === 'observations' ? 'Records' : 'Locations')), { minLength: 1, maxLength: 5 }).map((ns): Param => ['properties', ns.join(',')]),
    mostly(fc.bigInt({ min: 0n, max: 40_000n }).map(String), fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String), hostileText)).map((v): Param => ['cursor', v]),
    mostly(fc.constantFrom('json', 'geojson'), fc.oneof(fc.constant('html'), hostileText)).map((v): Param => ['f', v]),
    fc.constantFrom('bbox-crs', 'filter-crs').chain((p) => mostly(fc.constant('http://www.opengis.net/def/crs/OGC/1.3/CRS84'), hostileText).map((v): Param => [p, v])),
    nameFor(queryables).chain((n) => literal(typeOf.get(n)).map((v): Param => [n, v.replace(/^'(.*)'$/s, '$1').replaceAll("''", "'")])),
  );
  const param = mostly(known, fc.tuple(hostileText, hostileText));
  return fc.tuple(mostly(fc.integer({ min: 1, max: 50 }).map(String), top), distinct(param)).map(([t, rest]) => [['limit', t], ...rest]);
}

// ---- The requests and what every answer must be ----

const statuses = new Map<string, Map<number, number>>();

async function answer(grammar: string, path: string, params: readonly Param[]): Promise<void> {
  const qs = params.map(([k, v]) => `${encodeURIComponent(k).replace(/^%24/, '$')}=${encodeURIComponent(v)}`).join('&');
  const url = `${path}?${qs}`;
  const res = await app.request(url, { headers: { 'x-api-key': KEY } });
  const text = await res.text();
  const seen = statuses.get(grammar) ?? new Map<number, number>();
  statuses.set(grammar, seen.set(res.status, (seen.get(res.status) ?? 0) + 1));
  const shown = `${url.slice(0, 600)}\n${text.slice(0, 400)}`;
  expect(res.status, shown).toBeLessThan(500);
  if (res.status >= 400) expectErrorBody(res.status, text, url);
  else if (/json/.test(res.headers.get('content-type') ?? '')) expect(() => JSON.parse(text), shown).not.toThrow();
  expect(unexpected.splice(0), shown).toEqual([]);
}

const odata = fc.constantFrom('Records', 'Observations', 'Locations', 'Metadata').chain((r) => odataOptions(r).map((ps) => ({ resource: r, params: ps })));
const items = fc.constantFrom('observations' as const, 'locations' as const).chain((c) => itemsParams(c).map((ps) => ({ collection: c, params: ps })));

/** Memory after a full collection: what the run kept, not what it left for the collector. */
function memoryAfterGc(): { heap: number; rss: number } {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

describe('request fuzz: OData and OGC items grammars on the real file', () => {
  let before = { heap: 0, rss: 0 };
  beforeAll(async () => {
    await answer('warm-up', '/v1/odata/v4/Records', [['$top', '1']]);
    before = memoryAfterGc();
  });

  it('OData: $filter, $select, $top, $skiptoken, $count, $apply, $format and custom options', async () => {
    await fc.assert(fc.asyncProperty(odata, ({ resource, params }) => answer('odata', `/v1/odata/v4/${resource}`, params)), { seed: SEED, numRuns: RUNS });
    expect([...statuses.get('odata')!.keys()]).toEqual(expect.arrayContaining([200, 400]));
  });

  it('OGC items: CQL2 filter, filter-lang, bbox, datetime, limit, properties, cursor, f and queryables', async () => {
    await fc.assert(fc.asyncProperty(items, ({ collection, params }) => answer('items', `/v1/features/collections/${collection}/items`, params)), { seed: SEED, numRuns: RUNS });
    expect([...statuses.get('items')!.keys()]).toEqual(expect.arrayContaining([200, 400]));
  });

  it('a whole number beyond int64 in a number filter is answered, not a 500 (found by this fuzz; db/param-types.ts)', async () => {
    const requests: [string, Param[]][] = [
      ['/v1/odata/v4/Records', [['$top', '1'], ['$filter', 'ResultValue gt 1e19']]],
      ['/v1/odata/v4/Locations', [['$top', '1'], ['$filter', 'not (ResultValue in (3.343729826581275e+212,-1e19))']]],
      ['/v1/odata/v4/Records', [['$count', 'true'], ['$top', '0'], ['$filter', 'ResultValue lt -1e300']]],
      ['/v1/export/Records', [['$format', 'csv'], ['$filter', 'ResultValue eq 1e19']]],
      ['/v1/features/collections/locations/items', [['limit', '1'], ['ResultValue', '-3.6845742525651456e+102']]],
      ['/v1/features/collections/observations/items', [['limit', '1'], ['filter', 'ResultValue > 1e19 OR ResultValue BETWEEN -1e20 AND 1e20']]],
    ];
    for (const [path, params] of requests) {
      const qs = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
      const res = await app.request(`${path}?${qs}`, { headers: { 'x-api-key': KEY } });
      expect(res.status, `${path}?${qs}\n${await res.text()}`).toBe(200);
    }
    expect(unexpected.splice(0)).toEqual([]);
  });

  it('keeps no memory: heap and RSS after the runs are within a generous bound of before', () => {
    const after = memoryAfterGc();
    const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
    console.log(`request fuzz: statuses ${JSON.stringify(Object.fromEntries([...statuses].map(([g, s]) => [g, Object.fromEntries(s)])))}; heap ${mib(after.heap - before.heap)}, RSS ${mib(after.rss - before.rss)} more than before`);
    // Generous: caches of a first use (JIT code, DuckDB's buffers) may stay; a request that kept what it read, or
    // a response built whole hundreds of MiB large (RSS does not give that back), would not fit.
    expect(after.heap - before.heap).toBeLessThan(64 * 2 ** 20);
    expect(after.rss - before.rss).toBeLessThan(512 * 2 ** 20);
  });
});
