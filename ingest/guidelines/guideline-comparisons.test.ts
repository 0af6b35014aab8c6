import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../scripts/sample/test-support.js';
import { runIngest } from '../pipeline.js';
import type { Report } from '../report.js';
import { query, tempDir } from '../test-support.js';
import { expectedComparisons, expectedIndex, rekeyed, type Expected, type Input, type Inventory, type Obs } from './guideline-oracle.js';

/**
 * Proof of the comparisons and the water quality index on a generated hub: three Alberta locations (a river with
 * six lab days in 2022 — hardness from each step of its hierarchy, pH from the field and the lab, temperature in
 * °C and °F, DOC inside and outside the calibrated ranges, missing inputs, non-detects below and above the
 * guideline, a result above the quantification limit, results in µg/L, mg/L, ng/L and an unconvertible ppm —, a
 * lake with two days in 2023, a rain gauge). Every comparison and every index row is checked against an independent
 * implementation of the publishers' definitions (guideline-oracle.ts: docs/guidelines.md; ../shared/guidelines/README.md
 * §2–§5), from the inventory (guidelines.csv) and the published observations, not from the production SQL.
 */

const header = [
  'DatasetName', 'MonitoringLocationID', 'MonitoringLocationName', 'MonitoringLocationLatitude', 'MonitoringLocationLongitude',
  'MonitoringLocationHorizontalCoordinateReferenceSystem', 'MonitoringLocationType', 'ActivityType', 'ActivityMediaName', 'ActivityStartDate',
  'CharacteristicName', 'MethodSpeciation', 'ResultSampleFraction', 'ResultValue', 'ResultUnit', 'ResultDetectionCondition',
  'ResultDetectionQuantitationLimitMeasure', 'ResultDetectionQuantitationLimitUnit', 'ResultValueType', 'ResultStatusID', 'ResultAnalyticalMethodName', 'LaboratoryName', 'ResultDetectionQuantitationLimitType',
];

const locations = {
  river: ['AB-RIVER', 'North Saskatchewan River at Edmonton', '53.5461', '-113.4938', 'River/Stream', 'Surface Water'],
  lake: ['AB-LAKE', 'Sylvan Lake', '52.3100', '-114.0900', 'Lake/Pond', 'Surface Water'],
  rain: ['AB-RAIN', 'Calgary rain gauge', '51.0500', '-114.0700', 'Unspecified', 'Rainwater'],
} as const;

type R = [loc: keyof typeof locations, date: string, characteristic: string, fraction: string, value: string, unit: string, condition?: string, limit?: string, limitUnit?: string, speciation?: string, activity?: string];

const d = ['2022-05-03', '2022-05-17', '2022-06-07', '2022-06-21', '2022-07-05', '2022-07-19'] as const;
const rows: R[] = [
  // Inputs, day by day.
  ['river', d[0], 'Total hardness', '', '120', 'mg/L'], ['river', d[0], 'pH', '', '7.6', 'None'], ['river', d[0], 'Temperature, water', '', '12', 'deg C'], ['river', d[0], 'Organic carbon', 'Dissolved', '3', 'mg/L'],
  ['river', d[1], 'Calcium', 'Dissolved', '30', 'mg/L'], ['river', d[1], 'Magnesium', 'Dissolved', '10000', 'ug/L'], ['river', d[1], 'Calcium', 'Total', '35', 'mg/L'],
  ['river', d[1], 'pH', '', '7.2', 'None'], ['river', d[1], 'pH', '', '7.8', 'None'], ['river', d[1], 'Temperature, water', '', '59', 'deg F'], ['river', d[1], 'Organic carbon', 'Dissolved', '0.1', 'mg/L'],
  ['river', d[2], 'Hardness, Ca, Mg', '', '10', 'mg/L'], ['river', d[2], 'pH, lab', '', '5.9', 'None'], ['river', d[2], 'Organic carbon', 'Dissolved', '40000', 'ug/L'],
  ['river', d[3], 'pH', '', '8.5', 'None'], ['river', d[3], 'Temperature, water', '', '22', 'deg C'],
  ['river', d[4], 'Total hardness', '', '500', 'mg/L'], ['river', d[4], 'Total hardness', '', '300', 'mg/L'], ['river', d[4], 'pH', '', '9.5', 'None'], ['river', d[4], 'Temperature, water', '', '25', 'deg C'], ['river', d[4], 'Organic carbon', 'Dissolved', '5', 'mg/L'],
  ['river', d[5], 'Calcium', 'Total', '20', 'mg/L'], ['river', d[5], 'Magnesium', 'Total', '5', 'mg/L'], ['river', d[5], 'pH', '', '7.0', 'None'], ['river', d[5], 'Temperature, water', '', '4', 'deg C'], ['river', d[5], 'Organic carbon', 'Dissolved', '1', 'mg/L'],
  // Zinc, dissolved.
  ['river', d[0], 'Zinc', 'Dissolved', '25', 'ug/L'], ['river', d[1], 'Zinc', 'Dissolved', '0.12', 'mg/L'], ['river', d[2], 'Zinc', 'Dissolved', '', '', 'Below Detection/Quantification Limit', '5', 'ug/L'],
  ['river', d[3], 'Zinc', 'Dissolved', '10', 'ug/L'], ['river', d[4], 'Zinc', 'Dissolved', '300000', 'ng/L'], ['river', d[5], 'Zinc', 'Dissolved', '', '', 'Detected Not Quantified'],
  // Cadmium, total.
  ['river', d[0], 'Cadmium', 'Total', '0.00012', 'mg/L'], ['river', d[1], 'Cadmium', 'Total', '', '', 'Below Detection/Quantification Limit', '0.5', 'ug/L'], ['river', d[2], 'Cadmium', 'Total', '0.05', 'ug/L'],
  ['river', d[3], 'Cadmium', 'Total', '0.1', 'ug/L'], ['river', d[4], 'Cadmium', 'Total', '2', 'ug/L'], ['river', d[5], 'Cadmium', 'Total', '50', 'ng/L'],
  // Copper, total.
  ['river', d[0], 'Copper', 'Total', '2500', 'ng/L'], ['river', d[1], 'Copper', 'Total', '', '', 'Below Detection/Quantification Limit', '1', 'ug/L'], ['river', d[2], 'Copper', 'Total', '3', 'ug/L'],
  ['river', d[3], 'Copper', 'Total', '1.5', 'ug/L'], ['river', d[4], 'Copper', 'Total', '10', 'ug/L'], ['river', d[5], 'Copper', 'Total', '', '', 'Above Detection/Quantification Limit', '50', 'ug/L'],
  // Lead, total.
  ['river', d[0], 'Lead', 'Total', '1.5', 'ug/L'], ['river', d[1], 'Lead', 'Total', '', '', 'Above Detection/Quantification Limit', '100', 'ug/L'], ['river', d[2], 'Lead', 'Total', '0.5', 'ug/L'],
  ['river', d[3], 'Lead', 'Total', '1', 'ug/L'], ['river', d[4], 'Lead', 'Total', '8', 'ug/L'], ['river', d[5], 'Lead', 'Total', '', '', 'Not Detected'],
  // Nickel, total.
  ['river', d[0], 'Nickel', 'Total', '', '', 'Below Detection/Quantification Limit', '1', 'ug/L'], ['river', d[1], 'Nickel', 'Total', '30', 'ug/L'], ['river', d[2], 'Nickel', 'Total', '20', 'ug/L'],
  ['river', d[3], 'Nickel', 'Total', '10', 'ug/L'], ['river', d[4], 'Nickel', 'Total', '200', 'ug/L'], ['river', d[5], 'Nickel', 'Total', '26', 'ppm'],
  // Ammonia (total, as N).
  ...d.map((day, i): R => ['river', day, 'Ammonia and ammonium', 'Unfiltered', String([0.5, 0.02, 0.1, 1.2, 3, 0.05][i]), 'mg/L', undefined, undefined, undefined, 'as N']),
  // Ammonia, which does not say whether it is total or un-ionized ammonia.
  ['river', d[0], 'Ammonia', 'Unfiltered', '0.5', 'mg/L', undefined, undefined, undefined, 'as N'], ['river', d[3], 'Ammonia', 'Unfiltered', '0.01', 'mg/L', undefined, undefined, undefined, 'as N'],
  // Dissolved oxygen (minima).
  ['river', d[0], 'Dissolved oxygen (DO)', 'Dissolved', '7.0', 'mg/L'], ['river', d[1], 'Dissolved oxygen (DO)', 'Dissolved', '5.0', 'mg/L'], ['river', d[2], 'Dissolved oxygen (DO)', 'Dissolved', '9.8', 'mg/L'],
  ['river', d[3], 'Dissolved oxygen (DO)', 'Dissolved', '6.2', 'mg/L'], ['river', d[4], 'Dissolved oxygen (DO)', 'Dissolved', '12', 'mg/L'], ['river', d[5], 'Dissolved oxygen (DO)', 'Dissolved', '', '', 'Below Detection/Quantification Limit', '2', 'mg/L'],
  // The lake: two days of 2023, too few tests for an index.
  ['lake', '2023-08-01', 'Total hardness', '', '80', 'mg/L'], ['lake', '2023-08-01', 'pH', '', '8.0', 'None'], ['lake', '2023-08-01', 'Zinc', 'Dissolved', '15', 'ug/L'],
  ['lake', '2023-08-15', 'pH', '', '8.2', 'None'], ['lake', '2023-08-15', 'Cadmium', 'Total', '0.3', 'ug/L'],
  // Quality-control results are not water: a field blank's zinc above every guideline, a trip blank's cadmium, a
  // replicate's pH that would change the day's hardness-free zinc formula's pH were it an input.
  ['river', d[0], 'Zinc', 'Dissolved', '900', 'ug/L', undefined, undefined, undefined, undefined, 'Quality Control Sample-Field Blank'],
  ['river', d[2], 'Cadmium', 'Total', '9', 'ug/L', undefined, undefined, undefined, undefined, 'Quality Control Sample-Trip Blank'],
  ['river', d[0], 'pH', '', '4.0', 'None', undefined, undefined, undefined, undefined, 'Quality Control Field Replicate Msr/Obs'],
  ['river', d[1], 'Total hardness', '', '999', 'mg/L', undefined, undefined, undefined, undefined, 'Sample-Positive Control'],
  // Rain has no aquatic-life guideline.
  ['rain', '2022-05-03', 'Zinc', 'Dissolved', '20', 'ug/L'],
];

function csvLine(r: R): string {
  const [loc, date, characteristic, fraction, value, unit, condition = '', limit = '', limitUnit = '', speciation = '', given] = r;
  const [id, name, lat, lon, type, media] = locations[loc];
  const activity = given ?? (['pH', 'Temperature, water'].includes(characteristic) ? 'Field Msr/Obs' : 'Sample-Routine');
  const lab = !/Msr\/Obs/.test(activity);
  return ['Guideline proof', id, name, lat, lon, 'WGS84', type, activity, media, date, characteristic, speciation, fraction, value, unit, condition, limit, limitUnit, 'Actual', 'Validated', ...(lab ? ['Undefined', 'Test Lab'] : ['', '']), limit === '' ? '' : 'Method Detection Level']
    .map((f) => (/[",\n]/.test(f) ? `"${f.replaceAll('"', '""')}"` : f))
    .join(',');
}

// ---- the test ----

let dbPath: string;
let report: Report;
let inventory: Inventory[];

beforeAll(async () => {
  const dir = await tempDir('tributary-guidelines-');
  const ds = join(dir, 'src', 'guidelines-proof');
  await mkdir(ds, { recursive: true });
  await writeFile(join(ds, 'metadata.json'), JSON.stringify({ DOI: '10.25976/glpr-oo01', DatasetName: 'Guideline proof', Version: '1.0.0', Licence: 'ODC-By', Keywords: ['test'], CreateTimestamp: '2024-01-01T00:00:00Z', TopicCategoryCode: ['inlandWaters'] }));
  await writeFile(join(ds, 'data.csv'), `${header.join(',')}\n${rows.map(csvLine).join('\n')}\n`);
  dbPath = join(dir, 'hub.duckdb');
  report = await runIngest({ src: join(dir, 'src'), duckdbPath: dbPath });
  const [head, ...body] = parseCsv(await readFile(new URL('./guidelines.csv', import.meta.url), 'utf8'));
  const at = (name: string) => head!.findIndex((h) => h.trim() === name);
  const t = (s: string | undefined) => (s ?? '').trim();
  inventory = body.map((r, i) => ({
    id: i + 1, characteristic: rekeyed.get(i + 1) ?? (t(r[at('Characteristic Name')]) || t(r[at('Parameter')])), fractions: t(r[at('Sample Fraction')]).split(',').map(t).filter(Boolean),
    speciation: t(r[at('Method Speciation')]), jurisdictions: t(r[at('Region')]).split(',').map(t), media: t(r[at('Media Name')]), ecosystem: t(r[at('Ecosystem')]),
    publisher: t(r[at('Publisher')]) === 'USEPA' ? 'US EPA' : t(r[at('Publisher')]), level: t(r[at('Protection Level')]), value: t(r[at('Value')]), unit: t(r[at('Unit')]),
  }));
}, 240_000);

describe('guideline comparisons of a generated hub', () => {
  it('publishes every row, and reports the quality-control results it set aside', () => {
    expect(report.published, JSON.stringify(report).slice(0, 3000)).toBe(true);
    expect(report.datasets[0]!.rowsRejected, JSON.stringify(report.datasets[0]!.rejects)).toBe(0);
    expect(report.guidelines?.qualityControlSetAside).toBe(rows.filter((r) => r[10] !== undefined).length);
  });

  it('compares no quality-control result, and takes none as an input, but keeps them as observations', async () => {
    const qc = await query(dbPath, `SELECT count(*) AS n, count(c."Id") AS compared FROM observations o LEFT JOIN guideline_comparisons c ON c."ObservationId" = o."Id" WHERE o."ActivityType" LIKE 'Quality Control%' OR o."ActivityType" = 'Sample-Positive Control'`);
    expect(qc.map((r) => [Number(r.n), Number(r.compared)])).toEqual([[4, 0]]);
    const inputs = await query(dbPath, `SELECT "Inputs" FROM guideline_comparisons WHERE "Inputs" IS NOT NULL`);
    const ids = new Set((await query(dbPath, `SELECT "Id" FROM observations WHERE "ActivityGroupType" LIKE 'Quality Control%'`)).map((r) => Number(r.Id)));
    expect(ids.size).toBe(4);
    for (const r of inputs) for (const i of JSON.parse(String(r.Inputs)) as { observationIds: number[] }[]) for (const id of i.observationIds) expect(ids.has(Number(id))).toBe(false);
  });

  it('gives every comparison and only those the independent implementation gives, with its bounds, verdict, reason and inputs', async () => {
    const obs = (await query(dbPath, 'SELECT o.*, l."MonitoringLocationType" AS "MonitoringLocationType" FROM observations o JOIN locations l ON l."Id" = o."LocationId" ORDER BY o."Id"')) as unknown as Obs[];
    const expected = expectedComparisons(inventory, obs.map((o) => ({ ...o, Id: Number(o.Id), LocationId: Number(o.LocationId), ActivityStartYear: Number(o.ActivityStartYear) })));
    const got = await query(dbPath, 'SELECT * FROM guideline_comparisons ORDER BY "Id"');
    const key = (o: number, g: number) => `${o}|${g}`;
    expect(got.map((r) => key(Number(r.ObservationId), Number(r.GuidelineId))).sort()).toEqual(expected.map((e) => key(e.ObservationId, e.GuidelineId)).sort());
    const byKey = new Map(got.map((r) => [key(Number(r.ObservationId), Number(r.GuidelineId)), r]));
    const close = (a: unknown, b: number | null, what: string) => {
      if (b === null) expect(a, what).toBeNull();
      else expect(Number(a) / b - 1, `${what}: ${String(a)} vs ${b}`).toBeCloseTo(0, 9);
    };
    for (const e of expected) {
      const r = byKey.get(key(e.ObservationId, e.GuidelineId))!;
      const what = `observation ${e.ObservationId} × guideline ${e.GuidelineId}`;
      expect(Number(r.Id), what).toBe(e.ObservationId * 4096 + e.GuidelineId);
      expect(r.Verdict, `${what}: ${String(r.Reason)}`).toBe(e.verdict);
      close(r.GuidelineLower, e.L, `${what} lower`);
      close(r.GuidelineUpper, e.U, `${what} upper`);
      if (e.reason) expect(r.Reason, what).toMatch(e.reason);
      else expect(r.Reason, what).toBeNull();
      if (e.inputs) {
        const inputs = JSON.parse(String(r.Inputs ?? '[]')) as { name: Input; value: number; unit: string; observationIds: number[] }[];
        const want = e.formula.filter((n) => e.inputs!.values[n] !== undefined);
        expect(inputs.map((i) => i.name), what).toEqual(want);
        for (const i of inputs) {
          close(i.value, e.inputs.values[i.name]!, `${what} input ${i.name}`);
          expect(i.observationIds.map(Number), `${what} input ${i.name}`).toEqual(e.inputs.ids[i.name]);
        }
      } else expect(r.Inputs, what).toBeNull();
    }
    expect(got.length).toBeGreaterThan(100);
    // The generated hub exercises each case.
    const verdicts = new Set(expected.map((e) => e.verdict));
    expect([...verdicts].sort()).toEqual(['exceeds', 'indeterminate', 'meets']);
    expect(got.some((r) => /calibrated range/.test(String(r.Reason)))).toBe(true);
    expect(got.some((r) => /does not convert/.test(String(r.Reason)))).toBe(true);
    expect(got.some((r) => /no hardness measured/.test(String(r.Reason)))).toBe(true);
    // One governing comparison per result, publisher and term: the most protective with a verdict, else of all.
    const term = (level: string) => (level.startsWith('Acute') ? 'short-term' : level.startsWith('Chronic') ? 'long-term' : level);
    const protective = (a: Expected, b: Expected) => (a.U ?? Infinity) - (b.U ?? Infinity) || (b.L ?? -Infinity) - (a.L ?? -Infinity) || a.GuidelineId - b.GuidelineId;
    for (const group of Map.groupBy(expected, (e) => `${e.ObservationId}|${e.Publisher}|${term(e.ProtectionLevel)}`).values()) {
      const determinate = group.filter((e) => e.verdict !== 'indeterminate');
      const governing = [...(determinate.length > 0 ? determinate : group)].sort(protective)[0]!;
      for (const e of group) {
        const r = byKey.get(key(e.ObservationId, e.GuidelineId))!;
        expect(r.Governing, `observation ${e.ObservationId} × guideline ${e.GuidelineId} governs`).toBe(e === governing);
        expect(r.Term).toBe(term(e.ProtectionLevel));
        expect(r.Alternatives === null, `observation ${e.ObservationId} × guideline ${e.GuidelineId} alternatives`).toBe(group.length === 1);
      }
    }
    expect(got.some((r) => r.Governing === false)).toBe(true);
    expect(got.filter((r) => r.CharacteristicName === 'Ammonia').map((r) => Number(r.GuidelineId)).sort((a, b) => a - b)).toEqual([143, 143, 1337, 1337]);
  });

  it('writes the water quality index of each location-year and publisher as the independent implementation computes it', async () => {
    const obs = (await query(dbPath, 'SELECT o.*, l."MonitoringLocationType" AS "MonitoringLocationType" FROM observations o JOIN locations l ON l."Id" = o."LocationId" ORDER BY o."Id"')) as unknown as Obs[];
    const expected = expectedIndex(expectedComparisons(inventory, obs.map((o) => ({ ...o, Id: Number(o.Id), LocationId: Number(o.LocationId), ActivityStartYear: Number(o.ActivityStartYear) }))));
    const got = await query(dbPath, 'SELECT * FROM water_quality_index ORDER BY "Id"');
    const key = (r: { readonly [k: string]: unknown }) => `${Number(r.LocationId)}|${Number(r.Year)}|${String(r.Publisher)}`;
    expect(got.map(key).sort()).toEqual(expected.map(key).sort());
    const ccme = expected.find((e) => e.Publisher === 'CCME' && e.Year === 2022)!;
    expect(ccme.WQI, 'the river has an index against CCME').not.toBeNull();
    expect(expected.some((e) => e.WQI === null)).toBe(true);
    for (const e of expected) {
      const r = got.find((g) => key(g) === key(e))!;
      for (const f of ['Variables', 'Tests', 'FailedVariables', 'FailedTests'] as const) expect(Number(r[f]), `${key(e)} ${f}`).toBe(e[f]);
      for (const f of ['F1', 'F2', 'F3', 'WQI'] as const) {
        if (e[f] === null) expect(r[f]).toBeNull();
        else expect(Number(r[f]), `${key(e)} ${f}`).toBeCloseTo(e[f], 9);
      }
      expect(r.Category ?? null).toBe(e.Category);
      expect(r.Reason ?? null, key(e)).toEqual(e.WQI === null ? expect.stringMatching(/variable\(s\) with at least 4 tests in \d{4} .*the index needs 4/) : null);
    }
    // Ids in (LocationId, Year, Publisher) order.
    const sorted = [...got].sort((a, b) => Number(a.LocationId) - Number(b.LocationId) || Number(a.Year) - Number(b.Year) || String(a.Publisher).localeCompare(String(b.Publisher)));
    expect(sorted.map((r) => r.Id)).toEqual(got.map((r) => r.Id));
  });
});
