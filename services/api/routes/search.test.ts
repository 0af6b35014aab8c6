/**
 * GET /v1/search/datasets over HTTP (issue 56 item 4): what MCP's search_datasets reads instead of the whole Metadata
 * page and DCAT catalogue per call. Its answer is the index's (compile-search.test.ts holds the query to a search
 * written from its definition); here: the request's options and their errors, the pinned publication, and the cost
 * of a page (the rows budget, by the datasets listed). That it waits for a query slot is route-table.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { acquirer, openDatabase, type Database } from '../db/database.js';

let db: Database;
beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
});
afterAll(() => db.close());

const PATH = '/v1/search/datasets';
const url = (params: Record<string, string>) => `${PATH}?${new URLSearchParams(params).toString().replaceAll('+', '%20')}`;

interface Answer {
  publication: string;
  text: string;
  filter: string | null;
  matched: number;
  value: { DOI: string; DatasetName: string; Bbox: number[] | null; TemporalExtent: string[] | null; Keywords: string[] | null; Score: number }[];
}

describe('GET /v1/search/datasets', () => {
  it('answers the ranked datasets with the publication it read, which pins the same answer', async () => {
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: false } });
    const all = (await (await app.request(url({}))).json()) as Answer;
    expect(all.matched).toBeGreaterThan(1);
    expect(all.value).toHaveLength(all.matched);
    const word = all.value[0]!.DatasetName.split(/\s+/).find((w) => w.length > 3)!;
    const res = await app.request(url({ text: word.toUpperCase(), $filter: "CharacteristicName eq 'pH'", $top: '3' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const answer = (await res.json()) as Answer;
    expect(answer).toMatchObject({ text: word.toUpperCase(), filter: "CharacteristicName eq 'pH'" });
    expect(answer.publication).toBe(res.headers.get('tributary-publication'));
    expect(answer.value.length).toBeLessThanOrEqual(3);
    expect(answer.value.every((d) => d.Score >= 4)).toBe(true);
    const pinned = await app.request(url({ text: word.toUpperCase(), $filter: "CharacteristicName eq 'pH'", $top: '3', publication: answer.publication }));
    expect(await pinned.json()).toEqual(answer);
  });

  it.each([
    [{ $select: 'DOI' }, 'unsupported_option', '$select'],
    [{ $count: 'true' }, 'unsupported_option', '$count'],
    [{ $top: '0' }, 'invalid_top', '$top'],
    [{ $top: '1001' }, 'invalid_top', '$top'],
    [{ text: Array.from({ length: 33 }, (_, i) => `w${i}`).join(' ') }, 'invalid_parameter', 'text'],
    [{ text: 'x'.repeat(501) }, 'invalid_parameter', 'text'],
    [{ $filter: 'Bogus eq 1' }, 'unknown_field', '$filter'],
  ] as const)('%j is a 400 %s naming %s', async (params, code, parameter) => {
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: false } });
    const res = await app.request(url(params));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: unknown[] }).errors[0]).toMatchObject({ code, source: { parameter } });
  });

  it('text given twice is a 400; a search is read-only (405 naming GET)', async () => {
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: false } });
    const twice = await app.request(`${PATH}?text=a&text=b`);
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('duplicate_option');
    const post = await app.request(PATH, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('costs the rows budget as a page does: the datasets it lists', async () => {
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: false }, access: { rateLimit: { rps: 0.001, burst: 1000, minRows: 1, now: () => 0 } } });
    const res = await app.request(url({ $top: '5' }));
    const listed = ((await res.json()) as Answer).value.length;
    expect(listed).toBe(5);
    expect(res.headers.get('ratelimit-remaining')).toBe(String(1000 - listed));
  });
});
