import { describe, expect, it } from 'vitest';
import { compilePageIds, compilePageRows } from './compile-page.js';
import { FILTER_SHAPES, page, run, useFixture } from './test-support.js';

const fixture = useFixture();

describe('compilePageIds: golden SQL and parameters', () => {
  it.each([
    [
      'Observations',
      "$filter=CharacteristicName eq 'pH'&$top=10",
      `SELECT t."Id" FROM "observations" t WHERE (t."CharacteristicName" = CAST($1 AS VARCHAR)) LIMIT 11`,
      ['pH'],
    ],
    [
      'Observations',
      "$filter=LocationId eq '42' and ActivityStartYear ge 2015&$skiptoken=Id:1000",
      `SELECT t."Id" FROM "observations" t WHERE ((t."LocationId" = CAST($1 AS BIGINT)) AND (t."ActivityStartYear" >= CAST($2 AS BIGINT))) AND t."Id" > CAST($3 AS BIGINT) LIMIT 1001`,
      [42n, 2015n, 1000n],
    ],
    [
      'Records',
      "$filter=RegionId eq 'admin.4.ca.ab' and not (DOI in ('10.25976/aaaa-aa11','10.25976/bbbb-bb22'))",
      `SELECT t."Id" FROM "observations" t WHERE ((t."LocationId" IN (SELECT "LocationId" FROM "location_regions" WHERE "RegionId" = CAST($1 AS VARCHAR))) AND (NOT (t."DOI" IN (CAST($2 AS VARCHAR), CAST($3 AS VARCHAR))))) LIMIT 1001`,
      ['admin.4.ca.ab', '10.25976/aaaa-aa11', '10.25976/bbbb-bb22'],
    ],
    [
      'Locations',
      "$filter=CharacteristicName eq 'pH' and ActivityStartYear eq 2020",
      `SELECT t."Id" FROM "locations" t WHERE EXISTS (SELECT 1 FROM "observation_stats" s WHERE s."LocationId" = t."Id" AND ((s."CharacteristicName" = CAST($1 AS VARCHAR)) AND (s."ActivityStartYear" = CAST($2 AS BIGINT)))) ORDER BY t."Id" LIMIT 1001`,
      ['pH', 2020n],
    ],
    [
      'Metadata',
      "$filter=CreateTimestamp gt '2020-03-23' and Latitude gt 49",
      `SELECT t."Id" FROM "datasets" t WHERE EXISTS (SELECT 1 FROM "locations" l WHERE l."DOI" = t."DOI" AND ((t."CreateTimestamp" > CAST($1 AS TIMESTAMP)) AND (l."Latitude" > CAST($2 AS DOUBLE)))) ORDER BY t."Id" LIMIT 1001`,
      ['2020-03-23 00:00:00.000', 49],
    ],
    [
      'Observations',
      "$filter=CharacteristicName eq 'pH' and ResultValue gt 9 and ActivityStartDate ge 2020-06-01",
      `SELECT t."Id" FROM "observations" t WHERE (((t."CharacteristicName" = CAST($1 AS VARCHAR)) AND (t."ResultValue" > CAST($2 AS DOUBLE))) AND (t."ActivityStartDate" >= CAST($3 AS DATE))) LIMIT 1001`,
      ['pH', 9, '2020-06-01'],
    ],
    [
      'Locations',
      "$filter=CharacteristicName eq 'pH' and ResultValue gt 9",
      `SELECT t."Id" FROM "locations" t WHERE EXISTS (SELECT 1 FROM "observations" o WHERE o."LocationId" = t."Id" AND ((o."CharacteristicName" = CAST($1 AS VARCHAR)) AND (o."ResultValue" > CAST($2 AS DOUBLE)))) ORDER BY t."Id" LIMIT 1001`,
      ['pH', 9],
    ],
    [
      'Metadata',
      "$filter=ResultValue gt 9 and Latitude gt 49 and RegionId eq 'admin.2.ca'",
      `SELECT t."Id" FROM "datasets" t WHERE EXISTS (SELECT 1 FROM "observations" o JOIN "locations" l ON l."Id" = o."LocationId" WHERE o."DOI" = t."DOI" AND (((o."ResultValue" > CAST($1 AS DOUBLE)) AND (l."Latitude" > CAST($2 AS DOUBLE))) AND (o."LocationId" IN (SELECT "LocationId" FROM "location_regions" WHERE "RegionId" = CAST($3 AS VARCHAR))))) ORDER BY t."Id" LIMIT 1001`,
      [9, 49, 'admin.2.ca'],
    ],
    [
      // Under `not`, a comparison with a null value must be false rather than unknown, or NOT would drop the row.
      'Records',
      '$filter=not (ResultValue gt 9) and ResultValue lt 20',
      `SELECT t."Id" FROM "observations" t WHERE ((NOT COALESCE(t."ResultValue" > CAST($1 AS DOUBLE), false)) AND (t."ResultValue" < CAST($2 AS DOUBLE))) LIMIT 1001`,
      [9, 20],
    ],
  ])('%s ? %s', (resource, qs, sql, params) => {
    const compiled = compilePageIds(page(resource, qs));
    expect(compiled.sql).toBe(sql);
    expect(compiled.params).toEqual(params);
  });
});

describe('compilePageIds and compilePageRows: every filter shape runs on the fixture file', () => {
  it.each(FILTER_SHAPES)('%s ? %s', async (resource, qs) => {
    const p = page(resource, qs);
    await run(fixture(), compilePageIds(p));
    const key = p.resource.table === 'datasets' ? '0b8e9c56-8a2f-4a8a-9a55-1f2d3c4b5a69' : 1n;
    for (const format of ['json', 'csv', 'arrow'] as const) await run(fixture(), compilePageRows(p, { first: key, last: key }, format));
  });
});
