import { describe, expect, it } from 'vitest';
import { compileApply } from './compile-apply.js';
import { apply, run, useFixture } from '../testing/plans.js';

const fixture = useFixture();

describe('compileApply: golden SQL and parameters', () => {
  it('groups by RegionId from the region rollup, unless a region filter asks for the other regions of its locations', () => {
    const sql = (qs: string) => compileApply(apply('Observations', qs)).sql;
    expect(sql("$apply=groupby((RegionId),aggregate($count as N))&$filter=CharacteristicName eq 'pH'")).toBe(
      `SELECT r."RegionId" AS g0, SUM(r."n")::BIGINT AS n FROM "observation_region_rollup" r WHERE (r."CharacteristicName" = CAST($1 AS VARCHAR)) GROUP BY g0 ORDER BY g0 LIMIT 1001`,
    );
    expect(sql("$apply=groupby((CharacteristicName),aggregate($count as N))&$filter=RegionId eq 'hub.pacific'")).toContain('FROM "observation_region_rollup" r WHERE (r."RegionId" = ');
    expect(sql("$apply=groupby((RegionId),aggregate($count as N))&$filter=RegionId eq 'hub.pacific'")).toContain(
      'FROM "observation_stats" s JOIN "location_regions" m ON m."LocationId" = s."LocationId" WHERE (s."LocationId" IN',
    );
  });

  it('groups a value filter from the observations, by region through membership', () => {
    const q = compileApply(apply('Observations', '$apply=filter(ResultValue gt 9)/groupby((RegionId,CharacteristicName),aggregate($count as N))'));
    expect(q.sql).toBe(
      `SELECT m."RegionId" AS g0, o."CharacteristicName" AS g1, count(*)::BIGINT AS n FROM "observations" o JOIN "location_regions" m ON m."LocationId" = o."LocationId" WHERE (o."ResultValue" > CAST($1 AS DOUBLE)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 1001`,
    );
    expect(q.params).toEqual([9]);
  });

  it('joins locations for a location dimension and pages by OFFSET', () => {
    const q = compileApply(apply('Records', "$apply=groupby((MonitoringLocationType,RegionId),aggregate($count as N))&$filter=LocationId ne 3&$skiptoken=Id:20&$top=5"));
    expect(q.sql).toBe(
      `SELECT l."MonitoringLocationType" AS g0, m."RegionId" AS g1, SUM(s."n")::BIGINT AS n FROM "observation_stats" s JOIN "locations" l ON l."Id" = s."LocationId" JOIN "location_regions" m ON m."LocationId" = s."LocationId" WHERE (s."LocationId" IS DISTINCT FROM CAST($1 AS BIGINT)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 6 OFFSET CAST($2 AS BIGINT)`,
    );
    expect(q.params).toEqual([3n, 20n]);
  });
});

describe('compileApply: each source runs on the fixture file and finds groups', () => {
  it.each([
    '$apply=groupby((CharacteristicName),aggregate($count as N))',
    "$apply=groupby((RegionId),aggregate($count as N))&$filter=CharacteristicName eq 'pH'",
    "$apply=groupby((RegionId),aggregate($count as N))&$filter=RegionId eq 'admin.2.ca'",
    '$apply=filter(ResultValue gt 9)/groupby((RegionId,CharacteristicName),aggregate($count as N))',
    '$apply=groupby((MonitoringLocationType,RegionId),aggregate($count as N))&$filter=LocationId ne 3',
  ])('%s', async (qs) => {
    const rows = await run(fixture(), compileApply(apply('Records', qs)));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(Number(row['n'])).toBeGreaterThan(0);
  });
});
