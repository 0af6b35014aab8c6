/**
 * Hostile input through the whole request path (`app.request()`, keys and limits on): many thousands of
 * generated `$filter`/`$select`/`$skiptoken`/`$top` combinations, valid and not. Every answer is a 2xx or a
 * 4xx with the error body — never a 500 — within a few milliseconds, and every SQL text the API produces holds
 * identifiers of the catalogue only: user values arrive as parameters, never in the SQL string.
 *
 * DuckDB is stubbed (the queries are recorded and answered with one row) so the test measures the request
 * path, not the database, and can run tens of thousands of inputs.
 */
import fc from 'fast-check';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources, storageTables } from '../../schemas/index.js';
import { createApp } from './app.js';
import { openDatabase, type Database } from './db/database.js';
import type { DuckDBValue } from '@duckdb/node-api';
import type { Snapshot } from './db/snapshot.js';
import { openKeyStore } from './keys/key-store.js';
import type { CompiledQuery } from './query/sql.js';

let db: Database;
let app: Hono;
const compiled: CompiledQuery[] = [];
const unexpected: unknown[] = [];

/** The real snapshot's shape, with every query recorded and answered by one row (or one count). */
function recording(snapshot: Snapshot): Snapshot {
  return {
    ...snapshot,
    async columns(q): Promise<Record<string, DuckDBValue[]>> {
      compiled.push(q);
      if (/\bAS n\b/.test(q.sql) && !/ AS [ga]0/.test(q.sql)) return { n: [3n] };
      if (/ AS [ga]0/.test(q.sql)) return { g0: ['x'], g1: ['y'], g2: [1n], g3: [null], a0: [2n], a1: [1.5], a2: ['2020-01-01'], a3: [null], x0: [1n] };
      return { Id: [1n] };
    },
    async *copyText(q) {
      compiled.push(q);
      yield Buffer.from('{"Id":1},');
      return 1;
    },
  };
}

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  const keys = await openKeyStore({ plainKeys: ['fuzz-key'] });
  app = createApp({
    acquire: () => {
      const a = db.acquire();
      return { snapshot: recording(a.snapshot), release: a.release };
    },
    links: { trustProxy: false },
    limits: { queryTimeoutMs: 30_000, maxPageBytes: 64 * 1024 * 1024 },
    access: { keys, rateLimit: { rps: 1e9, burst: 1e9 }, maxConcurrentPerKey: 4 },
    logError: (err) => unexpected.push(err),
  });
});
afterAll(async () => {
  await db.close();
});

// Text that must never appear in SQL: every generated value and name carries this marker.
const MARK = 'zqx';
const HOSTILE = ["'", "''", '"', ';', '--', '/*', '*/', '\\', '%', '%27', '%00', '&', '+', '=', '$', '(', ')', ',', '😀', 'é', '\u0000', '\n', '\u202e', 'DROP TABLE observations', ' OR 1=1', "'; SELECT 1; --", '${x}', '$1', '?'];
const hostile = fc.array(fc.constantFrom(...HOSTILE, 'a', '1', ' '), { maxLength: 6 }).map((p) => `${MARK}${p.join('')}`);
const fieldNames = [...new Set(resources.flatMap((r) => r.fields.map((f) => f.name)))];
const DIMENSIONS = ['DOI', 'LocationId', 'CharacteristicName', 'ActivityMediaName', 'ActivityGroupType', 'MonitoringLocationType', 'ActivityStartYear', 'RegionId', 'DatasetName', 'Latitude', 'Id'];
const name = fc.oneof(fc.constantFrom(...DIMENSIONS, ...fieldNames), hostile);
const quoted = hostile.map((s) => `'${s.replace(/'/g, "''")}'`);
const literal = fc.oneof(quoted, fc.integer({ min: -1e6, max: 1e12 }).map(String), fc.constantFrom('null', 'true', '2020-01-31', '2020-01-31T10:00:00Z', '1.5e3', "'10.25976/abcd-1234'", "'pH'"), hostile);
const op = fc.constantFrom('eq', 'ne', 'lt', 'gt', 'le', 'ge', 'lte', 'gte', 'EQ', 'like');
const leaf = fc.oneof(
  fc.tuple(name, op, literal).map(([n, o, v]) => `${n} ${o} ${v}`),
  fc.tuple(name, fc.array(literal, { minLength: 1, maxLength: 5 })).map(([n, vs]) => `${n} in (${vs.join(',')})`),
  fc.tuple(fc.constantFrom('startswith', 'endswith', 'contains', 'length', 'tolower'), name, quoted).map(([f, n, v]) => `${f}(${n},${v})`),
);
const filter: fc.Arbitrary<string> = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(tie('expr') as fc.Arbitrary<string>, fc.constantFrom(' and ', ' or ', ' AND '), tie('expr') as fc.Arbitrary<string>).map(([a, o, b]) => `${a}${o}${b}`),
    (tie('expr') as fc.Arbitrary<string>).map((e) => `not (${e})`),
    (tie('expr') as fc.Arbitrary<string>).map((e) => `(${e})`),
  ),
})).expr as fc.Arbitrary<string>;

// $apply's aggregates: measures, methods (and misspellings), aliases that carry the marker, groups and filters.
const aggregateItem = fc.oneof(
  fc.constant(`$count as ${MARK}N`),
  fc.tuple(fc.oneof(fc.constantFrom('ResultValue', 'ActivityStartDate', 'ResultDetectionQuantitationLimitMeasure', 'ActivityDepthHeightMeasure'), name), fc.constantFrom('sum', 'min', 'max', 'average', 'countdistinct', 'Tributary.median', 'Tributary.p90', 'Tributary.countnull', 'median', 'Tributary.zqx'), fc.nat(99))
    .map(([m, method, i]) => `${m} with ${method} as ${MARK}${i}`),
);
const applyText = fc
  .tuple(fc.option(filter, { nil: undefined }), fc.array(fc.oneof(fc.constantFrom('ResultUnit', 'CharacteristicName', 'RegionId', 'LocationId'), name), { maxLength: 3 }), fc.uniqueArray(aggregateItem, { maxLength: 4, selector: (a) => a.slice(a.lastIndexOf(' as ')) }))
  .map(([f, groups, items]) => {
    const aggregate = items.length ? `aggregate(${items.join(',')})` : '';
    const step = groups.length ? `groupby((${groups.join(',')})${aggregate ? `,${aggregate}` : ''})` : aggregate || `aggregate($count as ${MARK})`;
    return f ? `filter(${f})/${step}` : step;
  });
const option = fc.oneof(
  filter.map((f) => ['$filter', f] as const),
  fc.array(name, { minLength: 1, maxLength: 6 }).map((ns) => ['$select', ns.join(',')] as const),
  fc.oneof(hostile, fc.bigInt({ min: -5n, max: 2n ** 70n }).map(String), fc.uuid()).map((t) => ['$skiptoken', `Id:${t}`] as const),
  fc.oneof(fc.integer({ min: -5, max: 20_000 }).map(String), hostile).map((t) => ['$top', t] as const),
  fc.constantFrom(['$count', 'true'] as const, ['$count', `${MARK}'`] as const, ['$apply', `groupby((CharacteristicName),aggregate($count as ${MARK}))`] as const),
  applyText.map((a) => ['$apply', a] as const),
);
const encode = fc.constantFrom<(s: string) => string>(encodeURIComponent, (s) => s.replace(/[&#%\s]/g, encodeURIComponent), (s) => encodeURIComponent(s).replace(/%24/g, '$'));
const request = fc.record({
  resource: fc.constantFrom('Records', 'Observations', 'Locations', 'Metadata', 'LocationSummaries', 'GuidelineComparisons'),
  options: fc.array(option, { minLength: 1, maxLength: 4 }),
  encode,
});

const ALLOWED_IDENTIFIERS = new Set<string>([
  ...Object.keys(storageTables),
  ...Object.values(storageTables).flatMap((cols) => cols.map((c) => c.column)),
  ...fieldNames, // JSON keys of the row writer
]);

describe('HTTP fuzz: hostile $filter/$select/$skiptoken/$top', () => {
  it('never a 500, an error body for every refusal, and no input text in the SQL', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async ({ resource, options, encode: enc }) => {
        const qs = options.map(([k, v]) => `${encodeURIComponent(k).replace('%24', '$')}=${enc(v)}`).join('&');
        const before = compiled.length;
        const res = await app.request(`/v1/odata/v4/${resource}?${qs}`, { headers: { 'x-api-key': 'fuzz-key' } });
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, `${resource}?${qs}\n${text}`).toBeLessThan(500);
        if (res.status >= 400) {
          const body = JSON.parse(text) as { errors: { status: string; code: string }[] };
          expect(body.errors[0]?.status).toBe(String(res.status));
        }
        for (const q of compiled.slice(before)) {
          expect(q.sql, qs).not.toContain(MARK);
          for (const [token] of q.sql.matchAll(/'(?:[^']|'')*'|"[^"]*"/g)) {
            if (token.startsWith('"')) expect(ALLOWED_IDENTIFIERS.has(token.slice(1, -1)), `identifier ${token} in ${q.sql}`).toBe(true);
            // The compiler's own constants only: JSON keys and punctuation, date formats.
            else expect(token, q.sql).toMatch(/^'[A-Za-z0-9_",:{}[\] %.;-]*'$/);
          }
        }
      }),
      { numRuns: 20_000 },
    );
    expect(unexpected).toEqual([]);
    // Both paths are exercised: accepted queries that reach SQL, and refusals.
    expect([...statuses.keys()].some((s) => s === 200)).toBe(true);
    expect([...statuses.keys()].some((s) => s === 400)).toBe(true);
    expect(compiled.some((q) => q.params.some((p) => String(p).includes(MARK)))).toBe(true);
  });
});
