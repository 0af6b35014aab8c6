/**
 * The extent query: exact SQL, then the same SQL text run on the published fixture file, where it gives the
 * bounding box of the locations and the first and last dates the datasets' observations have.
 */
import { describe, expect, it } from 'vitest';
import { compileExtent } from './compile-extent.js';
import { run, useFixture } from '../testing/plans.js';

const fixture = useFixture();

const SQL =
  `SELECT (SELECT min(l."Longitude") FROM "locations" l) AS west, (SELECT min(l."Latitude") FROM "locations" l) AS south, ` +
  `(SELECT max(l."Longitude") FROM "locations" l) AS east, (SELECT max(l."Latitude") FROM "locations" l) AS north, ` +
  `(SELECT strftime(min(list_min(d."TemporalExtent")), '%Y-%m-%d') FROM "datasets" d) AS first_date, ` +
  `(SELECT strftime(max(list_max(d."TemporalExtent")), '%Y-%m-%d') FROM "datasets" d) AS last_date`;

describe('compileExtent', () => {
  it('golden SQL and parameters', () => {
    expect(compileExtent()).toEqual({ sql: SQL, params: [] });
  });

  it('on the fixture file: the locations’ box and the observations’ first and last dates', async () => {
    const [extent] = await run(fixture(), compileExtent());
    const [truth] = await run(fixture(), {
      sql: `SELECT (SELECT min("Longitude") FROM locations) AS west, (SELECT max("Latitude") FROM locations) AS north,
              (SELECT strftime(min("ActivityStartDate"), '%Y-%m-%d') FROM observations) AS first_date,
              (SELECT strftime(max("ActivityStartDate"), '%Y-%m-%d') FROM observations) AS last_date`,
      params: [],
    });
    expect(extent).toMatchObject(truth!);
    expect(Number(extent!['west'])).toBeLessThan(Number(extent!['east']));
    expect(Number(extent!['south'])).toBeLessThan(Number(extent!['north']));
    expect(String(extent!['first_date'])).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
