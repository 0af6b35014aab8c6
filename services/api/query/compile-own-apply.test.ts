import { describe, expect, it } from 'vitest';
import { compileApply } from './compile-apply.js';
import { compileCount } from './compile-count.js';
import { apply, count, run, useFixture } from '../testing/plans.js';

const fixture = useFixture();

describe('tables of their own: golden SQL and parameters', () => {
  it('$apply groups the table itself; its location\'s fields join locations, regions the memberships', () => {
    const q = compileApply(apply('LocationSummaries', "$apply=groupby((MonitoringLocationType,RegionId),aggregate($count as N))&$filter=CharacteristicName eq 'pH'&$top=5&$skiptoken=Id:10"));
    expect(q.sql).toBe(
      `SELECT l."MonitoringLocationType" AS g0, m."RegionId" AS g1, count(*)::BIGINT AS n FROM "location_summaries" t JOIN "locations" l ON l."Id" = t."LocationId" ` +
        `JOIN "location_regions" m ON m."LocationId" = t."LocationId" WHERE (t."CharacteristicName" = CAST($1 AS VARCHAR)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 6 OFFSET CAST($2 AS BIGINT)`,
    );
    expect(q.params).toEqual(['pH', 10n]);
  });

  it('a stored dimension is read from the table, without a join', () => {
    const q = compileApply(apply('GuidelineComparisons', "$apply=groupby((LocationId,Verdict),aggregate($count as N))&$filter=MonitoringLocationType eq 'Lake'"));
    expect(q.sql).toBe(
      `SELECT t."LocationId" AS g0, t."Verdict" AS g1, count(*)::BIGINT AS n FROM "guideline_comparisons" t WHERE (t."MonitoringLocationType" = CAST($1 AS VARCHAR)) GROUP BY g0, g1 ORDER BY g0, g1 LIMIT 1001`,
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
  ])('%s ? %s', async (resource, qs) => {
    const rows = await run(fixture(), compileApply(apply(resource, qs)));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(Number(row['n'])).toBeGreaterThan(0);
  });
});
