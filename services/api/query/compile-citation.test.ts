/**
 * A citation's queries: golden SQL, then the same SQL on the fixture file, where each resource's rows per DOI must
 * equal what plain SQL on its own table counts; and the plan: `$apply` grouping by DOI on the observations.
 */
import { describe, expect, it } from 'vitest';
import { getResource } from '../../../schemas/index.js';
import { parseQuery } from '../odata/index.js';
import { compileApply } from './compile-apply.js';
import { compileCountByDataset, compileDatasetCitations } from './compile-citation.js';
import { planCitation } from './plan-citation.js';
import { count, FILTER_SHAPES, run, useFixture } from '../testing/plans.js';

const fixture = useFixture();
const cite = (resource: string, qs: string) => planCitation(parseQuery(qs.replace(/'/g, '%27').replace(/ /g, '%20')), getResource(resource)!);

describe('planCitation', () => {
  it('counts Records and Observations per DOI with the $apply plan, $apply’s filter joined to $filter', () => {
    const plan = cite('Records', "$filter=CharacteristicName eq 'pH'&$apply=filter(ActivityStartYear ge 2020)/groupby((LocationId),aggregate($count as N))&$top=3");
    expect(plan.counts.kind).toBe('apply');
    if (plan.counts.kind !== 'apply') return;
    expect(plan.counts.groupBy.map((d) => d.name)).toEqual(['DOI']);
    expect(plan.counts.top).toBe(1000);
    expect(plan.filter?.kind).toBe('and');
    expect(compileApply(plan.counts).sql).toMatch(/^SELECT r\."DOI" AS g0, SUM\(r\."n"\)::BIGINT AS a0 FROM "observation_rollup" r WHERE/);
  });

  it('counts Locations and Metadata per dataset; their $apply is refused as the collection refuses it', () => {
    expect(cite('Locations', "$filter=Name eq 'x'").counts.kind).toBe('count');
    expect(() => cite('Metadata', '$apply=groupby((DOI),aggregate($count as N))')).toThrow(/give the filter as \$filter/);
  });
});

describe('compile-citation: golden SQL', () => {
  it('compileDatasetCitations reads the citation fields of every dataset', () => {
    const q = compileDatasetCitations();
    expect(q.params).toEqual([]);
    expect(q.sql).toBe(
      'SELECT d."DOI" AS "DOI", d."Version" AS "Version", d."DatasetName" AS "DatasetName", d."Citation" AS "Citation", d."Licence" AS "Licence", ' +
        'd."DataCollectionOrganization" AS "DataCollectionOrganization", d."DataUploadOrganization" AS "DataUploadOrganization", ' +
        'd."DataStewardEmail" AS "DataStewardEmail", d."DataSourceURL" AS "DataSourceURL", ' +
        `strftime(d."PublishedTimestamp", '%Y-%m-%dT%H:%M:%SZ') AS "PublishedTimestamp", strftime(d."CreateTimestamp", '%Y-%m-%dT%H:%M:%SZ') AS "CreateTimestamp" ` +
        'FROM "datasets" d ORDER BY d."DOI"',
    );
  });

  it('compileCountByDataset groups the resource’s own table under the WHERE of its count', () => {
    expect(compileCountByDataset(count('Locations', "$count=true&$filter=Name eq 'x'"))).toEqual({
      sql: 'SELECT t."DOI" AS g0, count(*)::BIGINT AS n FROM "locations" t WHERE (t."Name" = CAST($1 AS VARCHAR)) GROUP BY g0 ORDER BY g0',
      params: ['x'],
    });
    expect(() => compileCountByDataset(count('Records', '$count=true'))).toThrow(/\$apply/);
  });
});

describe('compile-citation on the fixture file', () => {
  it('every dataset’s citation fields, timestamps as UTC text', async () => {
    const rows = await run(fixture(), compileDatasetCitations());
    const n = await run(fixture(), { sql: 'SELECT count(*)::INTEGER AS n FROM datasets', params: [] });
    expect(rows).toHaveLength(Number(n[0]!['n']));
    expect(rows.some((r) => typeof r['Citation'] === 'string' && String(r['Citation']).includes('https://doi.org/'))).toBe(true);
    for (const r of rows) if (r['PublishedTimestamp'] !== null) expect(String(r['PublishedTimestamp'])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('Locations per DOI as plain SQL counts them', async () => {
    const got = await run(fixture(), compileCountByDataset(count('Locations', "$count=true&$filter=CharacteristicName eq 'pH'")));
    const want = await run(fixture(), {
      sql: `SELECT DOI AS g0, count(*)::BIGINT AS n FROM locations WHERE Id IN (SELECT LocationId FROM observations WHERE CharacteristicName = 'pH') GROUP BY DOI ORDER BY DOI`,
      params: [],
    });
    expect(want.length).toBeGreaterThan(1);
    expect(got).toEqual(want);
  });

  it.each(FILTER_SHAPES.filter(([r]) => r === 'Locations' || r === 'Metadata'))('%s ? %s runs', async (resource, qs) => {
    await run(fixture(), compileCountByDataset(count(resource, `${qs.replace(/&\$skiptoken=[^&]*/, '')}&$count=true`)));
  });
});
