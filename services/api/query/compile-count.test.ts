import { describe, expect, it } from 'vitest';
import { resources } from '../../../schemas/index.js';
import { compileCount } from './compile-count.js';
import { count, FILTER_SHAPES, run, useFixture } from '../testing/plans.js';

const fixture = useFixture();

describe('compileCount: golden SQL and parameters', () => {
  it('counts observations from the small rollup when no location detail is needed', () => {
    expect(compileCount(count('Observations', '$count=true')).sql).toBe(
      'SELECT COALESCE(SUM(r."n"), 0)::BIGINT AS n FROM "observation_rollup" r',
    );
    const byType = compileCount(count('Records', "$count=true&$filter=MonitoringLocationType eq 'Lake' and CharacteristicName eq 'pH'"));
    expect(byType.sql).toBe(
      `SELECT COALESCE(SUM(r."n"), 0)::BIGINT AS n FROM "observation_rollup" r WHERE ((r."MonitoringLocationType" = CAST($1 AS VARCHAR)) AND (r."CharacteristicName" = CAST($2 AS VARCHAR)))`,
    );
    expect(byType.params).toEqual(['Lake', 'pH']);
  });

  it('counts from the statistics table, joining locations only when needed, once a location dimension appears', () => {
    const q = compileCount(count('Records', "$count=true&$filter=MonitoringLocationType eq 'Lake' and LocationId eq 4"));
    expect(q.sql).toBe(
      `SELECT COALESCE(SUM(s."n"), 0)::BIGINT AS n FROM "observation_stats" s JOIN "locations" l ON l."Id" = s."LocationId" WHERE ((l."MonitoringLocationType" = CAST($1 AS VARCHAR)) AND (s."LocationId" = CAST($2 AS BIGINT)))`,
    );
    expect(compileCount(count('Records', "$count=true&$filter=RegionId eq 'x' and LocationId eq 4")).sql).toContain('FROM "observation_stats" s WHERE ((s."LocationId" IN');
  });

  it('counts one region from the region rollup, with the region as a plain column', () => {
    const q = compileCount(count('Records', "$count=true&$filter=CharacteristicName eq 'pH' and RegionId eq 'admin.4.ca.mb' and MonitoringLocationType eq 'Lake'"));
    expect(q.sql).toBe(
      `SELECT COALESCE(SUM(r."n"), 0)::BIGINT AS n FROM "observation_region_rollup" r WHERE (((r."CharacteristicName" = CAST($1 AS VARCHAR)) AND (r."RegionId" = CAST($2 AS VARCHAR))) AND (r."MonitoringLocationType" = CAST($3 AS VARCHAR)))`,
    );
    expect(q.params).toEqual(['pH', 'admin.4.ca.mb', 'Lake']);
  });

  // A location lies in several regions (the country, its province, hubs): the region rollup counts it once per
  // region, right for one region and wrong for any filter that several regions can satisfy.
  it.each([
    "RegionId in ('admin.4.ca.ab','hub.pacific')",
    "RegionId in ('admin.4.ca.ab')",
    "RegionId ne 'admin.4.ca.ab'",
    "startswith(RegionId, 'admin.4')",
    "RegionId eq 'admin.2.ca' and RegionId eq 'hub.pacific'",
    "RegionId eq 'admin.2.ca' or CharacteristicName eq 'pH'",
  ])('counts %s from the statistics table', (filter) => {
    expect(compileCount(count('Observations', `$count=true&$filter=${filter}`)).sql).toContain('FROM "observation_stats" s');
  });

  it('counts a value or date filter from the observations: no statistics table holds either', () => {
    const q = compileCount(count('Records', "$count=true&$filter=CharacteristicName eq 'pH' and ResultValue gt 9 and RegionId eq 'admin.2.ca'"));
    expect(q.sql).toBe(
      `SELECT COALESCE(count(*), 0)::BIGINT AS n FROM "observations" o WHERE (((o."CharacteristicName" = CAST($1 AS VARCHAR)) AND (o."ResultValue" > CAST($2 AS DOUBLE))) AND (o."LocationId" IN (SELECT "LocationId" FROM "location_regions" WHERE "RegionId" = CAST($3 AS VARCHAR))))`,
    );
    expect(q.params).toEqual(['pH', 9, 'admin.2.ca']);
    expect(compileCount(count('Observations', '$count=true&$filter=ActivityStartDate lt 2020-01-01')).sql).toBe(
      `SELECT COALESCE(count(*), 0)::BIGINT AS n FROM "observations" o WHERE (o."ActivityStartDate" < CAST($1 AS DATE))`,
    );
    // The same filter on a coarser resource: its own table, with EXISTS over the observations.
    expect(compileCount(count('Locations', '$count=true&$filter=ResultValue gt 9')).sql).toBe(
      `SELECT count(*)::BIGINT AS n FROM "locations" t WHERE EXISTS (SELECT 1 FROM "observations" o WHERE o."LocationId" = t."Id" AND (o."ResultValue" > CAST($1 AS DOUBLE)))`,
    );
  });

  it('counts Locations by a finer field as distinct locations of the statistics table; with a location field, by EXISTS', () => {
    const fine = compileCount(count('Locations', "$count=true&$filter=CharacteristicName eq 'pH' and RegionId eq 'x'"));
    expect(fine.sql).toBe(
      `SELECT count(DISTINCT s."LocationId")::BIGINT AS n FROM "observation_stats" s WHERE ((s."CharacteristicName" = CAST($1 AS VARCHAR)) AND (s."LocationId" IN (SELECT "LocationId" FROM "location_regions" WHERE "RegionId" = CAST($2 AS VARCHAR))))`,
    );
    expect(fine.params).toEqual(['pH', 'x']);
    expect(compileCount(count('Locations', "$count=true&$filter=CharacteristicName eq 'pH' and MonitoringLocationType eq 'Lake'")).sql).toContain('WHERE EXISTS (SELECT 1 FROM "observation_stats" s');
    expect(compileCount(count('Locations', "$count=true&$filter=LocationId eq 3")).sql).toBe(`SELECT count(*)::BIGINT AS n FROM "locations" t WHERE (t."Id" = CAST($1 AS BIGINT))`);
  });
});

describe('compileCount: every filter shape runs on the fixture file', () => {
  it.each(FILTER_SHAPES)('%s ? %s', async (resource, qs) => {
    const rows = await run(fixture(), compileCount(count(resource, `${qs.replace(/&\$skiptoken=[^&]*/, '')}&$count=true`)));
    expect(rows).toHaveLength(1);
  });
});

describe('compileCount: the $count door\'s statistics', () => {
  // The fact a count sums or counts is the resource's own table or one of the statistics its declaration names
  // (schemas/catalogue.ts): a count that read another table would contradict what $metadata and describe say.
  const filters = ['$count=true', "$count=true&$filter=CharacteristicName eq 'pH'", "$count=true&$filter=RegionId eq 'hub.pacific'", '$count=true&$filter=LocationId eq 4', '$count=true&$filter=ActivityStartYear ge 2015'];
  it.each(resources.map((r) => [r.name, r] as const))('%s counts from its table or its declared statistics', (name, r) => {
    const takes = (qs: string) => [...qs.matchAll(/(\w+) (?:eq|ge) /g)].every((m) => r.filterable.includes(m[1]!));
    for (const qs of [...filters.filter(takes), ...FILTER_SHAPES.filter(([n]) => n === name).map(([, f]) => `$count=true&${f.replace(/&\$skiptoken=.*/, '')}`)]) {
      const q = count(name, qs);
      const fact = /^SELECT .*? FROM "([a-z_]+)"/.exec(compileCount(q).sql)?.[1];
      expect([qs, [r.table, ...r.count.statistics]], qs).toEqual([qs, expect.arrayContaining([fact])]);
    }
  });
});
