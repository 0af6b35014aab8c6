/**
 * The landing pages' queries: golden SQL and parameters, then the same SQL on the published fixture file against
 * what the raw tables say (the statistics' counts against the observations themselves), and a hostile DOI that
 * reaches the SQL only as a parameter.
 */
import { describe, expect, it } from 'vitest';
import {
  compileDatasetCharacteristics, compileDatasetLocations, compileLandingDatasets, compileLocation, compileLocationCharacteristics,
  compileLocationDates, compileLocationSlice, compileLocationWindow,
} from './compile-landing.js';
import { run, useFixture } from '../testing/plans.js';

const fixture = useFixture();
const LOCATION = `SELECT l."Id", l."DOI", l."MonitoringLocationID", l."Name", l."Latitude", l."Longitude", l."HorizontalCoordinateReferenceSystem", l."MonitoringLocationType", l."first_obs_id", l."last_obs_id" FROM "locations" l`;
const sql = (q: string) => run(fixture(), { sql: q, params: [] });

describe('the landing pages’ queries: golden SQL and parameters', () => {
  it.each([
    ['compileLocation', compileLocation(3n), `${LOCATION} WHERE l."Id" = CAST($1 AS BIGINT)`, [3n]],
    ['compileDatasetLocations', compileDatasetLocations("10.1/x' OR 1=1 --", 5), `${LOCATION} WHERE l."DOI" = CAST($1 AS VARCHAR) ORDER BY l."Id" LIMIT CAST($2 AS BIGINT)`, ["10.1/x' OR 1=1 --", 5]],
    ['compileLocationWindow', compileLocationWindow(7n, 2), `${LOCATION} WHERE l."Id" > CAST($1 AS BIGINT) ORDER BY l."Id" LIMIT CAST($2 AS BIGINT)`, [7n, 2]],
    ['compileLocationSlice', compileLocationSlice(4, 3), `SELECT l."Id", l."DOI" FROM "locations" l ORDER BY l."Id" LIMIT CAST($1 AS BIGINT) OFFSET CAST($2 AS BIGINT)`, [3, 4]],
    [
      'compileLocationCharacteristics', compileLocationCharacteristics(1n, 9n),
      `SELECT s."LocationId", s."CharacteristicName", sum(s."n")::BIGINT AS "n" FROM "observation_stats" s WHERE s."LocationId" BETWEEN CAST($1 AS BIGINT) AND CAST($2 AS BIGINT) GROUP BY s."LocationId", s."CharacteristicName" ORDER BY s."LocationId", s."CharacteristicName"`,
      [1n, 9n],
    ],
    [
      'compileLocationDates', compileLocationDates(10n, 20n),
      `SELECT strftime(min(o."ActivityStartDate"), '%Y-%m-%d') AS "first_date", strftime(max(o."ActivityStartDate"), '%Y-%m-%d') AS "last_date" FROM "observations" o WHERE o."Id" BETWEEN CAST($1 AS BIGINT) AND CAST($2 AS BIGINT)`,
      [10n, 20n],
    ],
    [
      'compileDatasetCharacteristics', compileDatasetCharacteristics(),
      `SELECT r."DOI", r."CharacteristicName", sum(r."n")::BIGINT AS "n" FROM "observation_rollup" r GROUP BY r."DOI", r."CharacteristicName" ORDER BY r."DOI", r."CharacteristicName"`,
      [],
    ],
  ] as const)('%s', (_, compiled, expectedSql, params) => {
    expect(compiled).toEqual({ sql: expectedSql, params });
  });

  it('compileLandingDatasets reads the locations’ extent per dataset beside the metadata, with no parameter', () => {
    const q = compileLandingDatasets();
    expect(q.params).toEqual([]);
    expect(q.sql).toContain(`FROM "datasets" d LEFT JOIN (SELECT l."DOI", count(*) AS "locations", min(l."Longitude") AS "west"`);
    expect(q.sql).toContain(`to_json(d."Keywords")::VARCHAR AS "Keywords"`);
    expect(q.sql.endsWith(`g ON g."DOI" = d."DOI" ORDER BY d."DOI"`)).toBe(true);
  });
});

describe('the landing pages’ queries on the fixture file', () => {
  it('compileLandingDatasets: every dataset with its locations’ count and box', async () => {
    const got = await run(fixture(), compileLandingDatasets());
    const want = await sql(`SELECT d."DOI", count(l."Id") AS n, min(l."Longitude") AS w, max(l."Latitude") AS nth FROM datasets d LEFT JOIN locations l ON l."DOI" = d."DOI" GROUP BY d."DOI" ORDER BY d."DOI"`);
    expect(got.map((r) => [r['DOI'], Number(r['locations']), r['west'], r['north']])).toEqual(want.map((r) => [r['DOI'], Number(r['n']), r['w'], r['nth']]));
    expect(JSON.parse(String(got[0]!['TemporalExtent']))).toHaveLength(2);
  });

  it('compileDatasetCharacteristics and compileLocationCharacteristics: the statistics’ counts are the observations’', async () => {
    const perDataset = await run(fixture(), compileDatasetCharacteristics());
    const raw = await sql(`SELECT "DOI", "CharacteristicName", count(*) AS n FROM observations GROUP BY ALL ORDER BY 1, 2`);
    expect(perDataset.map((r) => [r['DOI'], r['CharacteristicName'], Number(r['n'])])).toEqual(raw.map((r) => [r['DOI'], r['CharacteristicName'], Number(r['n'])]));
    const perLocation = await run(fixture(), compileLocationCharacteristics(1n, 10n));
    const rawLocation = await sql(`SELECT "LocationId", "CharacteristicName", count(*) AS n FROM observations WHERE "LocationId" BETWEEN 1 AND 10 GROUP BY ALL ORDER BY 1, 2`);
    expect(perLocation.map((r) => [Number(r['LocationId']), r['CharacteristicName'], Number(r['n'])])).toEqual(rawLocation.map((r) => [Number(r['LocationId']), r['CharacteristicName'], Number(r['n'])]));
  });

  it('compileLocationDates: a location’s first and last date from its Id range', async () => {
    const [loc] = await run(fixture(), compileLocation(2n));
    const [dates] = await run(fixture(), compileLocationDates(loc!['first_obs_id'] as bigint, loc!['last_obs_id'] as bigint));
    const [want] = await sql(`SELECT strftime(min("ActivityStartDate"), '%Y-%m-%d') AS f, strftime(max("ActivityStartDate"), '%Y-%m-%d') AS l FROM observations WHERE "LocationId" = 2`);
    expect([dates!['first_date'], dates!['last_date']]).toEqual([want!['f'], want!['l']]);
  });

  it('compileLocationWindow and compileLocationSlice walk every location once, in Id order', async () => {
    const all = (await sql(`SELECT "Id" FROM locations ORDER BY "Id"`)).map((r) => r['Id']);
    const walked: unknown[] = [];
    for (let after = 0n; ; ) {
      const window = await run(fixture(), compileLocationWindow(after, 7));
      walked.push(...window.map((r) => r['Id']));
      if (window.length < 7) break;
      after = window.at(-1)!['Id'] as bigint;
    }
    expect(walked).toEqual(all);
    const sliced = [...(await run(fixture(), compileLocationSlice(0, 25))), ...(await run(fixture(), compileLocationSlice(25, 1000)))].map((r) => r['Id']);
    expect(sliced).toEqual(all);
  });

  it('a hostile DOI finds nothing and never reaches the SQL text', async () => {
    const hostile = `10.1/x' OR '1'='1`;
    const q = compileDatasetLocations(hostile, 10);
    expect(q.sql).not.toContain(hostile);
    expect(await run(fixture(), q)).toEqual([]);
  });
});
