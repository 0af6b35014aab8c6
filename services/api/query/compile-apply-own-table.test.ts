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

  it('a stored dimension is read from the table, without a join', () => {
    const q = compileApply(apply('GuidelineComparisons', "$apply=groupby((LocationId,Verdict),aggregate($count as N))&$filter=MonitoringLocationType eq 'Lake'"));
    expect(q.sql).toBe(
      `SELECT t."LocationId" AS g0, t."Verdict" AS g1, count(*)::BIGINT AS a0 FROM "guideline_comparisons" t WHERE (t."MonitoringLocationType" = CAST($1 AS VARCHAR)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 1001`,
    );
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
