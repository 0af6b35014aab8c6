import { describe, expect, it } from 'vitest';
import { compileApply, compileMixedUnits, unitChecks } from './compile-apply.js';
import { KM_VALUE } from './measures.js';
import { apply, run, useFixture } from '../testing/plans.js';

const fixture = useFixture();
const KM_ALL =
  'ResultValue with Tributary.km_median as Median,ResultValue with Tributary.km_median_qualifier as MedianQ,ResultValue with Tributary.km_p10 as P10,ResultValue with Tributary.km_p10_qualifier as P10Q,' +
  'ResultValue with Tributary.km_p90 as P90,ResultValue with Tributary.km_p90_qualifier as P90Q,ResultValue with Tributary.km_mean as Mean,ResultValue with Tributary.km_method as Method';

describe('compileApply: the km methods (compile-apply-km.ts)', () => {
  it('wraps the groups and the other aggregates, and joins each group to the statistics of its rows', () => {
    const q = compileApply(apply('Observations', "$apply=filter(CharacteristicName eq 'Lead')/groupby((LocationId),aggregate($count as N,ResultValue with Tributary.km_median as M,ResultValue with average as A))"));
    expect(q.sql).toMatch(
      /^SELECT b\.g0, b\.a0 AS a0, k\.km_median AS a1, b\.a2 AS a2, b\.x0, b\.x1 FROM \(SELECT o\."LocationId" AS g0, count\(\*\)::BIGINT AS a0, NULL AS a1, avg\(o\."ResultValue"\) AS a2, /,
    );
    // The limits' conversion joined to the observations in each of the three reads (the groups, the statistics' pass
    // over every row, the curve's over the censored groups' rows); the filter's one parameter used in each.
    const join = 'FROM "observations" o LEFT JOIN "unit_conversions" u ON u."from_unit" = o."ResultDetectionQuantitationLimitUnit" AND u."to_unit" = o."ResultUnit" WHERE (o."CharacteristicName" = CAST($1 AS VARCHAR))';
    expect(q.sql.split(join)).toHaveLength(4);
    expect(q.sql).toContain(') k ON b.g0 IS NOT DISTINCT FROM k.g0 ORDER BY g0 LIMIT 1001');
    expect(q.params).toEqual(['Lead']);
  });

  it('checks the km unit whatever the groupby (a null ResultUnit group holds limits of several units), the others as before', () => {
    const plan = apply('Observations', '$apply=groupby((ResultUnit),aggregate(ResultValue with Tributary.km_mean as M,ResultValue with sum as S))');
    expect(unitChecks(plan)).toEqual([KM_VALUE]);
    const q = compileApply(plan);
    expect(q.sql).toContain(`max(count(DISTINCT coalesce(coalesce(o."ResultUnit", CASE WHEN o."ResultValue" IS NULL AND o."ResultDetectionQuantitationLimitMeasure" IS NOT NULL`);
    expect(unitChecks(apply('Observations', '$apply=aggregate(ResultValue with Tributary.km_p90 as P,ResultValue with Tributary.km_method as K,ResultValue with sum as S)'))).toHaveLength(2);
  });

  it('one group without a groupby: a constant key on both sides', () => {
    const q = compileApply(apply('Records', `$apply=aggregate(${KM_ALL})`));
    expect(q.sql).toMatch(/^SELECT k\.km_median AS a0, k\.km_median_q AS a1, k\.km_p10 AS a2, k\.km_p10_q AS a3, k\.km_p90 AS a4, k\.km_p90_q AS a5, k\.km_mean AS a6, k\.km_method AS a7, b\.x0 FROM \(SELECT NULL AS a0/);
    expect(q.sql).toContain('(SELECT 0 AS g_all, CASE WHEN o."ResultValue" IS NOT NULL THEN 1 ');
    expect(q.sql).toContain(') k ON TRUE LIMIT 1001');
  });

  it('keeps a hostile value a bound parameter, never SQL text', () => {
    const evil = "x'); DROP TABLE observations; --";
    const q = compileApply(apply('Observations', `$apply=filter(CharacteristicName eq '${evil.replaceAll("'", "''")}')/groupby((CharacteristicName),aggregate(ResultValue with Tributary.km_median as M))`));
    expect(q.sql).not.toContain('DROP TABLE');
    expect(q.params).toEqual([evil]);
  });
});

describe('planning the km methods', () => {
  it.each([
    ['Observations', '$apply=aggregate(ActivityDepthHeightMeasure with Tributary.km_median as M)', /aggregates ResultValue of Observations and Records only/],
    ['Observations', '$apply=aggregate(ActivityStartDate with Tributary.km_method as M)', /does not apply to ActivityStartDate/],
    ['GuidelineComparisons', '$apply=aggregate(ResultValue with Tributary.km_mean as M)', /aggregates ResultValue of Observations and Records only/],
  ])('%s %s → 400 unsupported_apply', (resource, qs, message) => {
    expect(() => apply(resource, qs)).toThrow(message);
  });

  it('names the methods that fit a measure: the km ones only for ResultValue', () => {
    expect(() => apply('Observations', '$apply=aggregate(ActivityStartDate with sum as S)')).toThrow(/use one of min, max, countdistinct, Tributary\.countnull\./);
    expect(() => apply('Records', '$apply=aggregate(ResultValue with Tributary.km_median as M,ActivityDepthHeightMeasure with Tributary.km_p10 as P)')).toThrow(/Tributary\.km_p10 aggregates ResultValue/);
  });
});

describe('compileApply: the km methods run on the fixture file', () => {
  it('every group of one unit has a method, and a km group its qualified bound', async () => {
    const filter = "ResultUnit eq 'ug/L' or (ResultUnit eq null and ResultDetectionQuantitationLimitUnit eq 'ug/L')";
    const plan = apply('Observations', `$apply=filter(${filter})/groupby((LocationId,CharacteristicName),aggregate($count as N,${KM_ALL}))`);
    const rows = await run(fixture(), compileApply(plan));
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.every((r) => ['exact', 'km', 'none'].includes(String(r['a8'])))).toBe(true);
    expect(rows.some((r) => r['a8'] === 'km' && r['a2'] === '<')).toBe(true);
    expect(Number(rows[0]!['x0'])).toBe(1);
    expect(await run(fixture(), compileMixedUnits(plan, KM_VALUE))).toEqual([]);
  });

  it('names the units of a group that mixes them, limits in their own unit', async () => {
    const plan = apply('Observations', `$apply=aggregate(${KM_ALL})`);
    const [row] = await run(fixture(), compileApply(plan));
    expect(Number(row!['x0'])).toBeGreaterThan(1);
    const [mixed] = await run(fixture(), compileMixedUnits(plan, KM_VALUE));
    expect(JSON.parse(String(mixed!['units']))).toEqual(expect.arrayContaining(['mg/L', 'ug/L']));
  });
});
