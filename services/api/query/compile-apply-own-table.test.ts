import { describe, expect, it } from 'vitest';
import { compileApply } from './compile-apply.js';
import { compileCount } from './compile-count.js';
import { apply, count, run, useFixture } from '../testing/plans.js';

const fixture = useFixture();

describe('tables of their own: golden SQL and parameters', () => {
  it('$apply groups the table itself; its location\'s fields join locations, regions the memberships', () => {
    const q = compileApply(apply('LocationSummaries', "$apply=groupby((MonitoringLocationType,RegionId),aggregate($count as N))&$filter=CharacteristicName eq 'pH'&$top=5&$skiptoken=Id:10"));
    expect(q.sql).toBe(
      `SELECT l."MonitoringLocationType" AS g0, m."RegionId" AS g1, count(*)::BIGINT AS a0 FROM "location_summaries" t JOIN "locations" l ON l."Id" = t."LocationId" ` +
        `JOIN "location_regions" m ON m."LocationId" = t."LocationId" WHERE (t."CharacteristicName" = CAST($1 AS VARCHAR)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 6 OFFSET CAST($2 AS BIGINT)`,
    );
    expect(q.params).toEqual(['pH', 10n]);
  });

  it('comparisons counted by their statistics\' keys sum the smallest statistics table holding them, a stored dimension without a join', () => {
    const q = compileApply(apply('GuidelineComparisons', "$apply=groupby((LocationId,Verdict),aggregate($count as N))&$filter=MonitoringLocationType eq 'Lake'"));
    expect(q.sql).toBe(
      `SELECT s."LocationId" AS g0, s."Verdict" AS g1, SUM(s."n")::BIGINT AS a0 FROM "guideline_comparison_totals" s WHERE (s."MonitoringLocationType" = CAST($1 AS VARCHAR)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 1001`,
    );
    // A year, a medium or a group is kept by guideline_comparison_stats alone.
    const byYear = compileApply(apply('GuidelineComparisons', "$apply=groupby((LocationId,Verdict),aggregate($count as N))&$filter=ActivityStartYear ge 2015"));
    expect(byYear.sql).toBe(
      `SELECT s."LocationId" AS g0, s."Verdict" AS g1, SUM(s."n")::BIGINT AS a0 FROM "guideline_comparison_stats" s WHERE (s."ActivityStartYear" >= CAST($1 AS BIGINT)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 1001`,
    );
  });

  it('a field the statistics do not keep (ResultUnit), or an aggregate beyond $count, groups the comparisons themselves', () => {
    const q = compileApply(apply('GuidelineComparisons', "$apply=groupby((LocationId,ResultUnit),aggregate($count as N))&$filter=Verdict eq 'exceeds'"));
    expect(q.sql).toBe(
      `SELECT t."LocationId" AS g0, t."ResultUnit" AS g1, count(*)::BIGINT AS a0 FROM "guideline_comparisons" t WHERE (t."Verdict" = CAST($1 AS VARCHAR)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 1001`,
    );
    expect(compileApply(apply('GuidelineComparisons', '$apply=groupby((Verdict),aggregate($count as N,ActivityStartDate with max as Last))')).sql).toContain('FROM "guideline_comparisons" t');
  });

  it('$count of comparisons sums their statistics, joining the location only for its coordinates; a Reason or a date counts the rows', () => {
    expect(compileCount(count('GuidelineComparisons', "$count=true&$filter=Verdict eq 'exceeds'")).sql).toBe(
      `SELECT COALESCE(SUM(s."n"), 0)::BIGINT AS n FROM "guideline_comparison_totals" s WHERE (s."Verdict" = CAST($1 AS VARCHAR))`,
    );
    expect(compileCount(count('GuidelineComparisons', "$count=true&$filter=Latitude gt 49 and RegionId eq 'hub.pacific'")).sql).toBe(
      `SELECT COALESCE(SUM(s."n"), 0)::BIGINT AS n FROM "guideline_comparison_totals" s JOIN "locations" l ON l."Id" = s."LocationId" WHERE ((l."Latitude" > CAST($1 AS DOUBLE)) AND ` +
        `(s."LocationId" IN (SELECT "LocationId" FROM "location_regions" WHERE "RegionId" = CAST($2 AS VARCHAR))))`,
    );
    // Governing is a key of the statistics: one verdict per result is counted from them too, its value bound as a BOOLEAN.
    expect(compileCount(count('GuidelineComparisons', "$count=true&$filter=Governing eq true and Verdict eq 'exceeds'"))).toEqual({
      sql: `SELECT COALESCE(SUM(s."n"), 0)::BIGINT AS n FROM "guideline_comparison_totals" s WHERE ((s."Governing" = CAST($1 AS BOOLEAN)) AND (s."Verdict" = CAST($2 AS VARCHAR)))`,
      params: ['true', 'exceeds'],
    });
    for (const filter of ["Reason eq null and Verdict eq 'exceeds'", "Verdict eq 'exceeds' and ResultUnit eq 'mg/L'", 'ActivityStartDate ge 2019-01-01', 'ResultValue gt 0']) {
      expect(compileCount(count('GuidelineComparisons', `$count=true&$filter=${filter}`)).sql, filter).toMatch(/^SELECT count\(\*\)::BIGINT AS n FROM "guideline_comparisons" t/);
    }
  });

  it('a value aggregate reads the table\'s own column, and its units are checked as on the observations', () => {
    const q = compileApply(apply('GuidelineComparisons', "$apply=groupby((Verdict),aggregate(ResultValue with Tributary.median as M))"));
    expect(q.sql).toBe(
      `SELECT t."Verdict" AS g0, quantile_cont(t."ResultValue", 0.5) AS a0, max(count(DISTINCT coalesce(t."ResultUnit", '')) FILTER (WHERE t."ResultValue" IS NOT NULL)) OVER () AS x0 ` +
        `FROM "guideline_comparisons" t GROUP BY g0 ORDER BY g0 LIMIT 1001`,
    );
  });

  it('$count counts the table, its location\'s fields in an EXISTS over the one location, regions by membership', () => {
    const q = compileCount(count('LocationSummaries', "$count=true&$filter=MonitoringLocationType eq 'Lake' and RegionId eq 'hub.pacific'"));
    expect(q.sql).toBe(
      `SELECT count(*)::BIGINT AS n FROM "location_summaries" t WHERE EXISTS (SELECT 1 FROM "locations" l WHERE l."Id" = t."LocationId" AND ` +
        `((l."MonitoringLocationType" = CAST($1 AS VARCHAR)) AND (t."LocationId" IN (SELECT "LocationId" FROM "location_regions" WHERE "RegionId" = CAST($2 AS VARCHAR)))))`,
    );
  });
});

const STATISTICS = /"guideline_comparison_(stats|totals)" s/;

/** The same plan counted over the comparisons themselves: what the statistics must equal. */
function scanned(sql: string): string {
  return sql.replace(/SUM\(s\."n"\)/g, 'count(*)').replace(STATISTICS, '"guideline_comparisons" s');
}

describe('comparisons: the statistics answer exactly what a scan of the rows answers, on the fixture file', () => {
  it.each([
    "$filter=Verdict eq 'exceeds'",
    "$filter=Verdict ne 'meets' and (Publisher eq 'CCME' or ActivityStartYear ge 2015) and RegionId eq 'hub.pacific'",
    "$filter=not (ProtectionLevel eq 'Acute') and GuidelineId gt 3 and Latitude gt 0",
    "$filter=ActivityMediaName eq 'Surface Water' and ActivityStartYear le 2018 and Verdict eq 'exceeds'",
    "$filter=Governing eq true and Verdict eq 'exceeds' and Term eq 'long-term'",
    "$filter=Governing ne true and ActivityStartYear ge 2015",
    '',
  ])('$count %s', async (filter) => {
    const q = compileCount(count('GuidelineComparisons', `$count=true&${filter}`));
    expect(q.sql).toMatch(STATISTICS);
    const [stats] = await run(fixture(), q);
    const [rows] = await run(fixture(), { ...q, sql: scanned(q.sql) });
    expect(stats!['n']).toBe(rows!['n']);
    if (filter) expect(Number(stats!['n'])).toBeGreaterThan(0);
  });

  it.each([
    '$apply=groupby((LocationId,CharacteristicName,Verdict),aggregate($count as N))',
    "$apply=groupby((DOI,CharacteristicName,ActivityMediaName,ActivityGroupType,MonitoringLocationType,ActivityStartYear),aggregate($count as N))&$filter=Verdict eq 'exceeds'",
    '$apply=groupby((RegionId,Publisher,ProtectionLevel,GuidelineId),aggregate($count as N))',
    "$apply=groupby((LocationId,Term,Governing,Verdict),aggregate($count as N))&$filter=Publisher eq 'CCME'",
  ])('%s', async (qs) => {
    const q = compileApply(apply('GuidelineComparisons', `${qs}&$top=10000`));
    expect(q.sql).toMatch(STATISTICS);
    const stats = await run(fixture(), q);
    expect(stats.length).toBeGreaterThan(1);
    expect(stats).toEqual(await run(fixture(), { ...q, sql: scanned(q.sql) }));
  });
});

describe('tables of their own: $apply runs on the fixture file and finds groups', () => {
  it.each([
    ['LocationSummaries', '$apply=groupby((CharacteristicName,RegionId),aggregate($count as N))'],
    ['LocationSummaries', "$apply=filter(Median gt 0)/groupby((MonitoringLocationType),aggregate($count as N))&$filter=RegionId eq 'hub.pacific'"],
    ['GuidelineComparisons', '$apply=groupby((LocationId,CharacteristicName,Verdict),aggregate($count as N))'],
    ['Guidelines', '$apply=groupby((Publisher),aggregate($count as N))'],
    ['GuidelineComparisons', '$apply=groupby((CharacteristicName,ResultUnit),aggregate($count as N,ResultValue with max as Max))'],
  ])('%s ? %s', async (resource, qs) => {
    const rows = await run(fixture(), compileApply(apply(resource, qs)));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(Number(row['a0'])).toBeGreaterThan(0);
  });
});
