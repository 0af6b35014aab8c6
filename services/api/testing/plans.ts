/**
 * Helpers shared by this folder's tests (imported by nothing else): plans written readably, the filter shapes every
 * compiler must turn into SQL DuckDB runs, and a read-only connection to the test run's published fixture file.
 */
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { afterAll, beforeAll, inject } from 'vitest';
import { getResource } from '../../../schemas/index.js';
import { parseQuery } from '../odata/index.js';
import { planQuery, type ApplyPlan, type CountPlan, type PagePlan, type Plan } from '../query/plan.js';
import type { CompiledQuery } from '../query/sql.js';

/** Plans a query written readably (`$filter=A eq 'b'&$top=1`): each value is percent-encoded as a client would. */
export function plan(resource: string, qs: string): Plan {
  const encoded = qs
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf('=');
      return `${pair.slice(0, i)}=${encodeURIComponent(pair.slice(i + 1))}`;
    })
    .join('&');
  return planQuery(parseQuery(encoded), getResource(resource)!);
}
export const page = (resource: string, qs: string) => plan(resource, qs) as PagePlan;
export const count = (resource: string, qs: string) => plan(resource, qs) as CountPlan;
export const apply = (resource: string, qs: string) => plan(resource, qs) as ApplyPlan;

/**
 * Every way a filter reaches SQL: each resource, finer fields through EXISTS, region memberships, row-level fields,
 * null tests, `not` over nullable columns, UUID keys.
 */
export const FILTER_SHAPES: readonly (readonly [resource: string, qs: string])[] = [
  ['Observations', "$filter=CharacteristicName in ('pH','Temperature, water') or not (ActivityStartYear lt 2000)"],
  ['Records', "$filter=endswith(DOI, 'ef12') and RegionId ne 'hub.pacific' and ActivityGroupType eq 'Lab Sample'"],
  ['Locations', "$filter=Latitude gt '49' and Longitude lt -100 and Name eq 'x' and ActivityMediaName eq 'Surface Water'"],
  ['Locations', "$filter=RegionId in ('admin.4.ca.ab','admin.4.ca.bc') or LocationId eq 3"],
  ['Metadata', "$filter=RegionId eq 'admin.2.ca' and CharacteristicName eq 'pH' and CreateTimestamp ge 2020-01-01T00:00:00Z"],
  ['Metadata', "$filter=CreateTimestamp eq null or contains(DatasetName, 'lake')&$skiptoken=Id:0b8e9c56-8a2f-4a8a-9a55-1f2d3c4b5a69"],
  ['Records', "$filter=ResultValue gt 9 and ActivityStartDate ge 2020-06-01 and RegionId eq 'hub.pacific' and MonitoringLocationType eq 'Lake'"],
  ['Locations', "$filter=(ResultValue eq null or ResultValue ne 3) and Name eq 'x' and RegionId eq 'admin.2.ca'"],
  ['Metadata', "$filter=not (ResultValue lt 1) and Latitude gt 49 and DOI eq 'x' and ActivityStartDate eq '2020-01-01'"],
  // Tables of their own: their fields, their location's (through `locations`), and region memberships.
  ['LocationSummaries', "$filter=CharacteristicName eq 'pH' and MonitoringLocationType eq 'Lake' and RegionId eq 'hub.pacific' and not (Median gt 7)"],
  ['GuidelineComparisons', "$filter=Verdict eq 'exceeds' and RegionId eq 'hub.pacific' and not (Reason eq null) and ActivityMediaName eq 'Surface Water'"],
  ['WaterQualityIndex', "$filter=Category in ('Good','Fair') and Year ge 2018 and Latitude gt 49"],
  ['Guidelines', "$filter=startswith(Publisher, 'CC') and Bound eq 'range'"],
  ['Trends', "$filter=(Seasonal eq true or Category eq null) and RegionId eq 'hub.pacific' and Period ge 10 and not (SenSlope lt 0)"],
];

/**
 * A read-only connection to the published fixture file (test-fixture.ts), open for the calling test file: golden
 * SQL run there returns real rows, so a test that checks them cannot pass on empty tables.
 */
export function useFixture(): () => DuckDBConnection {
  let instance: DuckDBInstance | undefined;
  let conn: DuckDBConnection | undefined;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(inject('apiFixtureDb'), { access_mode: 'READ_ONLY' });
    conn = await instance.connect();
  });
  afterAll(() => {
    conn?.closeSync();
    instance?.closeSync();
  });
  return () => conn!;
}

/** Runs a compiled query; its result as rows of values by column name. */
export async function run(conn: DuckDBConnection, q: CompiledQuery): Promise<Record<string, DuckDBValue>[]> {
  return (await conn.runAndReadAll(q.sql, q.params as DuckDBValue[])).getRowObjects();
}
