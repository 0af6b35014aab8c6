/**
 * The dataset search's query (issue 56 item 4): golden SQL and parameters, then the same SQL on the published fixture
 * file against a search written here from its definition over the raw datasets and locations (every word a part of
 * the name, abstract, keywords or organisations, case aside; ranked 4 per word in the name, 2 in the keywords, 1 in
 * the organisations, then by DOI; the box of the dataset's locations). Hostile words reach the SQL only as parameters.
 */
import { describe, expect, it } from 'vitest';
import { compileSearch } from './compile-search.js';
import { count, run, useFixture } from '../testing/plans.js';

const fixture = useFixture();

interface Dataset {
  readonly DOI: string;
  readonly name: string;
  readonly abstract: string;
  readonly keywords: readonly string[];
  readonly orgs: readonly string[];
  readonly box: readonly number[] | null;
}

async function datasets(): Promise<Dataset[]> {
  const rows = await run(fixture(), {
    sql: `SELECT d."DOI", d."DatasetName", d."Abstract", to_json(d."Keywords")::VARCHAR AS kw, d."DataCollectionOrganization" AS a, d."DataUploadOrganization" AS b,
      min(l."Longitude") AS w, min(l."Latitude") AS s, max(l."Longitude") AS e, max(l."Latitude") AS n
      FROM datasets d LEFT JOIN locations l ON l."DOI" = d."DOI" GROUP BY ALL`,
    params: [],
  });
  return rows.map((r) => ({
    DOI: String(r['DOI']),
    name: String(r['DatasetName'] ?? ''),
    abstract: String(r['Abstract'] ?? ''),
    keywords: r['kw'] === null ? [] : (JSON.parse(String(r['kw'])) as string[]),
    orgs: [r['a'], r['b']].filter((o) => o !== null).map(String),
    box: r['w'] === null ? null : [r['w'], r['s'], r['e'], r['n']].map(Number),
  }));
}

/** The search by its definition. */
function oracle(all: readonly Dataset[], words: readonly string[]): { DOI: string; score: number }[] {
  const has = (texts: readonly string[], w: string) => texts.some((t) => t.toLowerCase().includes(w.toLowerCase()));
  return all
    .filter((d) => words.every((w) => has([d.name, d.abstract, ...d.keywords, ...d.orgs], w)))
    .map((d) => ({ DOI: d.DOI, score: words.reduce((n, w) => n + (has([d.name], w) ? 4 : 0) + (has(d.keywords, w) ? 2 : 0) + (has(d.orgs, w) ? 1 : 0), 0) }))
    .sort((a, b) => b.score - a.score || (a.DOI < b.DOI ? -1 : a.DOI > b.DOI ? 1 : 0));
}

describe('compileSearch: golden SQL and parameters', () => {
  it('binds each word once, lower-cased by DuckDB; the limit is bound too', () => {
    const q = compileSearch(count('Metadata', '$count=true'), ['River', "x' OR 1=1 --"], 5);
    expect(q.params).toEqual(['River', "x' OR 1=1 --", 5]);
    expect(q.sql).not.toContain('River');
    expect(q.sql).not.toContain('OR 1=1');
    const w1 = 'lower(CAST($1 AS VARCHAR))';
    expect(q.sql).toBe(
      `SELECT CAST(t."Id" AS VARCHAR) AS "Id", t."DOI" AS "DOI", t."DatasetName" AS "DatasetName", t."Licence" AS "Licence", t."DataCollectionOrganization" AS "DataCollectionOrganization", ` +
        `t."DataUploadOrganization" AS "DataUploadOrganization", to_json(t."Keywords")::VARCHAR AS "Keywords", ` +
        `to_json(list_transform(t."TemporalExtent", d -> strftime(d, '%Y-%m-%d')))::VARCHAR AS "TemporalExtent", q."West" AS "West", q."South" AS "South", q."East" AS "East", q."North" AS "North", ` +
        `(CASE WHEN contains(q."NameText", ${w1}) THEN 4 ELSE 0 END + CASE WHEN contains(q."KeywordText", ${w1}) THEN 2 ELSE 0 END + CASE WHEN contains(q."OrganisationText", ${w1}) THEN 1 ELSE 0 END + ` +
        `CASE WHEN contains(q."NameText", lower(CAST($2 AS VARCHAR))) THEN 4 ELSE 0 END + CASE WHEN contains(q."KeywordText", lower(CAST($2 AS VARCHAR))) THEN 2 ELSE 0 END + CASE WHEN contains(q."OrganisationText", lower(CAST($2 AS VARCHAR))) THEN 1 ELSE 0 END)::INTEGER AS "Score", ` +
        `count(*) OVER ()::BIGINT AS "Matched" FROM "datasets" t JOIN "dataset_search" q ON q."DatasetId" = t."Id" ` +
        `WHERE contains(q."SearchText", ${w1}) AND contains(q."SearchText", lower(CAST($2 AS VARCHAR))) ORDER BY "Score" DESC, t."DOI" LIMIT CAST($3 AS BIGINT)`,
    );
  });

  it('only over Metadata', () => {
    expect(() => compileSearch(count('Locations', '$count=true'), [], 5)).toThrow(/Metadata/);
  });
});

describe('compileSearch on the fixture file, against the search written here', () => {
  it('every word of the cases: the same datasets in the same order, the same count and boxes', async () => {
    const all = await datasets();
    const nameWord = all[0]!.name.split(/\s+/).find((w) => w.length > 3)!;
    const keyword = all.flatMap((d) => d.keywords)[0] ?? 'river';
    const cases: string[][] = [[], [nameWord], [nameWord.toUpperCase()], [nameWord.slice(1, -1)], [keyword], [nameWord, keyword], ['zzzz-none'], ['%'], ['_'], ["'"]];
    for (const words of cases) {
      const expected = oracle(all, words);
      const rows = await run(fixture(), compileSearch(count('Metadata', '$count=true'), words, 1000));
      expect([words, rows.map((r) => [r['DOI'], Number(r['Score'])])]).toEqual([words, expected.map((e) => [e.DOI, e.score])]);
      if (rows.length) expect(Number(rows[0]!['Matched'])).toBe(expected.length);
      for (const r of rows) {
        const d = all.find((x) => x.DOI === r['DOI'])!;
        expect(d.box === null ? null : [r['West'], r['South'], r['East'], r['North']].map(Number)).toEqual(d.box);
      }
    }
  });

  it('the limit keeps the best ranked; Matched still counts every match', async () => {
    const all = await datasets();
    const rows = await run(fixture(), compileSearch(count('Metadata', '$count=true'), [], 2));
    expect(rows.map((r) => r['DOI'])).toEqual(oracle(all, []).slice(0, 2).map((e) => e.DOI));
    expect(Number(rows[0]!['Matched'])).toBe(all.length);
  });

  it('a Metadata $filter narrows as "has such an observation"', async () => {
    const withPh = (await run(fixture(), { sql: `SELECT DISTINCT "DOI" FROM observations WHERE "CharacteristicName" = 'pH' ORDER BY 1`, params: [] })).map((r) => r['DOI']);
    const rows = await run(fixture(), compileSearch(count('Metadata', "$count=true&$filter=CharacteristicName eq 'pH'"), [], 1000));
    expect(rows.map((r) => r['DOI']).sort()).toEqual(withPh);
  });
});
