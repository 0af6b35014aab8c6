/**
 * The shared statistics SQL (schemas/km-sql.ts) on a real DuckDB, against the README's expected values (§8's edge
 * cases, §9's worked examples from NADA, EnvStats and the EPA, ../shared/statistics/README.md) to 1e-6 relative, and
 * against the independent oracle beside it on random groups; then the row classification (§2.1–§2.3) on rows of every
 * kind. Here rather than beside schemas/km-sql.ts because schemas/ imports only schemas/ (its tests too). The same
 * SQL serves ingest and the API, whose own tests read it back through a real publish and over HTTP.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandom, type Random } from '../sample/prng.js';
import { kmEdgeCases, kmWorkedExamples, parseReported, type KmExample } from './km-examples.js';
import { kmSummary, type KmRow, type KmSummary } from './km-oracle.js';
import { KM_KIND, kmConversionOn, kmRowSql, kmSummarySql, METHOD_REASONS, type KmNames } from '../../schemas/km-sql.js';

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
async function summarise(cases: readonly KmExample[]): Promise<Map<string, Row>> {
  const values = cases.flatMap((c, g) => c.values.map(parseReported).map((r) => `(${g}, ${KM_KIND[r.kind]}, ${r.value}::DOUBLE)`));
  await conn.run(`CREATE OR REPLACE TABLE t AS SELECT * FROM (VALUES ${values.join(', ')}) v(g, km_k, km_x)`);
  const out = await rows(kmSummarySql({ input: 't', keys: ['g'], names, carry: { count: 'count(*)' } }));
  return new Map(out.map((r) => [cases[Number(r['g'])]!.name, r]));
}

const relative = (a: number, b: number): number => (a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)));

/** A statistic and its qualifier against the README's cell (`<5`, `12`, or null for —). */
function expectReported(got: Row, name: string, column: string, want: string | null): void {
  const value = got[`km_${column}`] as number | null;
  const qualifier = got[`km_${column}_q`] ?? null;
  if (want === null) return void expect(value, `${name} ${column}`).toBeNull();
  const e = parseReported(want);
  expect(value, `${name} ${column}`).not.toBeNull();
  expect(relative(value!, e.value), `${name} ${column}: ${value} against ${want}`).toBeLessThanOrEqual(1e-6);
  expect(qualifier, `${name} ${column} qualifier`).toBe(e.kind === 'left' ? '<' : e.kind === 'right' ? '>' : null);
}

function expectCase(got: Row | undefined, c: KmExample): void {
  const e = c.expected;
  expect(got, c.name).toBeDefined();
  expect(got!['km_method'], c.name).toBe(e.Method);
  expect(got!['km_reason'], c.name).toBe(e.MethodReason);
  const results = c.values.map(parseReported);
  expect(Number(got!['km_n'])).toBe(results.length);
  expect(Number(got!['km_left'])).toBe(results.filter((r) => r.kind === 'left').length);
  expect(Number(got!['km_right'])).toBe(results.filter((r) => r.kind === 'right').length);
  for (const [column, cell] of [['p10', e.P10], ['median', e.Median], ['p90', e.P90], ['min', e.Min], ['max', e.Max]] as const) expectReported(got!, c.name, column, cell);
  const mean = got!['km_mean'] as number | null;
  if (e.Mean === null) expect(mean, `${c.name} mean`).toBeNull();
  else expect(relative(mean!, e.Mean), `${c.name} mean: ${mean} against ${e.Mean}`).toBeLessThanOrEqual(1e-6);
}

describe('kmSummarySql', () => {
  it.each(kmEdgeCases.map((c) => [c.name, c] as const))('§8 %s', async (_, c) => {
    expectCase((await summarise([c])).get(c.name), c);
  });

  it.each(kmWorkedExamples.map((c) => [c.name, c] as const))('§9 %s', async (_, c) => {
    expectCase((await summarise([c])).get(c.name), c);
  });

  it('summarises many groups in one query, each on its own (every case at once)', async () => {
    const all = [...kmEdgeCases, ...kmWorkedExamples];
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

/**
 * A random group: 1–60 rows on a grid of tenths (so ties between values and limits are frequent), 0–95 % censored at
 * one to four limits, left, right or both, some rows unusable (every row, in a few groups).
 */
function randomGroup(random: Random): KmRow[] {
  const n = 1 + random.int(60);
  const censoring = random.next() * 0.95;
  const grid = () => (random.int(400) - 20) / 10;
  const limits = Array.from({ length: 1 + random.int(4) }, grid);
  const sides = random.pick(['left', 'left', 'right', 'both'] as const);
  const unusable = random.next() < 0.02 ? 1 : 0.03;
  return Array.from({ length: n }, (): KmRow => {
    if (random.next() < unusable) return { kind: 'unusable' };
    if (random.next() >= censoring) return { kind: 'detected', value: grid() };
    const side = sides === 'both' ? random.pick(['left', 'right'] as const) : sides;
    return { kind: side, value: random.pick(limits) + (side === 'right' ? 20 * random.int(2) : 0) };
  });
}

/** The served fields of a summary, from the SQL's output columns. */
function served(r: Row): Partial<KmSummary> {
  const num = (v: unknown) => (v === null ? null : Number(v));
  return {
    LeftCensored: Number(r['km_left']), RightCensored: Number(r['km_right']), Method: r['km_method'] as KmSummary['Method'], MethodReason: String(r['km_reason']),
    Min: num(r['km_min']), MinQualifier: (r['km_min_q'] ?? null) as KmSummary['MinQualifier'], Max: num(r['km_max']), MaxQualifier: (r['km_max_q'] ?? null) as KmSummary['MaxQualifier'],
    P10: num(r['km_p10']), P10Qualifier: (r['km_p10_q'] ?? null) as KmSummary['P10Qualifier'], Median: num(r['km_median']), MedianQualifier: (r['km_median_q'] ?? null) as KmSummary['MedianQualifier'],
    P90: num(r['km_p90']), P90Qualifier: (r['km_p90_q'] ?? null) as KmSummary['P90Qualifier'], Mean: num(r['km_mean']),
  };
}

describe('kmSummarySql against the independent oracle (scripts/testing/km-oracle.ts)', () => {
  it('agrees on every field of 600 random groups, summarised in one query', async () => {
    const random = createRandom(52);
    const groups = Array.from({ length: 600 }, () => randomGroup(random));
    const values = groups.flatMap((rows, g) => rows.map((r) => (r.kind === 'unusable' ? `(${g}, NULL, NULL)` : `(${g}, ${KM_KIND[r.kind]}, ${r.value}::DOUBLE)`)));
    await conn.run(`CREATE OR REPLACE TABLE t AS SELECT g, km_k::INTEGER AS km_k, km_x::DOUBLE AS km_x FROM (VALUES ${values.join(', ')}) v(g, km_k, km_x)`);
    const got = new Map((await rows(kmSummarySql({ input: 't', keys: ['g'], names }))).map((r) => [Number(r['g']), served(r)]));
    const methods = new Set<string>();
    for (const [g, rowsOf] of groups.entries()) {
      const want = kmSummary(rowsOf);
      const have = got.get(g)!;
      const what = `group ${g}: ${JSON.stringify(rowsOf)}`;
      for (const [field, value] of Object.entries(have)) {
        const expected = want[field as keyof KmSummary];
        // A km percentile is a detected value or a limit, exactly; a mean or a type-7 interpolation to a few ulps.
        const interpolated = field === 'Mean' || (want.Method === 'exact' && ['P10', 'Median', 'P90'].includes(field));
        if (interpolated && typeof expected === 'number') expect(relative(value as number, expected), `${what} ${field}`).toBeLessThanOrEqual(1e-12);
        else expect(value, `${what} ${field}`).toEqual(expected);
      }
      methods.add(`${want.Method}: ${want.MethodReason}`);
    }
    // Every Method and MethodReason of §3 came up.
    expect(methods.size).toBe(7);
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
