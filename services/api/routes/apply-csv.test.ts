/**
 * `$apply` with `$format=csv` (issue 56 item 5): it answered JSON in place of the CSV asked for. Its groups as CSV,
 * read by pandas (as a DataStream client in Python reads a CSV page), are the JSON answer's groups, page by page
 * through the Link header's next links; Arrow, which has no form for groups, is a 400 naming `$format`.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

let fixture: FixtureApp;
beforeAll(async () => {
  fixture = await openFixtureApp(inject('apiFixtureDb'));
});
afterAll(() => fixture.close());

const BASE = '/v1/odata/v4';
const APPLY = "filter(ActivityStartYear ge 2015)/groupby((CharacteristicName,LocationId),aggregate($count as N,ResultValue with min as Low))";
const query = (more: Record<string, string>) => `${BASE}/Observations?${new URLSearchParams({ $apply: APPLY, $top: '40', ...more }).toString().replaceAll('+', '%20')}`;
const nextOf = (link: string | null) => /<([^>]+)>; rel="next"/.exec(link ?? '')?.[1];
const local = (url: string) => new URL(url).pathname + new URL(url).search;

const PANDAS = `
import io, json, sys
import pandas as pd
df = pd.read_csv(io.StringIO(sys.stdin.read()), dtype={'CharacteristicName': str})
print(json.dumps({'columns': list(df.columns), 'types': {c: str(t) for c, t in df.dtypes.items()}, 'rows': df.astype(object).where(df.notna(), None).to_dict('records')}))
`;

describe('$apply as CSV', () => {
  it('$format=csv pages the JSON answer’s groups as CSV, with $format=csv in every next link', async () => {
    const json: Record<string, unknown>[] = [];
    for (let next: string | undefined = query({}); next; ) {
      const res = await fixture.app.request(next);
      const body = (await res.json()) as { value: Record<string, unknown>[]; '@odata.nextLink'?: string };
      json.push(...body.value);
      next = body['@odata.nextLink'] ? local(body['@odata.nextLink']) : undefined;
    }
    expect(json.length).toBeGreaterThan(40);
    const pages: string[] = [];
    for (let next: string | undefined = query({ $format: 'csv' }); next; ) {
      const res = await fixture.app.request(next);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      pages.push(await res.text());
      const link = nextOf(res.headers.get('link'));
      if (link) expect(link).toContain('$format=csv');
      next = link ? local(link) : undefined;
    }
    expect(pages).toHaveLength(Math.ceil(json.length / 40));
    // Each page has the header; the pages joined as the explorer's take-away joins them, read once.
    const header = pages[0]!.split('\r\n')[0]!;
    for (const p of pages) expect(p.startsWith(`${header}\r\n`)).toBe(true);
    const whole = [pages[0], ...pages.slice(1).map((p) => p.slice(header.length + 2))].join('');
    const read = JSON.parse(execFileSync('python3', ['-c', PANDAS], { input: whole, encoding: 'utf8' })) as { columns: string[]; types: Record<string, string>; rows: Record<string, unknown>[] };
    expect(read.columns).toEqual(['CharacteristicName', 'LocationId', 'N', 'Low']);
    expect(read.types).toMatchObject({ LocationId: 'int64', N: 'int64', Low: 'float64' });
    expect(read.rows).toEqual(json);
  });

  it('Accept: text/csv gives the same CSV; $format=arrow is a 400 naming $format', async () => {
    const asked = await (await fixture.app.request(query({ $format: 'csv' }))).text();
    const accepted = await fixture.app.request(query({}), { headers: { accept: 'text/csv' } });
    expect(accepted.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await accepted.text()).toBe(asked);
    const arrow = await fixture.app.request(query({ $format: 'arrow' }));
    expect(arrow.status).toBe(400);
    const error = ((await arrow.json()) as { errors: { code: string; detail: string; source: { parameter: string } }[] }).errors[0]!;
    expect(error).toMatchObject({ code: 'invalid_parameter', source: { parameter: '$format' } });
    expect(error.detail).toMatch(/JSON or CSV/);
  });
});
