/**
 * Issue 52 item 1 proved end to end: datasets written in DataStream's upload format, published by the real ingest
 * CLI (the README's cases first, then the hub merged onto them), read back from the published table and over HTTP.
 *
 * - A seeded hub (scripts/testing/censored-hub.ts: 0–95 % censored series, several limits, limits in another unit,
 *   non-detects without ResultUnit, `>` results, unusable rows, quality-control samples): every LocationSummaries
 *   row against the independent oracle of the statistics README (scripts/testing/km-oracle.ts) computed from the
 *   rows the generator wrote, never from the production SQL.
 * - The README's §8 edge cases and §9 worked examples (NADA, EnvStats, the EPA) as a dataset, some with their limits
 *   written in mg/L beside µg/L values: each row against the published figures, to 1e-6 relative.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeCaseDataset, writeCensoredHub, type CaseSpelling, type HubResult } from '../../../scripts/testing/censored-hub.js';
import { kmEdgeCases, kmWorkedExamples, parseReported, type KmExample } from '../../../scripts/testing/km-examples.js';
import { kmAggregate, kmSummary, locationSummaryGroups } from '../../../scripts/testing/km-oracle.js';
import { ucumConvert } from '../../../scripts/testing/ucum-convert.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';
import { REPO_ROOT } from '../testing/fixture-db.js';

type Row = Record<string, unknown>;

const CASES_DOI = '10.80052/km-cases';
const CASES: readonly { readonly example: KmExample; readonly spelling: CaseSpelling }[] = [
  ...[...kmEdgeCases, ...kmWorkedExamples].map((example) => ({ example, spelling: 'as laboratories write them' as const })),
  ...kmWorkedExamples.filter((e) => ['NADA DFe', 'Beal (2010) lead', 'Helsel & Cohn (1988) silver'].includes(e.name)).map((example) => ({ example, spelling: 'mg/L limits' as const })),
];

let dir: string;
let fx: FixtureApp;
let written: HubResult[];
/** The published LocationId of each (DOI, MonitoringLocationID). */
let locationIds: Map<string, number>;
/** Every LocationSummaries row, over HTTP (JSON pages) and from the table, by Id. */
let served: Map<number, Row>;
let stored: Map<number, Row>;

const enc = (v: string) => encodeURIComponent(v).replace(/'/g, '%27');
const where = (doi: string, id: string) => JSON.stringify([doi, id]);

async function allPages(path: string): Promise<Row[]> {
  const out: Row[] = [];
  for (let next: string | undefined = path; next; ) {
    const res = await fx.app.request(next);
    const body = (await res.json()) as { value: Row[]; '@odata.nextLink'?: string };
    if (res.status !== 200) throw new Error(`${next}: ${res.status} ${JSON.stringify(body)}`);
    out.push(...body.value);
    const link = body['@odata.nextLink'];
    next = link ? link.slice(link.indexOf('/v1/')) : undefined;
  }
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-km-'));
  const src = join(dir, 'src');
  const first = join(dir, 'first');
  const cases = await writeCaseDataset(first, CASES_DOI, CASES);
  const hub = await writeCensoredHub(src, { seed: 52, datasets: 3, locations: 8 });
  written = [...hub.rows, ...cases];
  const duckdbPath = join(dir, 'km.duckdb');
  const ingest = (from: string) => promisify(execFile)(process.execPath, [inject('ingestCli'), 'ingest'], { cwd: REPO_ROOT, env: { ...process.env, SRC: from, DUCKDB_PATH: duckdbPath } });
  // The cases first (their limits' one pair, mg/L → µg/L), then the hub merged onto them, with pairs of its own.
  await ingest(first);
  cpSync(join(first, 'km-cases'), join(src, 'km-cases'), { recursive: true });
  await ingest(src);
  fx = await openFixtureApp(duckdbPath);
  locationIds = new Map((await allPages('/v1/odata/v4/Locations?$select=Id,DOI,ID')).map((l) => [where(String(l['DOI']), String(l['ID'])), Number(l['Id'])]));
  served = new Map((await allPages('/v1/odata/v4/LocationSummaries?$top=500')).map((r) => [Number(r['Id']), r]));
  const table = (await fx.ref.runAndReadAll('SELECT * FROM location_summaries')).getRowObjectsJson() as Row[];
  stored = new Map(table.map((r) => [Number(r['Id']), r]));
}, 240_000);

afterAll(async () => {
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The oracle's rows of one location's written results, by the key the API serves. */
function oracleRows(rows: readonly HubResult[]): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const g of locationSummaryGroups(rows, ucumConvert)) {
    const { CharacteristicName, ResultSampleFraction, MethodSpeciation, ResultUnit } = g.key;
    out.set(JSON.stringify([CharacteristicName, ResultSampleFraction, MethodSpeciation, ResultUnit]), { ...g.key, ...kmSummary(g.classified) });
  }
  return out;
}

const keyOf = (r: Row) => JSON.stringify([r['CharacteristicName'], r['ResultSampleFraction'], r['MethodSpeciation'], r['ResultUnit']]);
const relative = (a: number, b: number): number => (a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)));

/** The summary rows of one location, as `rows` (served or stored) hold them, by key. */
function rowsAt(rows: ReadonlyMap<number, Row>, locationId: number): Map<string, Row> {
  return new Map([...rows.values()].filter((r) => Number(r['LocationId']) === locationId).map((r) => [keyOf(r), r]));
}

/**
 * Every field the oracle gives, equal; a mean or a type-7 percentile (an interpolation) to 1e-12 relative. The fields
 * are a summary row's (Median, Method) or `$apply`'s as the tests alias them (km_median, km_method).
 */
function expectOracle(got: Row, want: Row, what: string): void {
  const exact = want['Method'] === 'exact' || want['km_method'] === 'exact';
  for (const [field, value] of Object.entries(want)) {
    const have = typeof value === 'number' && got[field] !== null ? Number(got[field]) : got[field];
    const interpolated = ['Mean', 'km_mean'].includes(field) || (exact && ['P10', 'Median', 'P90', 'km_p10', 'km_median', 'km_p90'].includes(field));
    if (interpolated && typeof value === 'number') expect(relative(have as number, value), `${what} ${field}`).toBeLessThanOrEqual(1e-12);
    else expect(have, `${what} ${field}`).toEqual(value);
  }
}

describe('LocationSummaries over a generated hub with non-detects, against the oracle', () => {
  it('publishes every row written, and the merge keeps every pair of units the limits convert between', async () => {
    const [count] = (await fx.ref.runAndReadAll('SELECT count(*)::INTEGER AS n FROM observations')).getRowObjectsJson();
    expect(count!['n']).toBe(written.length);
    const pairs = (await fx.ref.runAndReadAll('SELECT from_unit, to_unit FROM unit_conversions')).getRowObjectsJson();
    expect(pairs).toEqual([{ from_unit: 'mg/L', to_unit: 'ug/L' }, { from_unit: 'ng/L', to_unit: 'ug/L' }, { from_unit: 'ug/L', to_unit: 'mg/L' }]);
  });

  it('every row, served and stored, is the oracle\'s summary of its location\'s results, and none is missing', () => {
    const byLocation = new Map<number, HubResult[]>();
    for (const r of written) {
      const id = locationIds.get(where(r.DOI, r.MonitoringLocationID))!;
      (byLocation.get(id) ?? byLocation.set(id, []).get(id)!).push(r);
    }
    let compared = 0;
    for (const [locationId, rows] of byLocation) {
      const want = oracleRows(rows);
      for (const [name, source] of [['served', served], ['stored', stored]] as const) {
        const got = rowsAt(source, locationId);
        expect([...got.keys()].sort(), `${name} groups at ${locationId}`).toEqual([...want.keys()].sort());
        for (const [key, row] of want) expectOracle(got.get(key)!, row, `${name} ${locationId} ${key}`);
      }
      compared += want.size;
    }
    expect(compared).toBe(served.size);
    expect(stored.size).toBe(served.size);
  });

  it('the hub holds what it is meant to prove: every Method and MethodReason, converted limits, unusable rows, quality control', () => {
    const rows = [...served.values()];
    expect(new Set(rows.map((r) => `${String(r['Method'])}: ${String(r['MethodReason'])}`)).size).toBe(7);
    expect(rows.some((r) => Number(r['Unusable']) > 0)).toBe(true);
    expect(rows.some((r) => Number(r['RightCensored']) > 0 && r['P90Qualifier'] === '>')).toBe(true);
    expect(rows.some((r) => r['CharacteristicName'] === 'Zinc' && r['ResultUnit'] === 'ug/L')).toBe(true);
    expect(written.some((r) => r.ResultUnit === 'ug/L' && r.ResultDetectionQuantitationLimitUnit === 'mg/L')).toBe(true);
    expect(written.some((r) => r.ActivityGroupType.startsWith('Quality Control'))).toBe(true);
    // No statistic saw a quality-control value (10⁶, above every other).
    expect(rows.every((r) => r['Max'] === null || Number(r['Max']) < 1e6)).toBe(true);
  });
});

describe("the statistics README's cases as a dataset", () => {
  it.each(CASES.map((c, i) => [`${c.example.name} (${c.spelling})`, c, i] as const))('%s', (_, { example }, i) => {
    const id = locationIds.get(where(CASES_DOI, `CASE-${i}`))!;
    for (const [name, source] of [['served', served], ['stored', stored]] as const) {
      const rows = [...rowsAt(source, id).values()];
      expect(rows, name).toHaveLength(1);
      const row = rows[0]!;
      const e = example.expected;
      expect([row['ResultUnit'], row['Method'], row['MethodReason']], name).toEqual(['ug/L', e.Method, e.MethodReason]);
      expect(Number(row['Count']), name).toBe(example.values.length);
      for (const field of ['P10', 'Median', 'P90', 'Min', 'Max'] as const) {
        const want = e[field];
        if (want === null) {
          expect([row[field], row[`${field}Qualifier`]], `${name} ${field}`).toEqual([null, null]);
          continue;
        }
        const r = parseReported(want);
        expect(row[`${field}Qualifier`] ?? null, `${name} ${field}Qualifier`).toBe(r.kind === 'left' ? '<' : r.kind === 'right' ? '>' : null);
        expect(relative(Number(row[field]), r.value), `${name} ${field}: ${String(row[field])} against ${want}`).toBeLessThanOrEqual(1e-6);
      }
      if (e.Mean === null) expect(row['Mean'], `${name} Mean`).toBeNull();
      else expect(relative(Number(row['Mean']), e.Mean), `${name} Mean: ${String(row['Mean'])} against ${e.Mean}`).toBeLessThanOrEqual(1e-6);
    }
  });

  it('a summary page in CSV writes each qualifier before its number', async () => {
    const dfe = locationIds.get(where(CASES_DOI, `CASE-${CASES.findIndex((c) => c.example.name === 'NADA DFe')}`))!;
    const res = await fx.app.request(`/v1/odata/v4/LocationSummaries?$format=csv&$filter=${enc(`LocationId eq ${dfe}`)}&$select=P10Qualifier,P10,MedianQualifier,Median,P90Qualifier,P90`);
    expect((await res.text()).trim().split('\r\n')).toEqual(['MedianQualifier,Median,P10Qualifier,P10,P90Qualifier,P90', ',3.0,"<",3.0,,20.0']);
  });
});

// ---- $apply's km methods (README §7) ----

const KM_ITEMS =
  'ResultValue with Tributary.km_median as km_median,ResultValue with Tributary.km_median_qualifier as km_median_qualifier,' +
  'ResultValue with Tributary.km_p10 as km_p10,ResultValue with Tributary.km_p10_qualifier as km_p10_qualifier,' +
  'ResultValue with Tributary.km_p90 as km_p90,ResultValue with Tributary.km_p90_qualifier as km_p90_qualifier,' +
  'ResultValue with Tributary.km_mean as km_mean,ResultValue with Tributary.km_method as km_method';

async function applyGroups(apply: string): Promise<Row[]> {
  return allPages(`/v1/odata/v4/Observations?$apply=${enc(apply)}&$top=10000`);
}

/** `ResultUnit eq U or (ResultUnit eq null and ResultDetectionQuantitationLimitUnit eq U)`: one unit's rows (§7). */
const inUnit = (u: string) => `(ResultUnit eq '${u}' or (ResultUnit eq null and ResultDetectionQuantitationLimitUnit eq '${u}'))`;
/** Quality control left out, as a client filters it: by the stored group of its ActivityType. */
const NOT_QC = "ActivityGroupType ne 'Quality Control - Lab Sample' and ActivityGroupType ne 'Quality Control - Field Measure'";
const rowInUnit = (r: HubResult, u: string) => r.ResultUnit === u || (r.ResultUnit === null && r.ResultDetectionQuantitationLimitUnit === u);

/** The oracle's km aggregates over `rows`, as the groups' fields, or the refusal. */
function oracleAggregate(rows: readonly HubResult[]): Row {
  const a = kmAggregate(rows, ucumConvert);
  if (a.kind === 'mixed_units') return { mixed: true };
  const { kind: _k, unit: _u, ...values } = a;
  return values;
}

function groupBy<K>(rows: readonly HubResult[], key: (r: HubResult) => K): Map<string, HubResult[]> {
  const out = new Map<string, HubResult[]>();
  for (const r of rows) {
    const k = JSON.stringify(key(r));
    (out.get(k) ?? out.set(k, []).get(k)!).push(r);
  }
  return out;
}

describe("$apply's km methods against the oracle", () => {
  const units = ['ug/L', 'mg/L', 'MPN/100mL', 'None'];

  it.each(units)('groupby((LocationId,CharacteristicName)) over the rows of one unit, %s, quality control included', async (unit) => {
    const got = await applyGroups(`filter(${inUnit(unit)})/groupby((LocationId,CharacteristicName),aggregate($count as N,${KM_ITEMS}))`);
    const want = groupBy(written.filter((r) => rowInUnit(r, unit)), (r) => [locationIds.get(where(r.DOI, r.MonitoringLocationID)), r.CharacteristicName]);
    expect(got.length).toBe(want.size);
    for (const g of got) {
      const rows = want.get(JSON.stringify([Number(g['LocationId']), g['CharacteristicName']]))!;
      expect(Number(g['N'])).toBe(rows.length);
      expectOracle(g, oracleAggregate(rows), `${unit} ${String(g['LocationId'])} ${String(g['CharacteristicName'])}`);
    }
  });

  it('over exactly a summary row\'s rows (its unit, quality control left out), the same statistics as the row', async () => {
    // Each characteristic of the hub has one fraction, so a location and a characteristic name one summary row.
    const got = await applyGroups(`filter(${inUnit('ug/L')} and ${NOT_QC})/groupby((LocationId,CharacteristicName),aggregate(${KM_ITEMS}))`);
    expect(got.length).toBeGreaterThan(20);
    const summaries = new Map([...served.values()].filter((r) => r['ResultUnit'] === 'ug/L').map((r) => [JSON.stringify([Number(r['LocationId']), r['CharacteristicName']]), r]));
    for (const g of got) {
      const s = summaries.get(JSON.stringify([Number(g['LocationId']), g['CharacteristicName']]))!;
      const what = `${String(g['LocationId'])} ${String(g['CharacteristicName'])}`;
      expect([g['km_method'], g['km_median_qualifier'], g['km_p10_qualifier'], g['km_p90_qualifier']], what).toEqual([s['Method'], s['MedianQualifier'], s['P10Qualifier'], s['P90Qualifier']]);
      for (const [a, b] of [['km_median', 'Median'], ['km_p10', 'P10'], ['km_p90', 'P90'], ['km_mean', 'Mean']] as const) {
        if (s[b] === null) expect(g[a], `${what} ${a}`).toBeNull();
        else expect(relative(Number(g[a]), Number(s[b])), `${what} ${a}`).toBeLessThanOrEqual(1e-12);
      }
    }
  });

  it('groupby ResultUnit groups by the column as stored: the null-unit group holds the non-detects without one', async () => {
    const got = await applyGroups(`filter(CharacteristicName eq 'Lead')/groupby((LocationId,ResultUnit),aggregate($count as N,${KM_ITEMS}))`);
    const want = groupBy(written.filter((r) => r.CharacteristicName === 'Lead'), (r) => [locationIds.get(where(r.DOI, r.MonitoringLocationID)), r.ResultUnit]);
    expect(got.length).toBe(want.size);
    expect(got.some((g) => g['ResultUnit'] === null && g['km_method'] === 'none')).toBe(true);
    for (const g of got) expectOracle(g, oracleAggregate(want.get(JSON.stringify([Number(g['LocationId']), g['ResultUnit']]))!), `Lead ${String(g['LocationId'])} ${String(g['ResultUnit'])}`);
  });

  it('over more than one usable unit in a group, 400 mixed_units naming the filter that selects one (the oracle refuses the same group)', async () => {
    const groups = groupBy(written.filter((r) => r.CharacteristicName === 'Zinc'), (r) => locationIds.get(where(r.DOI, r.MonitoringLocationID)));
    const first = [...groups.entries()].sort((a, b) => Number(a[0]) - Number(b[0])).find(([, rows]) => oracleAggregate(rows)['mixed']);
    expect(first).toBeDefined();
    const res = await fx.app.request(`/v1/odata/v4/Observations?$apply=${enc(`filter(CharacteristicName eq 'Zinc')/groupby((LocationId),aggregate(ResultValue with Tributary.km_median as M))`)}`);
    const body = (await res.json()) as { message: string; errors: { code: string }[] };
    expect(res.status).toBe(400);
    expect(body.errors[0]!.code).toBe('mixed_units');
    expect(body.message).toContain(`in the group LocationId ${first![0]} ('mg/L', 'ug/L'`);
    expect(body.message).toContain("ResultUnit eq 'mg/L' or (ResultUnit eq null and ResultDetectionQuantitationLimitUnit eq 'mg/L')");
  });

  it("the README's cases, one aggregate(…) without a groupby per case, to 1e-6 relative", async () => {
    for (const [i, { example }] of CASES.entries()) {
      const id = locationIds.get(where(CASES_DOI, `CASE-${i}`))!;
      const [g] = await applyGroups(`filter(LocationId eq ${id} and ${NOT_QC})/aggregate(${KM_ITEMS})`);
      const e = example.expected;
      expect(g!['km_method'], example.name).toBe(e.Method);
      for (const [field, want] of [['km_p10', e.P10], ['km_median', e.Median], ['km_p90', e.P90]] as const) {
        if (want === null) {
          expect([g![field], g![`${field}_qualifier`]], `${example.name} ${field}`).toEqual([null, null]);
          continue;
        }
        const r = parseReported(want);
        expect(g![`${field}_qualifier`], `${example.name} ${field}`).toBe(r.kind === 'left' ? '<' : r.kind === 'right' ? '>' : null);
        expect(relative(Number(g![field]), r.value), `${example.name} ${field}`).toBeLessThanOrEqual(1e-6);
      }
      if (e.Mean === null) expect(g!['km_mean'], example.name).toBeNull();
      else expect(relative(Number(g!['km_mean']), e.Mean), example.name).toBeLessThanOrEqual(1e-6);
    }
  });
});
