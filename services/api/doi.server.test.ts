/**
 * Any DOI, end to end: datasets whose DOIs hold what real suffixes hold (`/`, `(`, `;`, `:`, `'`, and `#&+%?` and a
 * space that a URL must encode) are published by the real ingest CLI and served on a real socket. Each must be
 * found by `$filter=DOI eq '…'` (quotes doubled), paged through `@odata.nextLink` to the exact `$count`, cited by
 * the `rel="cite-as"` link, the explorer's citation link and the citation formats, and selected through the explorer's URL and filter.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './app.js';
import { openDatabase, type Database } from './db/database.js';
import { levelNote } from './explore/citations-panel.js';
import { doiUrl as explorerDoiUrl } from './explore/doi-url.js';
import { emptySelection, filterText, searchOfSelection, selectionFromSearch } from './explore/selection.js';
import { doiUrl } from './http/links.js';
import { REPO_ROOT } from './testing/fixture-db.js';
import { listen, type TestServer } from './testing/test-server.js';

const run = promisify(execFile);
const ODD = "10.80052/odd(2026);v:1/it's #1&b+c%20?";
const UPPER = '10.5066/P9ABCDEF';
const DOIS = [ODD, UPPER];
const BASE = '/v1/odata/v4';

let dir: string;
let db: Database;
let server: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-doi-'));
  for (const [i, doi] of DOIS.entries()) {
    const folder = join(dir, 'src', `d${i}`);
    cpSync(join(REPO_ROOT, 'ingest/fixtures/src/alpha'), folder, { recursive: true });
    const level = doi === UPPER ? { ValidationLevel: 'storable' } : {};
    writeFileSync(join(folder, 'metadata.json'), JSON.stringify({ DOI: doi, DatasetName: `Dataset ${i}`, Citation: `Someone. 2026. Dataset ${i}. ${doiUrl(doi)}`, ...level }));
  }
  const duckdbPath = join(dir, 'doi.duckdb');
  await run(process.execPath, [inject('ingestCli'), 'ingest'], { cwd: REPO_ROOT, env: { ...process.env, SRC: join(dir, 'src'), DUCKDB_PATH: duckdbPath } });
  db = await openDatabase(duckdbPath);
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }));
}, 120_000);

afterAll(async () => {
  await server?.close();
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const quote = (v: string) => `'${v.replaceAll("'", "''")}'`;
async function get(pathOrUrl: string): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await fetch(pathOrUrl.startsWith('http') ? pathOrUrl : `${server.origin}${BASE}${pathOrUrl}`);
  return { res, body: (await res.json()) as Record<string, unknown> };
}
const query = (params: Record<string, string>) => `?${new URLSearchParams(params).toString()}`;

describe.each(DOIS)('the DOI %s', (doi) => {
  it('is published as given and found by $filter=DOI eq, its quotes doubled', async () => {
    const { res, body } = await get(`/Metadata${query({ $filter: `DOI eq ${quote(doi)}`, $select: 'DOI,DatasetName,Citation' })}`);
    expect(res.status).toBe(200);
    expect(body.value).toEqual([{ DOI: doi, DatasetName: `Dataset ${DOIS.indexOf(doi)}`, Citation: expect.stringContaining(doiUrl(doi)) }]);
  });

  it('pages through @odata.nextLink to its exact $count, every row its own, cited by rel="cite-as"', async () => {
    const filter = `DOI eq ${quote(doi)}`;
    const count = await get(`/Observations${query({ $filter: filter, $count: 'true', $top: '0' })}`);
    const total = Number(count.body['@odata.count']);
    expect(total).toBeGreaterThan(3);
    let next: string | undefined = `/Observations${query({ $filter: filter, $top: '3', $select: 'Id,DOI' })}`;
    const rows: { Id: number; DOI: string }[] = [];
    let pages = 0;
    while (next) {
      const { res, body } = await get(next);
      expect(res.status).toBe(200);
      expect(res.headers.get('link')).toContain(`<${doiUrl(doi)}>; rel="cite-as"`);
      rows.push(...(body.value as typeof rows));
      next = body['@odata.nextLink'] as string | undefined;
      pages++;
    }
    expect(pages).toBe(Math.ceil(total / 3));
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((r) => r.DOI))).toEqual(new Set([doi]));
  });

  it("is selected through the explorer's URL and filter, and linked by its citation as the API links it", async () => {
    const selection = { ...emptySelection(), lists: { ...emptySelection().lists, DOI: [doi] } };
    const back = selectionFromSearch(searchOfSelection(selection));
    expect(back.lists.DOI).toEqual([doi]);
    const { body } = await get(`/Observations${query({ $filter: filterText(back), $count: 'true', $top: '0' })}`);
    const direct = await get(`/Observations${query({ $filter: `DOI eq ${quote(doi)}`, $count: 'true', $top: '0' })}`);
    expect(body['@odata.count']).toBe(direct.body['@odata.count']);
    expect(explorerDoiUrl(doi)).toBe(doiUrl(doi));
    // The resolver reads back the DOI itself: percent-decoding the path gives it exactly.
    expect(decodeURIComponent(new URL(doiUrl(doi)).pathname.slice(1))).toBe(doi);
  });
});

it('cites a DOI that URLs and TeX must escape: BibTeX keeps it in the url field, RIS and CSL-JSON say it exactly', async () => {
  const cite = (accept: string) => fetch(`${server.origin}/v1/citation/Records${query({ $filter: `DOI eq ${quote(ODD)}` })}`, { headers: { Accept: accept } }).then((r) => r.text());
  const bib = await cite('application/x-bibtex');
  expect(bib.match(/^@misc\{[A-Za-z0-9_:.-]+,$/gm)).toHaveLength(1);
  expect(bib).toContain(`  url = {${doiUrl(ODD)}}`);
  expect(bib).not.toContain('  doi = ');
  expect(bib).toContain('Dataset 0');
  const ris = (await cite('application/x-research-info-systems')).split('\r\n');
  expect(ris).toContain(`DO  - ${ODD}`);
  expect(ris).toContain(`UR  - ${doiUrl(ODD)}`);
  const csl = JSON.parse(await cite('application/vnd.citationstyles.csl+json')) as { DOI: string; URL: string }[];
  expect(csl).toEqual([expect.objectContaining({ DOI: ODD, URL: doiUrl(ODD) })]);
});

it('compares the DOI as published in $filter (OData eq is exact): ingest keeps one spelling per DOI', async () => {
  const exact = await get(`/Metadata${query({ $filter: `DOI eq ${quote(UPPER.toLowerCase())}` })}`);
  expect(exact.body.value).toEqual([]);
});

it('serves ValidationLevel when $select names it, and keeps it out of the default (DataStream) shape of /Metadata', async () => {
  const shape = await get('/Metadata');
  const rows = shape.body.value as Record<string, unknown>[];
  expect(rows).toHaveLength(2);
  for (const row of rows) expect(Object.keys(row)).not.toContain('ValidationLevel');
  const levels = await get(`/Metadata${query({ $select: 'DOI,ValidationLevel' })}`);
  expect(new Map((levels.body.value as { DOI: string; ValidationLevel: string }[]).map((r) => [r.DOI, r.ValidationLevel]))).toEqual(new Map([[ODD, 'upstream'], [UPPER, 'storable']]));
  const csdl = await (await fetch(`${server.origin}${BASE}/$metadata`)).text();
  expect(csdl).toMatch(/<Property Name="ValidationLevel" Type="Edm.String" Nullable="false"/);
  expect(levelNote('storable')).toContain('validated at level storable');
  expect(levelNote('upstream')).toBeNull();
});
