/**
 * Issue 52 item 1 proved end to end: datasets written in DataStream's upload format, published by the real ingest
 * CLI, read back from the published table and over HTTP.
 *
 * - A seeded hub (scripts/testing/censored-hub.ts: 0–95 % censored series, several limits, limits in another unit,
 *   non-detects without ResultUnit, `>` results, unusable rows, quality-control samples): every LocationSummaries
 *   row against the independent oracle of the statistics README (scripts/testing/km-oracle.ts) computed from the
 *   rows the generator wrote, never from the production SQL.
 * - The README's §8 edge cases and §9 worked examples (NADA, EnvStats, the EPA) as a dataset, some with their limits
 *   written in mg/L beside µg/L values: each row against the published figures, to 1e-6 relative.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeCaseDataset, writeCensoredHub, type CaseSpelling, type HubResult } from '../../../scripts/testing/censored-hub.js';
import { kmEdgeCases, kmWorkedExamples, parseReported, type KmExample } from '../../../scripts/testing/km-examples.js';
import { kmSummary, locationSummaryGroups } from '../../../scripts/testing/km-oracle.js';
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
  const hub = await writeCensoredHub(src, { seed: 52, datasets: 3, locations: 8 });
  written = [...hub.rows, ...(await writeCaseDataset(src, CASES_DOI, CASES))];
  const duckdbPath = join(dir, 'km.duckdb');
  await promisify(execFile)(process.execPath, [inject('ingestCli'), 'ingest'], { cwd: REPO_ROOT, env: { ...process.env, SRC: src, DUCKDB_PATH: duckdbPath } });
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

/** Every field the oracle gives, equal; a mean or a type-7 percentile (an interpolation) to 1e-12 relative. */
function expectOracle(got: Row, want: Row, what: string): void {
  for (const [field, value] of Object.entries(want)) {
    const have = typeof value === 'number' && got[field] !== null ? Number(got[field]) : got[field];
    const interpolated = field === 'Mean' || (want['Method'] === 'exact' && ['P10', 'Median', 'P90'].includes(field));
    if (interpolated && typeof value === 'number') expect(relative(have as number, value), `${what} ${field}`).toBeLessThanOrEqual(1e-12);
    else expect(have, `${what} ${field}`).toEqual(value);
  }
}

describe('LocationSummaries over a generated hub with non-detects, against the oracle', () => {
  it('publishes every row written', async () => {
    const [count] = (await fx.ref.runAndReadAll('SELECT count(*)::INTEGER AS n FROM observations')).getRowObjectsJson();
    expect(count!['n']).toBe(written.length);
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
