/**
 * One planner, one compiler: a CQL2 filter and the `$filter` that says the same thing parse to equal trees (offsets
 * aside), plan and compile to the identical `{sql, params}`, and count the same rows of the published fixture file.
 */
import { describe, expect, it } from 'vitest';
import { getResource } from '../../../schemas/index.js';
import type { Expr } from '../odata/ast.js';
import { parseFilter } from '../odata/parse-filter.js';
import { compileCount } from '../query/compile-count.js';
import { compilePageIds } from '../query/compile-page.js';
import { planQuery, type CountPlan, type PagePlan } from '../query/plan.js';
import { stripOffsets } from '../testing/odata-ast.js';
import { run, useFixture } from '../testing/plans.js';
import { parseCql2Text } from './parse-cql2.js';

const fixture = useFixture();

// [resource, CQL2-Text, the equivalent $filter]; every pair matches rows of the fixture file, so no count is vacuous.
const PAIRS: readonly (readonly [resource: string, cql2: string, odata: string])[] = [
  ['Observations', "CharacteristicName = 'pH'", "CharacteristicName eq 'pH'"],
  ['Observations', "CharacteristicName IN ('pH', 'Temperature, water') AND ResultValue > 9", "CharacteristicName in ('pH','Temperature, water') and ResultValue gt 9"],
  ['Observations', "NOT (ActivityStartYear < 2015) OR MonitoringLocationType <> 'Lake/Pond'", "not (ActivityStartYear lt 2015) or MonitoringLocationType ne 'Lake/Pond'"],
  ['Observations', '2015 <= ActivityStartYear', '2015 le ActivityStartYear'],
  ['Observations', 'ResultValue IS NULL', 'ResultValue eq null'],
  ['Observations', "ResultValue IS NOT NULL AND CharacteristicName NOT IN ('pH')", "ResultValue ne null and not (CharacteristicName in ('pH'))"],
  ['Observations', 'ResultValue BETWEEN 5 AND 10.5', 'ResultValue ge 5 and ResultValue le 10.5'],
  ['Observations', 'ResultValue NOT BETWEEN -1 AND 10.5', 'not (ResultValue ge -1 and ResultValue le 10.5)'],
  ['Observations', "ActivityStartDate >= DATE('2020-06-01') AND ActivityStartDate < DATE('2021-01-01')", 'ActivityStartDate ge 2020-06-01 and ActivityStartDate lt 2021-01-01'],
  ['Observations', "CharacteristicName LIKE 'Total%' OR CharacteristicName LIKE '%(DO)'", "startswith(CharacteristicName, 'Total') or endswith(CharacteristicName, '(DO)')"],
  ['Observations', "CharacteristicName NOT LIKE '%water%'", "not contains(CharacteristicName, 'water')"],
  ['Records', "RegionId = 'hub.pacific' AND \"MonitoringLocationType\" = 'River/Stream'", "RegionId eq 'hub.pacific' and MonitoringLocationType eq 'River/Stream'"],
  ['Records', "ActivityStartYear IN (2019, 2020) and not CharacteristicName = 'pH'", "ActivityStartYear in (2019, 2020) and not CharacteristicName eq 'pH'"],
  ['Locations', 'S_INTERSECTS(geometry, BBOX(-80, 44, -78, 46))', '(Latitude ge 44 and Latitude le 46) and (Longitude ge -80 and Longitude le -78)'],
  ['Locations', "Name LIKE 'Lake%' AND S_INTERSECTS(BBOX(-80.5, 44, -78, 45.5), geometry)", "startswith(Name, 'Lake') and ((Latitude ge 44 and Latitude le 45.5) and (Longitude ge -80.5 and Longitude le -78))"],
  ['Locations', 'S_INTERSECTS(geometry, POINT(-79.27708 45.24093))', '(Latitude ge 45.24093 and Latitude le 45.24093) and (Longitude ge -79.27708 and Longitude le -79.27708)'],
  ['Locations', 'S_INTERSECTS(geometry, BBOX(170, 40, -100, 60))', '(Latitude ge 40 and Latitude le 60) and (Longitude ge 170 or Longitude le -100)'],
  ['Metadata', "DatasetName LIKE '%Lakes%' AND CreateTimestamp >= TIMESTAMP('2020-01-01T00:00:00Z')", "contains(DatasetName, 'Lakes') and CreateTimestamp ge 2020-01-01T00:00:00Z"],
  ['Metadata', "CharacteristicName = 'pH' AND S_INTERSECTS(geometry, BBOX(-125, 48, -60, 60))", "CharacteristicName eq 'pH' and ((Latitude ge 48 and Latitude le 60) and (Longitude ge -125 and Longitude le -60))"],
];

function plans(resource: string, filter: Expr): { page: PagePlan; count: CountPlan } {
  const def = getResource(resource)!;
  return {
    page: planQuery({ filter, count: false, otherParams: [] }, def) as PagePlan,
    count: planQuery({ filter, count: true, otherParams: [] }, def) as CountPlan,
  };
}

describe('CQL2-Text and $filter: one tree, one plan, one SQL', () => {
  it.each(PAIRS)('%s: %s', async (resource, cql2, odata) => {
    const fromCql2 = parseCql2Text(cql2);
    const fromOData = parseFilter(odata);
    expect(stripOffsets(fromCql2)).toEqual(stripOffsets(fromOData));

    const a = plans(resource, fromCql2);
    const b = plans(resource, fromOData);
    expect(compilePageIds(a.page)).toEqual(compilePageIds(b.page));
    expect(compileCount(a.count)).toEqual(compileCount(b.count));

    const [countA, countB] = await Promise.all([run(fixture(), compileCount(a.count)), run(fixture(), compileCount(b.count))]);
    expect(countA).toEqual(countB);
    expect(Number(countA[0]?.n)).toBeGreaterThan(0);
    const ids = await run(fixture(), compilePageIds(a.page));
    // The page query asks for one row more than the page, to know whether there is a next page.
    expect(ids.length).toBe(Math.min(Number(countA[0]?.n), a.page.top + 1));
  });
});

describe('CQL2-Text: the planner’s errors point into the CQL2 text', () => {
  it.each([
    ['Locations', "CharacteristicName = 'pH' AND Nope = 1", 'unknown_field', 30],
    ['Observations', "CharacteristicName = 'pH' OR S_INTERSECTS(geometry, BBOX(0, 0, 1, 1))", 'not_filterable', 29],
    ['Locations', "LocationId IN (1, 'x')", 'invalid_value', 0],
    ['Metadata', "ActivityStartDate >= TIMESTAMP('2020-01-01T00:00:00Z')", 'invalid_value', 0],
  ])('%s: %s → %s at %i', (resource, cql2, code, offset) => {
    const filter = parseCql2Text(cql2);
    expect(() => planQuery({ filter, count: false, otherParams: [] }, getResource(resource)!)).toThrow(expect.objectContaining({ code, offset }));
  });
});
