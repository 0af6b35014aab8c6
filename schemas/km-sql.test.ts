/**
 * The shared statistics SQL on a real DuckDB, against the README's expected values (§8's edge cases, §9's worked
 * examples from NADA, EnvStats and the EPA, ../shared/statistics/README.md), to 1e-6 relative; then the row
 * classification (§2.1–§2.3) on rows of every kind. The same SQL serves ingest and the API, whose own tests read it
 * back through a real publish and over HTTP.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATRAZINE_BOTH, EDGE_CASES, parseReported, parseResults, WORKED_EXAMPLES, type KmCase } from '../scripts/testing/km-cases.js';
import { KM_KIND, kmConversionOn, kmRowSql, kmSummarySql, METHOD_REASONS, type KmNames } from './km-sql.js';

const names: KmNames = { ident: (n) => `"${n}"`, constant: (t) => `'${t.replaceAll("'", "''")}'` };
let instance: DuckDBInstance;
let conn: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
afterAll(() => {
  conn?.closeSync();
  instance?.closeSync();
});

type Row = Record<string, unknown>;

async function rows(sql: string): Promise<Row[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Row[];
}

/** Every case as one group of a table, summarised in one query. */
async function summarise(cases: readonly KmCase[]): Promise<Map<string, Row>> {
  const values = cases.flatMap((c, g) => parseResults(c.values).map((r) => `(${g}, ${KM_KIND[r.kind]}, ${r.x}::DOUBLE)`));
  await conn.run(`CREATE OR REPLACE TABLE t AS SELECT * FROM (VALUES ${values.join(', ')}) v(g, km_k, km_x)`);
  const out = await rows(kmSummarySql({ input: 't', keys: ['g'], names, carry: { count: 'count(*)' } }));
  return new Map(out.map((r) => [cases[Number(r['g'])]!.name, r]));
}

function expectReported(got: Row, name: string, column: string, want: string | null): void {
  const reported = parseReported(want);
  const value = got[`km_${column}`] as number | null;
  if (reported === null) {
    expect(value, `${name} ${column}`).toBeNull();
    return;
  }
  expect(value, `${name} ${column}`).not.toBeNull();
  expect(Math.abs(value! - reported.value), `${name} ${column}: ${value} against ${want}`).toBeLessThanOrEqual(1e-6 * Math.abs(reported.value));
  if (column !== 'mean') expect(got[`km_${column}_q`] ?? null, `${name} ${column} qualifier`).toBe(reported.qualifier);
}

function expectCase(got: Row | undefined, c: KmCase): void {
  expect(got, c.name).toBeDefined();
  expect(got!['km_method'], c.name).toBe(c.method);
  expect(got!['km_reason'], c.name).toBe(c.reason);
  const results = parseResults(c.values);
  expect(Number(got!['km_n'])).toBe(results.length);
  expect(Number(got!['km_left'])).toBe(results.filter((r) => r.kind === 'left').length);
  expect(Number(got!['km_right'])).toBe(results.filter((r) => r.kind === 'right').length);
  for (const column of ['p10', 'median', 'p90', 'mean', 'min', 'max'] as const) expectReported(got!, c.name, column, c[column]);
}

describe('kmSummarySql', () => {
  it.each(EDGE_CASES.map((c) => [c.name, c] as const))('§8 %s', async (_, c) => {
    expectCase((await summarise([c])).get(c.name), c);
  });

  it.each([...WORKED_EXAMPLES, ATRAZINE_BOTH].map((c) => [c.name, c] as const))('§9 %s', async (_, c) => {
    expectCase((await summarise([c])).get(c.name), c);
  });

  it('summarises many groups in one query, each on its own (every case at once)', async () => {
    const all = [...EDGE_CASES, ...WORKED_EXAMPLES];
    const got = await summarise(all);
    expect(got.size).toBe(all.length);
    for (const c of all) expectCase(got.get(c.name), c);
  });

  it('a group of unusable rows alone is none, no usable results, and counts them', async () => {
    await conn.run(`CREATE OR REPLACE TABLE t AS SELECT * FROM (VALUES (1, NULL::INTEGER, NULL::DOUBLE), (1, NULL, NULL)) v(g, km_k, km_x)`);
    const [got] = await rows(kmSummarySql({ input: 't', keys: ['g'], names, carry: { count: 'count(*)' } }));
    expect(got).toMatchObject({ km_n: 0n, km_method: 'none', km_reason: METHOD_REASONS.noUsable, km_min: null, km_max: null, km_median: null, count: 2n });
  });

  it('groups by keys with nulls, each its own group', async () => {
    await conn.run(`CREATE OR REPLACE TABLE t AS SELECT * FROM (VALUES ('a', NULL, 1, 5.0), ('a', NULL, 0, 1.0), (NULL, 'u', 1, 7.0), (NULL, NULL, 1, 9.0)) v(a, u, km_k, km_x)`);
    const got = await rows(`${kmSummarySql({ input: 't', keys: ['a', 'u'], names })} ORDER BY 1, 2`);
    expect(got.map((r) => [r['a'], r['u'], r['km_method'], r['km_median'], r['km_median_q']])).toEqual([
      ['a', null, 'km', 1, '<'],
      [null, 'u', 'exact', 7, null],
      [null, null, 'exact', 9, null],
    ]);
  });
});

describe('kmRowSql', () => {
  it('classifies each row, takes the limit unit without a ResultUnit, converts and rounds a limit in another unit', async () => {
    await conn.run(`CREATE OR REPLACE TABLE conv AS SELECT * FROM (VALUES ('ug/L', 'mg/L', 0.001::DOUBLE, 0::DOUBLE), ('deg F', 'deg C', 5 / 9, -160 / 9)) v(from_unit, to_unit, factor, "offset")`);
    const cases: [string, string, Row][] = [
      ["(0.005, 'mg/L', NULL, NULL, NULL)", 'detected', { unit: 'mg/L', kind: 1, x: 0.005 }],
      ["(NULL, NULL, 'Below Detection/Quantification Limit', 5, 'ug/L')", 'no ResultUnit: the limit unit', { unit: 'ug/L', kind: 0, x: 5 }],
      ["(NULL, 'mg/L', 'Below Detection/Quantification Limit', 5, 'ug/L')", 'converted, ties with 0.005', { unit: 'mg/L', kind: 0, x: 0.005 }],
      ["(NULL, 'mg/L', 'Not Detected', 5, 'ug/L')", 'Not Detected with a limit', { unit: 'mg/L', kind: 0, x: 0.005 }],
      ["(NULL, 'deg C', 'Above Detection/Quantification Limit', 212, 'deg F')", 'above, with an offset', { unit: 'deg C', kind: 2, x: 100 }],
      ["(NULL, 'mg/L', 'Below Detection/Quantification Limit', 5, 'ppm')", 'a pair UCUM does not convert', { unit: 'mg/L', kind: null }],
      ["(NULL, NULL, 'Not Detected', NULL, NULL)", 'no limit', { unit: null, kind: null }],
      ["(NULL, NULL, 'Detected Not Quantified', 2, 'ug/L')", 'a condition that carries no number', { unit: null, kind: null }],
      ["(NULL, 'mg/L', 'Not Reported', NULL, NULL)", 'not reported', { unit: 'mg/L', kind: null }],
    ];
    const cols = { value: 'r.v', unit: 'r.u', condition: 'r.c', limit: 'r.l', limitUnit: 'r.lu' };
    const conv = { fromUnit: 'x.from_unit', toUnit: 'x.to_unit', factor: 'x.factor', offset: 'x."offset"' };
    const sql = kmRowSql(cols, conv, names);
    const got = await rows(
      `SELECT ${sql.unit} AS unit, ${sql.kind} AS kind, ${sql.number} AS x FROM (SELECT i, v::DOUBLE AS v, u, c, l::DOUBLE AS l, lu FROM (VALUES ${cases.map((c, i) => `(${i}, ${c[0].slice(1)}`).join(', ')}) r(i, v, u, c, l, lu)) r
       LEFT JOIN conv x ON ${kmConversionOn(cols, conv)} ORDER BY r.i`,
    );
    for (const [i, [, what, want]] of cases.entries()) {
      const { x, ...rest } = want;
      expect({ unit: got[i]!['unit'], kind: got[i]!['kind'] ?? null }, what).toEqual(rest);
      if (x !== undefined) expect(got[i]!['x'], what).toBe(x);
    }
  });
});
