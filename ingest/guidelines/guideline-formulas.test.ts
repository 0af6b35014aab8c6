import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExpressionError, inputNames, parseExpression, type InputName } from './guideline-expression.js';
import { compileGuideline, inputColumn } from './guideline-sql.js';
import { loadGuidelines, type Guideline } from './guideline-table.js';
import { inputUnits } from './paired-inputs.js';

/**
 * The summary's formulas as served (with the reviewed corrections), evaluated by the SQL they compile to, against
 * the publishers' definitions written here in plain TypeScript: every formula row of the CCME table in
 * ../shared/guidelines/README.md §2, and each correction against the publisher's own worked values.
 */

let instance: DuckDBInstance;
let conn: DuckDBConnection;
const guidelines = loadGuidelines();

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

type Inputs = Partial<Record<InputName, number>>;

interface Value {
  readonly lo: number | null;
  readonly hi: number | null;
  readonly clamps: string[];
}

/** The production SQL of guideline `g` evaluated at each of `points` (a missing input is NULL), in one query. */
async function servedAt(g: Guideline, points: readonly Inputs[]): Promise<Value[]> {
  const c = compileGuideline(g.formula!, inputUnits);
  const params: (number | null)[] = [];
  const rows = points.map((p, k) => `(${[k, ...inputNames.map((n) => p[n] ?? null)].map((v) => (params.push(v), `CAST($${params.length} AS DOUBLE)`)).join(', ')})`);
  const clamps = c.clamps.length === 0 ? 'CAST([] AS VARCHAR[])' : `list_filter([${c.clamps.join(', ')}], x -> x IS NOT NULL)`;
  const sql = `SELECT ${c.lo} AS lo, ${c.hi} AS hi, ${clamps} AS clamps FROM (VALUES ${rows.join(', ')}) t(k, ${inputNames.map(inputColumn).join(', ')}) ORDER BY k`;
  return (await conn.runAndReadAll(sql, params)).getRowObjectsJson().map((row) => ({
    lo: row.lo === null ? null : Number(row.lo), hi: row.hi === null ? null : Number(row.hi), clamps: (row.clamps as string[]) ?? [],
  }));
}

async function served(g: Guideline, inputs: Inputs): Promise<Value> {
  return (await servedAt(g, [inputs]))[0]!;
}

function find(characteristic: string, fraction: string | null, speciation: string | null, publisher: string, level: string): Guideline {
  const found = guidelines.filter(
    (g) => g.CharacteristicName === characteristic && g.ResultSampleFraction === fraction && g.MethodSpeciation === speciation && g.Publisher === publisher && g.ProtectionLevel === level && g.MediaName === 'Water' && g.Ecosystem === 'Freshwater',
  );
  expect(found.length, `${characteristic} ${fraction} ${speciation} ${publisher} ${level}`).toBeGreaterThanOrEqual(1);
  return found[0]!;
}

const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(x, hi));
/** CCME's un-ionized fraction of total ammonia (shared README §2). */
const unionized = (pH: number, T: number) => 1 / (10 ** (0.0901821 + 2729.92 / (T + 273.15) - pH) + 1);

interface Row {
  readonly name: string;
  readonly g: () => Guideline;
  readonly value: (i: Inputs) => number | null;
  readonly at: readonly Inputs[];
}

const H = [3, 5.3, 17, 50, 60, 61, 82, 100, 180, 250, 280, 360, 400, 600];
const hardnessOnly = H.map((h) => ({ hardness: h }));

/** The CCME table of the shared README §2, in the publishers' own terms. */
const ccme: readonly Row[] = [
  { name: 'Cadmium short-term', g: () => find('Cadmium', 'Total', null, 'CCME', 'Acute'), value: ({ hardness: h }) => 10 ** (1.016 * Math.log10(clamp(h!, 5.3, 360)) - 1.71), at: hardnessOnly },
  { name: 'Cadmium long-term', g: () => find('Cadmium', 'Total', null, 'CCME', 'Chronic'), value: ({ hardness: h }) => 10 ** (0.83 * Math.log10(clamp(h!, 17, 280)) - 2.46), at: hardnessOnly },
  {
    name: 'Copper long-term', g: () => find('Copper', 'Total', null, 'CCME', 'Chronic'),
    value: ({ hardness: h }) => (h === undefined ? 2 : 0.2 * Math.exp(0.8545 * Math.log(clamp(h, 82, 180)) - 1.465)), at: [...hardnessOnly, {}],
  },
  { name: 'Lead long-term', g: () => find('Lead', 'Total', null, 'CCME', 'Chronic'), value: ({ hardness: h }) => (h! <= 60 ? 1 : Math.exp(1.273 * Math.log(Math.min(h!, 180)) - 4.705)), at: hardnessOnly },
  { name: 'Nickel long-term', g: () => find('Nickel', 'Total', null, 'CCME', 'Chronic'), value: ({ hardness: h }) => (h! <= 60 ? 25 : Math.exp(0.76 * Math.log(Math.min(h!, 180)) + 1.06)), at: hardnessOnly },
  {
    name: 'Zinc short-term', g: () => find('Zinc', 'Dissolved', null, 'CCME', 'Acute'),
    value: ({ hardness: h, DOC: d }) => Math.exp(0.833 * Math.log(clamp(h!, 13.8, 250.5)) + 0.24 * Math.log(clamp(d!, 0.3, 17.3)) + 0.526),
    at: H.flatMap((h) => [0.1, 0.3, 0.5, 5, 17.3, 30].map((d) => ({ hardness: h, DOC: d }))),
  },
  {
    name: 'Zinc long-term', g: () => find('Zinc', 'Dissolved', null, 'CCME', 'Chronic'),
    value: ({ hardness: h, pH: p, DOC: d }) => Math.exp(0.947 * Math.log(clamp(h!, 23.4, 399)) - 0.815 * clamp(p!, 6.5, 8.13) + 0.398 * Math.log(clamp(d!, 0.3, 22.9)) + 4.625),
    at: H.flatMap((h) => [5.5, 6.5, 7.5, 8.13, 9].flatMap((p) => [0.1, 0.5, 10, 40].map((d) => ({ hardness: h, pH: p, DOC: d })))),
  },
  { name: 'Manganese short-term', g: () => find('Manganese', 'Dissolved', null, 'CCME', 'Acute'), value: ({ hardness: h }) => Math.exp(0.878 * Math.log(clamp(h!, 25, 250)) + 4.76), at: hardnessOnly },
  { name: 'Aluminum long-term', g: () => find('Aluminum', 'Total', null, 'CCME', 'Chronic'), value: ({ pH: p }) => (p! < 6.5 ? 5 : 100), at: [4, 6, 6.49, 6.5, 7, 9].map((p) => ({ pH: p })) },
  {
    name: 'Ammonia (as NH3) long-term', g: () => find('Ammonia and ammonium', 'Unfiltered', 'as NH3', 'CCME', 'Chronic'),
    value: ({ pH: p, temperature: t }) => 0.019 / unionized(p!, t!), at: [6, 6.5, 7, 8, 9, 10].flatMap((p) => [0, 5, 10, 20, 30].map((t) => ({ pH: p, temperature: t }))),
  },
  {
    name: 'Ammonia (as N) long-term', g: () => find('Ammonia and ammonium', 'Unfiltered', 'as N', 'CCME', 'Chronic'),
    value: ({ pH: p, temperature: t }) => (0.8224 * 0.019) / unionized(p!, t!), at: [6, 7, 8, 9].flatMap((p) => [0, 10, 25].map((t) => ({ pH: p, temperature: t }))),
  },
];

describe('CCME formula rows (shared README §2) against the publishers’ definitions', () => {
  it.each(ccme.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const g = row.g();
    const values = await servedAt(g, row.at);
    for (const [k, inputs] of row.at.entries()) {
      const want = row.value(inputs);
      const got = values[k]!;
      expect(got.hi, `${g.Id} at ${JSON.stringify(inputs)}`).not.toBeNull();
      expect(got.hi! / want! - 1, `${g.Id} at ${JSON.stringify(inputs)}: ${got.hi} vs ${want}`).toBeCloseTo(0, 10);
    }
  });

  it('says which input was clamped to the calibrated range, and only then', async () => {
    const zinc = find('Zinc', 'Dissolved', null, 'CCME', 'Chronic');
    expect((await served(zinc, { hardness: 100, pH: 7, DOC: 2 })).clamps).toEqual([]);
    const clamped = (await served(zinc, { hardness: 500, pH: 6, DOC: 0.1 })).clamps;
    expect(clamped).toHaveLength(3);
    expect(clamped.join(' | ')).toMatch(/hardness 500(\.0)? mg\/L is above the formula's calibrated range: 399 mg\/L used/);
    expect(clamped.join(' | ')).toMatch(/pH 6(\.0)? is below the formula's calibrated range: 6.5 used/);
    expect(clamped.join(' | ')).toMatch(/DOC 0.1 mg\/L is below .*0.3 mg\/L used/);
  });

  it('gives no value when an input is missing, except where the guideline has a fallback', async () => {
    expect((await served(find('Cadmium', 'Total', null, 'CCME', 'Chronic'), {})).hi).toBeNull();
    expect((await served(find('Zinc', 'Dissolved', null, 'CCME', 'Chronic'), { hardness: 100, pH: 7 })).hi).toBeNull();
    expect((await served(find('Copper', 'Total', null, 'CCME', 'Chronic'), {})).hi).toBe(2);
  });

  it('serves the long-term manganese rows without comparing them (CCME’s look-up table is not in the summary)', () => {
    const rows = guidelines.filter((g) => g.CharacteristicName === 'Manganese' && g.Publisher === 'CCME' && g.ProtectionLevel === 'Chronic');
    expect(rows).toHaveLength(2);
    for (const g of rows) {
      expect(g.formula).toBeUndefined();
      expect(g.Correction).toMatch(/look-up table/);
    }
  });
});

/** Each correction against the publisher's worked values (the document is cited beside each). */
describe('corrections against the publishers’ worked values', () => {
  it('CCME zinc (2018 fact sheet): short-term 37 µg/L and long-term 7.0 µg/L at hardness 50 mg/L, pH 7.5, DOC 0.5 mg/L', async () => {
    // CCME (2018) Canadian Water Quality Guidelines for the Protection of Aquatic Life: Zinc, worked example.
    const short = await served(find('Zinc', 'Dissolved', null, 'CCME', 'Acute'), { hardness: 50, DOC: 0.5 });
    expect(Number(short.hi!.toFixed(0))).toBe(37);
    const long = await served(find('Zinc', 'Dissolved', null, 'CCME', 'Chronic'), { hardness: 50, pH: 7.5, DOC: 0.5 });
    expect(Number(long.hi!.toFixed(1))).toBe(7.0);
    // The summary's own short-term row (no ln on DOC) gives 50 µg/L at the same point: why it was corrected.
    const g = find('Zinc', 'Dissolved', null, 'CCME', 'Acute');
    const published = await served({ ...g, formula: parseExpression(g.Expression) }, { hardness: 50, DOC: 0.5 });
    expect(Number(published.hi!.toFixed(0))).toBe(50);
  });

  it('CCME ammonia (2010 fact sheet): the total-ammonia guideline holds 0.019 mg/L of un-ionized NH3, 0.8224× as N', async () => {
    // CCME (2010) Canadian Water Quality Guidelines for the Protection of Aquatic Life: Ammonia — 0.019 mg/L NH3
    // un-ionized, tabulated as total ammonia (0.019 / f) in its Table 2. The worked point here (pH 8.0, 20 °C:
    // f = 0.0381, 0.50 mg/L NH3) is computed from that definition, not read from the table.
    const nh3 = find('Ammonia and ammonium', 'Unfiltered', 'as NH3', 'CCME', 'Chronic');
    const asN = find('Ammonia and ammonium', 'Unfiltered', 'as N', 'CCME', 'Chronic');
    for (const [pH, T] of [[6.5, 5], [7, 10], [8, 20], [9, 25]] as const) {
      const total = (await served(nh3, { pH, temperature: T })).hi!;
      expect(total * unionized(pH, T)).toBeCloseTo(0.019, 12);
      expect((await served(asN, { pH, temperature: T })).hi! / total).toBeCloseTo(14.0067 / 17.0305, 3);
    }
    expect(Number((await served(nh3, { pH: 8, temperature: 20 })).hi!.toFixed(2))).toBe(0.5);
  });

  it('US EPA cadmium (2001): dissolved acute 2.0 µg/L and chronic 0.25 µg/L at hardness 100 mg/L', async () => {
    // US EPA (2001) 2001 Update of Ambient Water Quality Criteria for Cadmium, EPA-822-R-01-001: CMC 2.0, CCC 0.25 µg/L.
    const acute = guidelines.find((g) => g.Id === 214)!;
    const chronic = guidelines.find((g) => g.Id === 216)!;
    expect(Number((await served(acute, { hardness: 100 })).hi!.toFixed(1))).toBe(2.0);
    expect(Number((await served(chronic, { hardness: 100 })).hi!.toFixed(2))).toBe(0.25);
    expect(() => parseExpression(chronic.Expression)).toThrow(ExpressionError);
  });

  it('US EPA pentachlorophenol (1995): 19 and 15 µg/L at pH 7.8 (served as published: it parses and agrees)', async () => {
    // US EPA National Recommended Water Quality Criteria, aquatic life table: CMC 19, CCC 15 µg/L at pH 7.8.
    expect(Number((await served(find('Pentachlorophenol', null, null, 'US EPA', 'Acute'), { pH: 7.8 })).hi!.toFixed(0))).toBe(19);
    expect(Number((await served(find('Pentachlorophenol', null, null, 'US EPA', 'Chronic'), { pH: 7.8 })).hi!.toFixed(0))).toBe(15);
  });

  it('US EPA ammonia (2013): acute 17 and chronic 1.9 mg TAN/L at pH 7 and 20 °C', async () => {
    // US EPA (2013) Aquatic Life Ambient Water Quality Criteria for Ammonia – Freshwater, EPA 822-R-13-001.
    const acute = guidelines.find((g) => g.Id === 98)!;
    const chronic = guidelines.find((g) => g.Id === 106)!;
    expect(Number((await served(acute, { pH: 7, temperature: 20 })).hi!.toFixed(0))).toBe(17);
    expect(Number((await served(chronic, { pH: 7, temperature: 20 })).hi!.toFixed(1))).toBe(1.9);
    // The chronic criterion's temperature term: 10^(0.028·(20 − max(T, 7))) (EPA 2013 eq.), not (10 − …).
    const c = (pH: number, T: number) => 0.8876 * (0.0278 / (1 + 10 ** (7.688 - pH)) + 1.1994 / (1 + 10 ** (pH - 7.688))) * 2.126 * 10 ** (0.028 * (20 - Math.max(T, 7)));
    for (const [pH, T] of [[6.5, 0], [7.5, 15], [8.5, 25]] as const) expect((await served(chronic, { pH, temperature: T })).hi! / c(pH, T) - 1).toBeCloseTo(0, 10);
  });

  it('Ontario copper (PWQO): 1 µg/L at hardness 0–20 mg/L, 5 µg/L above', async () => {
    const g = guidelines.find((x) => x.Id === 427)!;
    expect((await served(g, { hardness: 10 })).hi).toBe(1);
    expect((await served(g, { hardness: 150 })).hi).toBe(5);
  });

  it('BC ammonia: pKa = 0.09018 + 2729.92 / (273.2 + T) (Emerson et al. 1975), 9.40 at 20 °C', async () => {
    // The un-ionized fraction in BC's formula is 1 / (100·(10^(pKa − pH) + 1)) × 100: at pH 8, 20 °C, f = 3.82 %.
    for (const id of [75, 76]) {
      const g = guidelines.find((x) => x.Id === id)!;
      expect(g.Correction).toMatch(/pKa/);
      expect(g.formula).toBeDefined();
    }
    expect(0.09018 + 2729.92 / 293.2).toBeCloseTo(9.401, 3);
  });

  it('the QC dissolved-oxygen range of minima is served, not compared', () => {
    const g = guidelines.find((x) => x.Id === 1095)!;
    expect(g.formula).toBeUndefined();
    expect(g.Correction).toMatch(/range of minima/);
  });
});
