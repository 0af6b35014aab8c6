/**
 * Issue 53 item 2, proved: `countdistinct` of identifiers and dimensions, and `$apply`'s `orderby` and `top` after a
 * groupby, over HTTP against answers computed here in plain code from the rows of the published Parquet dataset files
 * (DuckDB only reads them: no SQL aggregate, sort or limit computes an expected value). Sorting follows OData: nulls
 * first ascending and last descending, the grouped fields not named after, ascending, nulls last.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { datasetFileName, plainFilesDir, type DownloadFormat } from '../../../schemas/publication-files.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

type Row = Record<string, string | number | null>;
type Group = Record<string, unknown>;

const BASE = '/v1/odata/v4';
let fx: FixtureApp;
let records: Row[];
let comparisons: Row[];
/** A location's API Id by its dataset and the upload's own location id (what a Records row names). */
let locationOf: Map<string, number>;

async function readFiles(format: DownloadFormat, columns: readonly string[]): Promise<Row[]> {
  const path = inject('apiFixtureDb');
  const files = (await fx.ref.runAndReadAll(`SELECT "Sha256" FROM dataset_files WHERE "Format" = '${format}'`)).getRowObjectsJson();
  const list = files.map((f) => `'${join(plainFilesDir(path), datasetFileName(String(f['Sha256']), format))}'`).join(', ');
  return (await fx.ref.runAndReadAll(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM read_parquet([${list}])`)).getRowObjectsJson() as Row[];
}

beforeAll(async () => {
  fx = await openFixtureApp(inject('apiFixtureDb'));
  records = await readFiles('parquet', ['DOI', 'MonitoringLocationID', 'CharacteristicName', 'ResultUnit', 'ResultValue']);
  // Ids arrive as JSON text (BIGINT); the API writes them as numbers.
  comparisons = (await readFiles('comparisons-parquet', ['LocationId', 'ObservationId', 'Verdict', 'CharacteristicName'])).map((c) => ({ ...c, LocationId: Number(c['LocationId']) }));
  const located = await allGroups('Locations', { $select: 'Id,ID,DOI', $top: '10000' });
  locationOf = new Map(located.map((l) => [`${String(l['DOI'])} ${String(l['ID'])}`, Number(l['Id'])]));
});
afterAll(async () => {
  await fx.close();
});

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

/** Rows grouped by `keys`, each group reduced by `reduce` into named values. */
function groupRows(rows: readonly Row[], keys: readonly string[], reduce: (members: Row[]) => Group): Group[] {
  const groups = Map.groupBy(rows, (r) => JSON.stringify(keys.map((k) => r[k])));
  return [...groups.entries()].map(([k, members]) => ({ ...Object.fromEntries((JSON.parse(k) as unknown[]).map((v, i) => [keys[i]!, v])), ...reduce(members) }));
}

/** OData's order of one key: nulls first ascending, last descending. */
function odataOrder(name: string, descending: boolean): (a: Group, b: Group) => number {
  return (a, b) => {
    const [x, y] = [a[name], b[name]];
    if (x === y) return 0;
    if (x === null) return descending ? 1 : -1;
    if (y === null) return descending ? -1 : 1;
    return ((x as number) < (y as number) ? -1 : 1) * (descending ? -1 : 1);
  };
}
/** The grouped fields after: ascending, nulls last (DuckDB's default, the groups' order without orderby). */
function groupOrder(name: string): (a: Group, b: Group) => number {
  return (a, b) => {
    const [x, y] = [a[name], b[name]];
    if (x === y) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return (x as string) < (y as string) ? -1 : 1;
  };
}
const sorted = (groups: Group[], ...orders: ((a: Group, b: Group) => number)[]) =>
  [...groups].sort((a, b) => orders.reduce((d, o) => d || o(a, b), 0));

describe('countdistinct of identifiers and dimensions', () => {
  it('sites and datasets per characteristic (from the statistics)', async () => {
    const got = await allGroups('Records', { $apply: 'groupby((CharacteristicName),aggregate(LocationId with countdistinct as Sites,DOI with countdistinct as Datasets,$count as N))' });
    const want = groupRows(records, ['CharacteristicName'], (m) => ({
      Sites: new Set(m.map((r) => `${r['DOI']} ${r['MonitoringLocationID']}`)).size,
      Datasets: new Set(m.map((r) => r['DOI'])).size,
      N: m.length,
    }));
    expect(got).toEqual(sorted(want, groupOrder('CharacteristicName')));
    expect(got.some((g) => (g['Sites'] as number) > 1)).toBe(true);
  });

  it('units per characteristic, under a row-level filter (a scan); null is no unit', async () => {
    const got = await allGroups('Observations', { $apply: 'filter(ResultValue gt 1)/groupby((CharacteristicName),aggregate(ResultUnit with countdistinct as Units))' });
    const want = groupRows(records.filter((r) => r['ResultValue'] !== null && (r['ResultValue'] as number) > 1), ['CharacteristicName'], (m) => ({
      Units: new Set(m.map((r) => r['ResultUnit']).filter((u) => u !== null)).size,
    }));
    expect(got).toEqual(sorted(want, groupOrder('CharacteristicName')));
  });

  it('observations exceeding a guideline, each once however many guidelines it exceeds', async () => {
    const [got] = await allGroups('GuidelineComparisons', { $apply: "filter(Verdict eq 'exceeds')/aggregate(ObservationId with countdistinct as Observations,$count as Exceedances)" });
    const exceeds = comparisons.filter((c) => c['Verdict'] === 'exceeds');
    expect(got).toEqual({ Observations: new Set(exceeds.map((c) => c['ObservationId'])).size, Exceedances: exceeds.length });
  });
});

describe('orderby and top after a groupby', () => {
  it('the ten sites with the most exceedances, in one request, paged by $top within top(10)', async () => {
    const got = await allGroups('GuidelineComparisons', {
      $apply: "filter(Verdict eq 'exceeds')/groupby((LocationId),aggregate($count as Exceedances))/orderby(Exceedances desc)/top(10)",
      $top: '4',
    });
    const want = groupRows(comparisons.filter((c) => c['Verdict'] === 'exceeds'), ['LocationId'], (m) => ({ Exceedances: m.length }));
    expect(want.length).toBeGreaterThan(10);
    expect(got).toEqual(sorted(want, odataOrder('Exceedances', true), groupOrder('LocationId')).slice(0, 10));
  });

  it('ascending by an aggregate puts null first; the grouped fields not named break ties', async () => {
    const got = await allGroups('Records', { $apply: 'groupby((CharacteristicName,ResultUnit),aggregate(ResultValue with max as Hi,$count as N))/orderby(Hi)/top(6)' });
    const want = groupRows(records, ['CharacteristicName', 'ResultUnit'], (m) => {
      const values = m.map((r) => r['ResultValue']).filter((v): v is number => v !== null);
      return { Hi: values.length ? Math.max(...values) : null, N: m.length };
    });
    expect(want.some((g) => g['Hi'] === null)).toBe(true);
    expect(got).toEqual(sorted(want, odataOrder('Hi', false), groupOrder('CharacteristicName'), groupOrder('ResultUnit')).slice(0, 6));
    expect(got[0]!['Hi']).toBeNull();
  });

  it('a grouped field descending, another ascending; every group when top is left out', async () => {
    const got = await allGroups('Records', { $apply: 'groupby((ResultUnit,CharacteristicName),aggregate($count as N))/orderby(CharacteristicName desc,ResultUnit)', $top: '7' });
    const want = groupRows(records, ['ResultUnit', 'CharacteristicName'], (m) => ({ N: m.length }));
    expect(got).toEqual(sorted(want, odataOrder('CharacteristicName', true), odataOrder('ResultUnit', false)));
  });

  it('the sites with the most observations by their Ids: the same groups as the locations the rows name', async () => {
    const got = await allGroups('Observations', { $apply: 'groupby((LocationId),aggregate($count as N))/orderby(N desc)/top(5)' });
    const want = groupRows(records.map((r) => ({ LocationId: locationOf.get(`${r['DOI']} ${r['MonitoringLocationID']}`)! })), ['LocationId'], (m) => ({ N: m.length }));
    expect(got).toEqual(sorted(want, odataOrder('N', true), groupOrder('LocationId')).slice(0, 5));
  });

  it('top(0) is no group and no next link; past top(n), the next link stops', async () => {
    const none = await fx.app.request(`${BASE}/Records?${new URLSearchParams({ $apply: 'groupby((CharacteristicName))/top(0)' })}`);
    expect(((await none.json()) as { value: unknown[] }).value).toEqual([]);
    const res = await fx.app.request(`${BASE}/Records?${new URLSearchParams({ $apply: 'groupby((CharacteristicName))/top(3)', $top: '3' })}`);
    const body = (await res.json()) as { value: unknown[]; '@odata.nextLink'?: string };
    expect(body.value).toHaveLength(3);
    expect(body['@odata.nextLink']).toBeUndefined();
  });
});
