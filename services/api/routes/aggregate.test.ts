/**
 * Issue 48's aggregates, proved: every `$apply` aggregate over HTTP against an independent computation written here
 * in plain code over the rows of the published Parquet dataset files (read by DuckDB as a file reader only: no SQL
 * aggregate computes an expected value), whichever table answers (statistics per unit or a scan). Mixed units are
 * refused with the units named; a generic OData client (odatajs) reads the methods from `$metadata` and aggregates.
 */
import { join } from 'node:path';
import odatajs from 'ts-odatajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { datasetFileName, plainFilesDir } from '../../../schemas/publication-files.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';
import { listen, type TestServer } from '../testing/test-server.js';

interface Row {
  readonly DOI: string;
  readonly MonitoringLocationID: string;
  readonly CharacteristicName: string;
  readonly ActivityMediaName: string;
  readonly MonitoringLocationType: string;
  readonly ResultUnit: string | null;
  readonly ResultValue: number | null;
  readonly ActivityStartDate: string;
  readonly ResultDetectionQuantitationLimitMeasure: number | null;
  readonly ResultDetectionQuantitationLimitUnit: string | null;
  readonly ActivityDepthHeightMeasure: number | null;
  readonly ActivityDepthHeightUnit: string | null;
}
type Measure = 'ResultValue' | 'ResultDetectionQuantitationLimitMeasure' | 'ActivityDepthHeightMeasure' | 'ActivityStartDate';
type Group = Record<string, unknown>;

const BASE = '/v1/odata/v4';
let fx: FixtureApp;
let server: TestServer;
let rows: Row[];

beforeAll(async () => {
  const path = inject('apiFixtureDb');
  fx = await openFixtureApp(path);
  server = await listen(fx.app);
  const files = (await fx.ref.runAndReadAll(`SELECT "Sha256" FROM dataset_files WHERE "Format" = 'parquet' ORDER BY "DOI"`)).getRowObjectsJson();
  const list = files.map((f) => `'${join(plainFilesDir(path), datasetFileName(String(f['Sha256']), 'parquet'))}'`).join(', ');
  const columns = ['DOI', 'MonitoringLocationID', 'CharacteristicName', 'ActivityMediaName', 'MonitoringLocationType', 'ResultUnit', 'ResultValue', 'ActivityStartDate', 'ResultDetectionQuantitationLimitMeasure', 'ResultDetectionQuantitationLimitUnit', 'ActivityDepthHeightMeasure', 'ActivityDepthHeightUnit'];
  // The files' rows as they are: a reader, no aggregate.
  const read = await fx.ref.runAndReadAll(`SELECT ${columns.map((c) => c === 'ActivityStartDate' ? `"${c}"::VARCHAR AS "${c}"` : `"${c}"`).join(', ')} FROM read_parquet([${list}])`);
  rows = read.getRowObjectsJson() as unknown as Row[];
});
afterAll(async () => {
  await server.close();
  await fx.close();
});

// ---- the published definitions, in plain code ----

const sum = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) : null);
const year = (r: Row) => Number(r.ActivityStartDate.slice(0, 4));
/** Hyndman & Fan type 7: h = (n − 1)·p, x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]) over the sorted values. */
function percentile(xs: number[], p: number): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  return sorted[lo]! + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)] ?? sorted[lo]!) - sorted[lo]!);
}

const METHODS: Record<string, (values: (number | string | null)[], all: number) => number | string | null> = {
  sum: (v) => sum(v.filter((x): x is number => x !== null) as number[]),
  min: (v) => present(v).reduce<number | string | null>((a, b) => (a === null || b < a ? b : a), null),
  max: (v) => present(v).reduce<number | string | null>((a, b) => (a === null || b > a ? b : a), null),
  average: (v) => {
    const xs = present(v) as number[];
    return xs.length ? sum(xs)! / xs.length : null;
  },
  countdistinct: (v) => new Set(present(v)).size,
  'Tributary.median': (v) => percentile(present(v) as number[], 0.5),
  'Tributary.p10': (v) => percentile(present(v) as number[], 0.1),
  'Tributary.p90': (v) => percentile(present(v) as number[], 0.9),
  'Tributary.countnull': (v) => v.filter((x) => x === null).length,
};
const present = <T,>(v: (T | null)[]) => v.filter((x): x is T => x !== null);

/** The expected groups: rows filtered, grouped by `keys`, each aggregate computed from the definition above. */
function expected(filter: (r: Row) => boolean, keys: readonly ((r: Row) => unknown)[], names: readonly string[], aggs: readonly (readonly [alias: string, measure: Measure | '$count', method?: string])[]): Group[] {
  const groups = Map.groupBy(rows.filter(filter), (r) => JSON.stringify(keys.map((f) => f(r))));
  return [...groups.entries()]
    .map(([k, members]) => {
      const g: Group = Object.fromEntries((JSON.parse(k) as unknown[]).map((v, i) => [names[i]!, v]));
      for (const [alias, measure, method] of aggs) {
        g[alias] = measure === '$count' ? members.length : METHODS[method!]!(members.map((r) => r[measure]), members.length);
      }
      return g;
    })
    .sort((a, b) => compareKeys(names.map((n) => a[n]), names.map((n) => b[n])));
}

/** DuckDB's order: ascending, nulls last. */
function compareKeys(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    return (x as string | number) < (y as string | number) ? -1 : 1;
  }
  return 0;
}

/** Every group of an $apply, following @odata.nextLink. */
async function allGroups(resource: string, params: Record<string, string>): Promise<Group[]> {
  const out: Group[] = [];
  let next: string | undefined = `${BASE}/${resource}?${new URLSearchParams(params).toString()}`;
  while (next) {
    const res = await fx.app.request(next);
    const body = (await res.json()) as { value: Group[]; '@odata.nextLink'?: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    out.push(...body.value);
    next = body['@odata.nextLink']?.replace(/^https?:\/\/[^/]+/, '');
  }
  return out;
}

/** Numbers equal to 1e-9 relative (a sum of the statistics' sums adds in another order; counts are thus exact); the rest exactly. */
function expectClose(actual: Group[], wanted: Group[]): void {
  expect(actual.map((g) => Object.keys(g))).toEqual(wanted.map((g) => Object.keys(g)));
  actual.forEach((g, i) => {
    for (const [k, v] of Object.entries(wanted[i]!)) {
      if (typeof v === 'number') {
        expect(typeof g[k], `${k} of ${JSON.stringify(wanted[i])}`).toBe('number');
        expect(Math.abs((g[k] as number) - v), `${k} of ${JSON.stringify(wanted[i])}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v)));
      } else {
        expect(g[k], `${k} of ${JSON.stringify(wanted[i])}`).toEqual(v);
      }
    }
  });
}

const all = () => true;
const by = (name: keyof Row) => (r: Row) => r[name];

describe('every aggregate against the definition, computed from the published Parquet files', () => {
  it('has rows with values, non-detects and several units to test on', () => {
    expect(rows.length).toBeGreaterThan(1000);
    expect(rows.some((r) => r.ResultValue === null)).toBe(true);
    expect(new Set(rows.map((r) => r.ResultUnit)).size).toBeGreaterThan(3);
  });

  it('sum, min, max, average, non-detects and $count of ResultValue per characteristic and unit (the statistics per unit)', async () => {
    const aggs = [['N', '$count'], ['Total', 'ResultValue', 'sum'], ['Lo', 'ResultValue', 'min'], ['Hi', 'ResultValue', 'max'], ['Mean', 'ResultValue', 'average'], ['NonDetects', 'ResultValue', 'Tributary.countnull']] as const;
    const got = await allGroups('Observations', {
      $apply: 'groupby((CharacteristicName,ResultUnit),aggregate($count as N,ResultValue with sum as Total,ResultValue with min as Lo,ResultValue with max as Hi,ResultValue with average as Mean,ResultValue with Tributary.countnull as NonDetects))',
      $top: '7',
    });
    expectClose(got, expected(all, [by('CharacteristicName'), by('ResultUnit')], ['CharacteristicName', 'ResultUnit'], aggs));
  });

  it('filtered by year and grouped by dataset and unit; and over one characteristic with no group (one row)', async () => {
    const aggs = [['Total', 'ResultValue', 'sum'], ['Mean', 'ResultValue', 'average'], ['N', '$count']] as const;
    const got = await allGroups('Records', { $apply: 'filter(ActivityStartYear ge 2015)/groupby((DOI,ResultUnit),aggregate(ResultValue with sum as Total,ResultValue with average as Mean,$count as N))' });
    expectClose(got, expected((r) => year(r) >= 2015, [by('DOI'), by('ResultUnit')], ['DOI', 'ResultUnit'], aggs));
    const one = await allGroups('Observations', { $apply: 'aggregate(ResultValue with min as Lo,ResultValue with max as Hi,ResultValue with average as Mean,$count as N)', $filter: "CharacteristicName eq 'pH'" });
    expectClose(one, expected((r) => r.CharacteristicName === 'pH', [], [], [['Lo', 'ResultValue', 'min'], ['Hi', 'ResultValue', 'max'], ['Mean', 'ResultValue', 'average'], ['N', '$count']]));
  });

  it('median, 10th and 90th percentiles, distinct values and first and last dates per characteristic (a scan)', async () => {
    // Four holistic aggregates in one request, the most it may hold (APPLY_LIMITS); the days sampled in a second.
    const aggs = [
      ['Median', 'ResultValue', 'Tributary.median'], ['P10', 'ResultValue', 'Tributary.p10'], ['P90', 'ResultValue', 'Tributary.p90'],
      ['Distinct', 'ResultValue', 'countdistinct'], ['First', 'ActivityStartDate', 'min'], ['Last', 'ActivityStartDate', 'max'],
    ] as const;
    const got = await allGroups('Observations', {
      $apply: 'groupby((CharacteristicName),aggregate(ResultValue with Tributary.median as Median,ResultValue with Tributary.p10 as P10,ResultValue with Tributary.p90 as P90,ResultValue with countdistinct as Distinct,ActivityStartDate with min as First,ActivityStartDate with max as Last))',
    });
    expectClose(got, expected(all, [by('CharacteristicName')], ['CharacteristicName'], aggs));
    const days = await allGroups('Observations', { $apply: 'groupby((CharacteristicName),aggregate(ActivityStartDate with countdistinct as Days))' });
    expectClose(days, expected(all, [by('CharacteristicName')], ['CharacteristicName'], [['Days', 'ActivityStartDate', 'countdistinct']]));
  });

  it('the detection limits and depths, each with its own unit grouped, and the medium (a scan with a row-level filter)', async () => {
    const limits = await allGroups('Observations', {
      $apply: 'groupby((ResultDetectionQuantitationLimitUnit),aggregate(ResultDetectionQuantitationLimitMeasure with min as Lo,ResultDetectionQuantitationLimitMeasure with max as Hi,ResultDetectionQuantitationLimitMeasure with Tributary.median as Median,ResultDetectionQuantitationLimitMeasure with Tributary.countnull as Without))',
    });
    const limit = 'ResultDetectionQuantitationLimitMeasure';
    expectClose(limits, expected(all, [by('ResultDetectionQuantitationLimitUnit')], ['ResultDetectionQuantitationLimitUnit'], [['Lo', limit, 'min'], ['Hi', limit, 'max'], ['Median', limit, 'Tributary.median'], ['Without', limit, 'Tributary.countnull']]));
    const depths = await allGroups('Records', {
      $apply: 'filter(ResultValue gt 1)/groupby((ActivityMediaName,ActivityDepthHeightUnit),aggregate(ActivityDepthHeightMeasure with sum as Total,ActivityDepthHeightMeasure with average as Mean,ActivityDepthHeightMeasure with Tributary.p90 as P90))',
    });
    const depth = 'ActivityDepthHeightMeasure';
    expectClose(depths, expected((r) => r.ResultValue !== null && r.ResultValue > 1, [by('ActivityMediaName'), by('ActivityDepthHeightUnit')], ['ActivityMediaName', 'ActivityDepthHeightUnit'], [['Total', depth, 'sum'], ['Mean', depth, 'average'], ['P90', depth, 'Tributary.p90']]));
  });

  it('by LocationId (the statistics per unit joined to nothing): locations known by their DOI and ID from /Locations', async () => {
    const located = await allGroups('Locations', { $select: 'Id,ID,DOI', $top: '10000' });
    const idOf = new Map(located.map((l) => [`${String(l['DOI'])} ${String(l['ID'])}`, l['Id']]));
    const location = (r: Row) => idOf.get(`${r.DOI} ${r.MonitoringLocationID}`);
    const got = await allGroups('Observations', {
      $apply: "groupby((LocationId),aggregate(ResultValue with max as Hi,ResultValue with average as Mean,$count as N))",
      $filter: "CharacteristicName eq 'Temperature, water'",
      $top: '50',
    });
    expect(got.length).toBeGreaterThan(1);
    expectClose(got, expected((r) => r.CharacteristicName === 'Temperature, water', [location], ['LocationId'], [['Hi', 'ResultValue', 'max'], ['Mean', 'ResultValue', 'average'], ['N', '$count']]));
  });

  it('ResultUnit filters the coarser resources too: the locations and datasets with a row in that unit', async () => {
    const count = async (resource: string) => {
      const res = await fx.app.request(`${BASE}/${resource}?${new URLSearchParams({ $filter: "ResultUnit eq 'MPN/100mL'", $count: 'true' })}`);
      return ((await res.json()) as { value: number }).value;
    };
    const inUnit = rows.filter((r) => r.ResultUnit === 'MPN/100mL');
    expect(inUnit.length).toBeGreaterThan(0);
    expect(await count('Locations')).toBe(new Set(inUnit.map((r) => `${r.DOI} ${r.MonitoringLocationID}`)).size);
    expect(await count('Metadata')).toBe(new Set(inUnit.map((r) => r.DOI)).size);
    expect(await count('Records')).toBe(inUnit.length);
  });

  it('groupby without aggregate: the distinct groups, nothing else', async () => {
    const got = await allGroups('Observations', { $apply: 'groupby((MonitoringLocationType,ActivityMediaName,ResultUnit))', $top: '5' });
    expect(got).toEqual(expected(all, [by('MonitoringLocationType'), by('ActivityMediaName'), by('ResultUnit')], ['MonitoringLocationType', 'ActivityMediaName', 'ResultUnit'], []));
  });

  it('non-detects are counted apart, by Tributary.countnull or by $count under a filter, and are in no value aggregate', async () => {
    const [byMethod] = await allGroups('Observations', { $apply: "filter(CharacteristicName eq 'Total Phosphorus, mixed forms')/aggregate(ResultValue with Tributary.countnull as NonDetects,$count as N,ResultValue with min as Lo)" });
    const [byFilter] = await allGroups('Observations', { $apply: "filter(CharacteristicName eq 'Total Phosphorus, mixed forms' and ResultValue eq null)/aggregate($count as NonDetects)" });
    const tp = rows.filter((r) => r.CharacteristicName === 'Total Phosphorus, mixed forms');
    const nonDetects = tp.filter((r) => r.ResultValue === null).length;
    expect(nonDetects).toBeGreaterThan(0);
    expect(byMethod).toEqual({ NonDetects: nonDetects, N: tp.length, Lo: Math.min(...tp.flatMap((r) => (r.ResultValue === null ? [] : [r.ResultValue]))) });
    expect(byFilter).toEqual({ NonDetects: nonDetects });
  });
});

describe('values in different units are never aggregated together', () => {
  it.each([
    ['aggregate(ResultValue with sum as Total)', undefined],
    ['groupby((ActivityMediaName),aggregate(ResultValue with average as Mean))', 'ActivityMediaName'],
    ['groupby((DOI),aggregate(ResultValue with Tributary.median as Median))', 'DOI'],
  ])('%s → 400 mixed_units naming the units found', async (apply, group) => {
    const res = await fx.app.request(`${BASE}/Observations?${new URLSearchParams({ $apply: apply })}`);
    const body = (await res.json()) as { message: string; errors: { code: string; source?: { parameter?: string } }[] };
    expect(res.status).toBe(400);
    expect(body.errors[0]).toMatchObject({ code: 'mixed_units', source: { parameter: '$apply' } });
    // The units of the first group (in sort order) with values in several, computed here.
    const first = group ? [...new Set(rows.map((r) => r[group as keyof Row]))].sort().find((g) => units(rows.filter((r) => r[group as keyof Row] === g)).length > 1) : undefined;
    const found = units(group ? rows.filter((r) => r[group as keyof Row] === first) : rows);
    expect(body.message).toContain(`ResultValue is in more than one ResultUnit${group ? ` in the group ${group} ${JSON.stringify(first)}` : ''} (${found.map((u) => `'${u}'`).join(', ')})`);
    expect(body.message).toContain('Add ResultUnit to groupby');
  });

  it('names a group of whole numbers as such (regression: a bigint LocationId or year in the message was a 500)', async () => {
    for (const field of ['LocationId', 'ActivityStartYear']) {
      const res = await fx.app.request(`${BASE}/Observations?${new URLSearchParams({ $apply: `groupby((${field}),aggregate(ResultValue with Tributary.p90 as P90))` })}`);
      const body = (await res.json()) as { message: string; errors: { code: string }[] };
      expect(res.status).toBe(400);
      expect(body.errors[0]!.code).toBe('mixed_units');
      expect(body.message).toMatch(new RegExp(`in the group ${field} \\d+ \\(`));
    }
  });

  it('is answered once ResultUnit is grouped, or filtered to one unit', async () => {
    expect((await fx.app.request(`${BASE}/Observations?${new URLSearchParams({ $apply: 'groupby((ResultUnit),aggregate(ResultValue with sum as Total))' })}`)).status).toBe(200);
    expect((await fx.app.request(`${BASE}/Observations?${new URLSearchParams({ $apply: 'aggregate(ResultValue with sum as Total)', $filter: "ResultUnit eq 'mg/L'" })}`)).status).toBe(200);
  });
});

function units(of: Row[]): string[] {
  return [...new Set(of.filter((r) => r.ResultValue !== null).map((r) => r.ResultUnit ?? ''))].sort();
}

describe('a generic OData client (Apache Olingo odatajs)', () => {
  const read = (url: string, handler?: unknown) =>
    new Promise<any>((resolve, reject) => // eslint-disable-line @typescript-eslint/no-explicit-any
      odatajs.oData.read({ requestUri: url }, resolve, reject, handler as never));

  it('finds the custom aggregation methods in $metadata and aggregates with one of them', async () => {
    const metadata = await read(`${server.origin}${BASE}/$metadata`, odatajs.oData.metadataHandler);
    const set = metadata.dataServices.schema[0].entityContainer.entitySet.find((s: { name: string }) => s.name === 'Observations');
    const applySupported = set.annotation.find((a: { term: string }) => a.term === 'Aggregation.ApplySupported');
    const methods = applySupported.record.propertyValue.find((v: { property: string }) => v.property === 'CustomAggregationMethods').collection.string.map((s: { text: string }) => s.text);
    expect(methods).toContain('Tributary.p90');
    const apply = `groupby((CharacteristicName,ResultUnit),aggregate(ResultValue with ${methods.find((m: string) => m.endsWith('p90'))} as P90,ResultValue with average as Mean))`;
    const page = await read(`${server.origin}${BASE}/Observations?$apply=${encodeURIComponent(apply)}&$filter=${encodeURIComponent("CharacteristicName eq 'pH'")}`);
      expect(page['@odata.context']).toMatch(/\$metadata#Observations\(CharacteristicName,ResultUnit,P90,Mean\)$/);
    expectClose(page.value, expected((r) => r.CharacteristicName === 'pH', [by('CharacteristicName'), by('ResultUnit')], ['CharacteristicName', 'ResultUnit'], [['P90', 'ResultValue', 'Tributary.p90'], ['Mean', 'ResultValue', 'average']]));
    expect(page.value.length).toBeGreaterThan(0);
  });
});
