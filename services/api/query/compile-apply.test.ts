import { describe, expect, it } from 'vitest';
import { compileApply, compileGroupCount, compileMixedUnits, compileRowsRead } from './compile-apply.js';
import { getResource } from '../../../schemas/index.js';
import { getMeasure } from './measures.js';
import { apply, run, useFixture } from '../testing/plans.js';

const fixture = useFixture();

describe('compileApply: golden SQL and parameters', () => {
  it('groups by RegionId from the region rollup, unless a region filter asks for the other regions of its locations', () => {
    const sql = (qs: string) => compileApply(apply('Observations', qs)).sql;
    expect(sql("$apply=groupby((RegionId),aggregate($count as N))&$filter=CharacteristicName eq 'pH'")).toBe(
      `SELECT r."RegionId" AS g0, SUM(r."n")::BIGINT AS a0 FROM "observation_region_rollup" r WHERE (r."CharacteristicName" = CAST($1 AS VARCHAR)) GROUP BY g0 ORDER BY g0 LIMIT 1001`,
    );
    expect(sql("$apply=groupby((CharacteristicName),aggregate($count as N))&$filter=RegionId eq 'hub.pacific'")).toContain('FROM "observation_region_rollup" r WHERE (r."RegionId" = ');
    expect(sql("$apply=groupby((RegionId),aggregate($count as N))&$filter=RegionId eq 'hub.pacific'")).toContain(
      'FROM "observation_stats" s JOIN "location_regions" m ON m."LocationId" = s."LocationId" WHERE (s."LocationId" IN',
    );
  });

  it('groups a value filter from the observations, by region through membership', () => {
    const q = compileApply(apply('Observations', '$apply=filter(ResultValue gt 9)/groupby((RegionId,CharacteristicName),aggregate($count as N))'));
    expect(q.sql).toBe(
      `SELECT m."RegionId" AS g0, o."CharacteristicName" AS g1, count(*)::BIGINT AS a0 FROM "observations" o JOIN "location_regions" m ON m."LocationId" = o."LocationId" WHERE (o."ResultValue" > CAST($1 AS DOUBLE)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 1001`,
    );
    expect(q.params).toEqual([9]);
  });

  it('joins locations for a location dimension and pages by OFFSET', () => {
    const q = compileApply(apply('Records', "$apply=groupby((MonitoringLocationType,RegionId),aggregate($count as N))&$filter=LocationId ne 3&$skiptoken=Id:20&$top=5"));
    expect(q.sql).toBe(
      `SELECT l."MonitoringLocationType" AS g0, m."RegionId" AS g1, SUM(s."n")::BIGINT AS a0 FROM "observation_stats" s JOIN "locations" l ON l."Id" = s."LocationId" JOIN "location_regions" m ON m."LocationId" = s."LocationId" WHERE (s."LocationId" IS DISTINCT FROM CAST($1 AS BIGINT)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 6 OFFSET CAST($2 AS BIGINT)`,
    );
    expect(q.params).toEqual([3n, 20n]);
  });
});

describe('compileApply: distinct dimensions, orderby and top (golden, then on the fixture file)', () => {
  it('counts distinct locations and datasets from the statistics as $count would, the datasets through the locations', async () => {
    const q = compileApply(apply('Records', '$apply=groupby((CharacteristicName),aggregate(LocationId with countdistinct as Sites,DOI with countdistinct as D,$count as N))'));
    expect(q.sql).toBe(
      `SELECT s."CharacteristicName" AS g0, count(DISTINCT s."LocationId")::BIGINT AS a0, count(DISTINCT l."DOI")::BIGINT AS a1, SUM(s."n")::BIGINT AS a2 ` +
        `FROM "observation_stats" s JOIN "locations" l ON l."Id" = s."LocationId" GROUP BY g0 ORDER BY g0 LIMIT 1001`,
    );
    expect((await run(fixture(), q)).length).toBeGreaterThan(0);
  });

  it('counts distinct characteristics from the rollup when nothing names a location', () => {
    expect(compileApply(apply('Records', '$apply=groupby((ActivityStartYear),aggregate(CharacteristicName with countdistinct as C))')).sql).toBe(
      `SELECT r."ActivityStartYear" AS g0, count(DISTINCT r."CharacteristicName")::BIGINT AS a0 FROM "observation_rollup" r GROUP BY g0 ORDER BY g0 LIMIT 1001`,
    );
  });

  it('sorts by orderby\'s keys as OData does, then the other group fields, and reads no group past top(n)', async () => {
    const sql = (qs: string) => compileApply(apply('Records', qs));
    expect(sql('$apply=groupby((CharacteristicName,ResultUnit),aggregate($count as N))/orderby(N desc,ResultUnit)/top(10)&$top=4').sql).toBe(
      `SELECT s."CharacteristicName" AS g0, s."ResultUnit" AS g1, SUM(s."n")::BIGINT AS a0 FROM "observation_value_stats" s GROUP BY g0, g1 ORDER BY a0 DESC NULLS LAST, g1 ASC NULLS FIRST, g0 LIMIT 5`,
    );
    // The third page of four within top(10): two groups left, so two are read and no next page is known.
    const last = sql('$apply=groupby((CharacteristicName),aggregate($count as N))/orderby(N desc)/top(10)&$top=4&$skiptoken=Id:8');
    expect(last.sql).toMatch(/ORDER BY a0 DESC NULLS LAST, g0 LIMIT 2 OFFSET CAST\(\$1 AS BIGINT\)$/);
    expect(await run(fixture(), last)).toHaveLength(2);
    expect(sql('$apply=groupby((CharacteristicName))/top(10)&$skiptoken=Id:12').sql).toMatch(/LIMIT 0 OFFSET/);
  });

  it('groups a table of its own over itself with its location joined, counting distinct observations', () => {
    expect(compileApply(apply('GuidelineComparisons', "$apply=filter(Verdict eq 'exceeds')/groupby((RegionId),aggregate(ObservationId with countdistinct as O))")).sql).toBe(
      `SELECT m."RegionId" AS g0, count(DISTINCT t."ObservationId")::BIGINT AS a0 FROM "guideline_comparisons" t JOIN "location_regions" m ON m."LocationId" = t."LocationId" ` +
        `WHERE (t."Verdict" = CAST($1 AS VARCHAR)) GROUP BY g0 ORDER BY g0 LIMIT 1001`,
    );
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
    for (const row of rows) expect(Number(row['a0'])).toBeGreaterThan(0);
  });
});

describe('compileRowsRead and compileGroupCount: what an $apply reads and makes (golden, then on the fixture file)', () => {
  it('counts the rows of the fact under the filter and joins, with no grouping', () => {
    const q = compileRowsRead(apply('Records', "$apply=groupby((ActivityStartYear),aggregate($count as N))&$filter=CharacteristicName eq 'pH'"));
    expect(q.sql).toBe(`SELECT count(*)::BIGINT AS n FROM "observation_rollup" r WHERE (r."CharacteristicName" = CAST($1 AS VARCHAR))`);
    expect(q.params).toEqual(['pH']);
    // A percentile reads the observations themselves; grouping by region reads each row once per region.
    expect(compileRowsRead(apply('Observations', '$apply=groupby((RegionId),aggregate(ResultValue with Tributary.median as M))')).sql).toBe(
      `SELECT count(*)::BIGINT AS n FROM "observations" o JOIN "location_regions" m ON m."LocationId" = o."LocationId"`,
    );
  });

  it('counts the groups by making them, with no aggregate and no order', () => {
    expect(compileGroupCount(apply('Records', '$apply=groupby((CharacteristicName,ActivityStartYear))')).sql).toBe(
      `SELECT count(*)::BIGINT AS n FROM (SELECT r."CharacteristicName" AS g0, r."ActivityStartYear" AS g1 FROM "observation_rollup" r GROUP BY g0, g1)`,
    );
  });

  it('agree with the result on the fixture file: the groups are the result\'s, the rows read are the rows counted', async () => {
    const qs = "$apply=groupby((CharacteristicName),aggregate($count as N))&$filter=ActivityStartYear ge 2000&$top=10000";
    const groups = await run(fixture(), compileApply(apply('Observations', qs)));
    const [made] = await run(fixture(), compileGroupCount(apply('Observations', qs)));
    expect(Number(made!['n'])).toBe(groups.length);
    const observations = await run(fixture(), compileRowsRead(apply('Observations', '$apply=groupby((CharacteristicName),aggregate(ResultValue with Tributary.median as M))&$filter=ActivityStartYear ge 2000')));
    expect(Number(observations[0]!['n'])).toBe(groups.reduce((sum, g) => sum + Number(g['a0']), 0));
  });
});

describe('compileApply: aggregates of values', () => {
  const sql = (qs: string) => compileApply(apply('Observations', qs)).sql;

  it('reads sum, min, max, average and non-detects of ResultValue from the statistics per unit, with the unit check', () => {
    expect(sql('$apply=groupby((CharacteristicName),aggregate($count as N,ResultValue with sum as S,ResultValue with min as Lo,ResultValue with max as Hi,ResultValue with average as M,ResultValue with Tributary.countnull as ND))')).toBe(
      `SELECT s."CharacteristicName" AS g0, SUM(s."n")::BIGINT AS a0, SUM(s."value_sum") AS a1, MIN(s."value_min") AS a2, MAX(s."value_max") AS a3, ` +
        `SUM(s."value_sum") / NULLIF(SUM(s."value_n"), 0) AS a4, SUM(s."n" - s."value_n")::BIGINT AS a5, ` +
        `max(count(DISTINCT coalesce(s."ResultUnit", '')) FILTER (WHERE s."value_n" > 0)) OVER () AS x0 ` +
        `FROM "observation_value_stats" s GROUP BY g0 ORDER BY g0 LIMIT 1001`,
    );
  });

  it('needs no unit check when ResultUnit is a group, and joins locations and regions as counts do', () => {
    expect(sql("$apply=groupby((RegionId,ResultUnit),aggregate(ResultValue with average as M))&$filter=MonitoringLocationType eq 'Lake'")).toBe(
      `SELECT m."RegionId" AS g0, s."ResultUnit" AS g1, SUM(s."value_sum") / NULLIF(SUM(s."value_n"), 0) AS a0 ` +
        `FROM "observation_value_stats" s JOIN "locations" l ON l."Id" = s."LocationId" JOIN "location_regions" m ON m."LocationId" = s."LocationId" ` +
        `WHERE (l."MonitoringLocationType" = CAST($1 AS VARCHAR)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 1001`,
    );
  });

  it('scans the observations for percentiles, distinct counts, dates, the other measures and row-level filters', () => {
    expect(sql('$apply=aggregate(ResultValue with Tributary.median as Med,ResultValue with Tributary.p10 as P10,ResultValue with Tributary.p90 as P90,ResultValue with countdistinct as D)')).toBe(
      `SELECT quantile_cont(o."ResultValue", 0.5) AS a0, quantile_cont(o."ResultValue", 0.1) AS a1, quantile_cont(o."ResultValue", 0.9) AS a2, count(DISTINCT o."ResultValue")::BIGINT AS a3, ` +
        `max(count(DISTINCT coalesce(o."ResultUnit", '')) FILTER (WHERE o."ResultValue" IS NOT NULL)) OVER () AS x0 FROM "observations" o GROUP BY () LIMIT 1001`,
    );
    expect(sql('$apply=groupby((LocationId),aggregate(ActivityStartDate with min as First,ActivityStartDate with max as Last))')).toBe(
      `SELECT o."LocationId" AS g0, CAST(min(o."ActivityStartDate") AS VARCHAR) AS a0, CAST(max(o."ActivityStartDate") AS VARCHAR) AS a1 FROM "observations" o GROUP BY g0 ORDER BY g0 LIMIT 1001`,
    );
    expect(sql('$apply=aggregate(ResultValue with sum as S)&$filter=ResultValue gt 1')).toContain('FROM "observations" o WHERE (o."ResultValue" > CAST($1 AS DOUBLE))');
    expect(sql('$apply=groupby((ActivityDepthHeightUnit),aggregate(ActivityDepthHeightMeasure with max as D))')).toBe(
      `SELECT o."ActivityDepthHeightUnit" AS g0, max(o."ActivityDepthHeightMeasure") AS a0 FROM "observations" o GROUP BY g0 ORDER BY g0 LIMIT 1001`,
    );
  });

  it('lists the distinct groups with no aggregate, from the smallest table', () => {
    expect(sql('$apply=groupby((CharacteristicName,ActivityStartYear))')).toBe(
      `SELECT r."CharacteristicName" AS g0, r."ActivityStartYear" AS g1 FROM "observation_rollup" r GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 1001`,
    );
    expect(sql('$apply=groupby((CharacteristicName,ResultUnit))')).toBe(
      `SELECT s."CharacteristicName" AS g0, s."ResultUnit" AS g1 FROM "observation_value_stats" s GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 1001`,
    );
  });

  it('names the first group of several units and its units', () => {
    const q = compileMixedUnits(apply('Observations', '$apply=groupby((ActivityMediaName),aggregate(ResultValue with sum as S))'), getMeasure(getResource('Records')!, 'ResultValue')!);
    expect(q.sql).toBe(
      `SELECT s."ActivityMediaName" AS g0, to_json(list_sort(list(DISTINCT coalesce(s."ResultUnit", '')) FILTER (WHERE s."value_n" > 0)))::VARCHAR AS units ` +
        `FROM "observation_value_stats" s GROUP BY g0 HAVING count(DISTINCT coalesce(s."ResultUnit", '')) FILTER (WHERE s."value_n" > 0) > 1 ORDER BY g0 LIMIT 1`,
    );
  });
});

describe('compileApply: aggregates run on the fixture file', () => {
  it.each([
    ['$apply=groupby((CharacteristicName,ResultUnit),aggregate($count as N,ResultValue with sum as S,ResultValue with average as M,ResultValue with Tributary.countnull as ND))', 'ResultValue'],
    ['$apply=groupby((RegionId,ResultUnit),aggregate(ResultValue with min as Lo,ResultValue with max as Hi))&$filter=ActivityStartYear ge 2000', 'ResultValue'],
    ['$apply=groupby((CharacteristicName),aggregate(ResultValue with Tributary.median as Med,ResultValue with countdistinct as D,ActivityStartDate with min as First))', 'ResultValue'],
    ['$apply=groupby((ResultDetectionQuantitationLimitUnit),aggregate(ResultDetectionQuantitationLimitMeasure with max as L))', 'ResultDetectionQuantitationLimitMeasure'],
    ['$apply=groupby((DOI,ResultUnit))', 'ResultValue'],
  ])('%s', async (qs, measure) => {
    const rows = await run(fixture(), compileApply(apply('Records', qs)));
    expect(rows.length).toBeGreaterThan(0);
    // Grouped by characteristic or unit, no group of the fixture mixes units.
    expect(await run(fixture(), compileMixedUnits(apply('Records', qs), getMeasure(getResource('Records')!, measure)!))).toEqual([]);
  });

  it('finds several units where values of many characteristics meet', async () => {
    const plan = apply('Records', '$apply=aggregate(ResultValue with sum as S)');
    const rows = await run(fixture(), compileApply(plan));
    expect(Number(rows[0]!['x0'])).toBeGreaterThan(1);
    const mixed = await run(fixture(), compileMixedUnits(plan, getMeasure(getResource('Records')!, 'ResultValue')!));
    expect(JSON.parse(String(mixed[0]!['units']))).toEqual(expect.arrayContaining(['mg/L', 'deg C']));
  });
});
