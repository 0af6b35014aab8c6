/**
 * Citing a result (issue 38, part 3) on a real socket over the published fixture file: the datasets a filter's rows
 * come from, each with as many rows as reference SQL on the plain tables counts (never the statistics the API
 * reads), written in every negotiated format, each parsed back; the 406 and the 400s; and the signposting `Link`
 * headers of pages, exports and OGC items, with `rel="next"` first for datastreamjs.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources } from '../../schemas/index.js';
import { doiUrl } from './http/links.js';
import { PIN_PARAM } from './http/paths.js';
import { openFixtureApp, type FixtureApp } from './testing/fixture-app.js';
import { listen, type TestServer } from './testing/test-server.js';

let fixture: FixtureApp;
let ref: DuckDBConnection;
let server: TestServer;
let publication: string;

beforeAll(async () => {
  fixture = await openFixtureApp(inject('apiFixtureDb'));
  ref = fixture.ref;
  server = await listen(fixture.app);
  const held = fixture.db.acquire();
  publication = held.publication;
  held.release();
});
afterAll(async () => {
  await server?.close();
  await fixture?.close();
});

const DATASTREAMJS_NEXT = /<(.*?)>; rel="next"/;
const CSL = 'application/vnd.citationstyles.csl+json';

function citationPath(resource: string, options: Record<string, string> = {}): string {
  const qs = Object.entries(options).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
  return `${server.origin}/v1/citation/${resource}${qs ? `?${qs}` : ''}`;
}

async function fetchText(url: string, accept?: string): Promise<{ res: Response; text: string }> {
  const res = await fetch(url, accept ? { headers: { Accept: accept } } : {});
  return { res, text: await res.text() };
}

interface Entry {
  DOI: string;
  url: string;
  DatasetName: string | null;
  Version: string | null;
  Citation: string;
  Licence: string | null;
  LicenceUrl: string | null;
  Rows: number;
}
interface Doc {
  resource: string;
  filter: string | null;
  publication: string;
  url: string;
  rows: number;
  datasets: Entry[];
}

async function cite(resource: string, filter?: string): Promise<Doc> {
  const { res, text } = await fetchText(citationPath(resource, filter ? { $filter: filter } : {}));
  expect(res.status, text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return JSON.parse(text) as Doc;
}

/** DOI → rows, by plain SQL on a table of the file (`where` is reference SQL written by the test). */
async function refCounts(table: 'observations' | 'locations' | 'datasets', where = 'true'): Promise<Map<string, number>> {
  const rows = (await ref.runAndReadAll(`SELECT DOI, count(*) FROM ${table} WHERE ${where} GROUP BY DOI`)).getRows();
  return new Map(rows.map(([doi, n]) => [String(doi), Number(n)]));
}

const countsOf = (doc: Doc) => new Map(doc.datasets.map((d) => [d.DOI, d.Rows]));

type Case = [resource: string, filter: string | undefined, table: 'observations' | 'locations' | 'datasets', where: string];

describe('which datasets a result comes from, and how many rows each gives', () => {
  it.each<Case>([
    ['Records', "CharacteristicName eq 'pH'", 'observations', `CharacteristicName = 'pH'`],
    ['Observations', 'ActivityStartYear ge 2020 and ResultValue gt 7', 'observations', 'year(ActivityStartDate) >= 2020 AND ResultValue > 7'],
    ['Records', undefined, 'observations', 'true'],
    ['Locations', "MonitoringLocationType eq 'Lake/Pond'", 'locations', `MonitoringLocationType = 'Lake/Pond'`],
    // A dataset is one row of Metadata: each gives 1.
    ['Metadata', "CharacteristicName eq 'pH'", 'datasets', `DOI IN (SELECT DOI FROM observations WHERE CharacteristicName = 'pH')`],
    ['Locations', "CharacteristicName eq 'pH'", 'locations', `Id IN (SELECT LocationId FROM observations WHERE CharacteristicName = 'pH')`],
  ])('%s ? $filter=%s', async (resource, filter, table, where) => {
    const expected = await refCounts(table, where);
    expect(expected.size).toBeGreaterThan(0);
    const doc = await cite(resource, filter);
    expect(countsOf(doc)).toEqual(expected);
    expect(doc.rows).toBe([...expected.values()].reduce((a, b) => a + b, 0));
    expect(doc.datasets.map((d) => d.DOI)).toEqual([...expected.keys()].sort());
  });

  it("names each dataset as /Metadata does, with its DOI link, and pins the query's URL to the publication", async () => {
    const doc = await cite('Records', "CharacteristicName eq 'pH'");
    const meta = (await ref.runAndReadAll(`SELECT DOI, DatasetName, Version, Citation, Licence FROM datasets`)).getRows();
    const byDoi = new Map(meta.map(([doi, name, version, citation, licence]) => [String(doi), { name, version, citation, licence }]));
    for (const d of doc.datasets) {
      const m = byDoi.get(d.DOI)!;
      expect([d.DatasetName, d.Version, d.Licence]).toEqual([m.name, m.version, m.licence]);
      expect(d.Citation).toBe(m.citation);
      expect(d.url).toBe(doiUrl(d.DOI));
    }
    expect(doc.datasets.some((d) => d.LicenceUrl?.startsWith('https://'))).toBe(true);
    expect(doc.publication).toBe(publication);
    const pinned = new URL(doc.url);
    expect(pinned.origin + pinned.pathname).toBe(`${server.origin}/v1/odata/v4/Records`);
    expect(pinned.searchParams.get('$filter')).toBe("CharacteristicName eq 'pH'");
    expect(pinned.searchParams.get(PIN_PARAM)).toBe(publication);
    // The pinned URL reads the rows it cites.
    const counted = await (await fetch(`${doc.url}&$count=true`)).json();
    expect(counted).toEqual({ value: doc.rows });
  });

  it("cites $apply's filter() with $filter, and ignores paging options, so any page's URL can be cited", async () => {
    const plain = await cite('Observations', "CharacteristicName eq 'pH' and ActivityStartYear ge 2019");
    const { text } = await fetchText(citationPath('Observations', {
      $filter: "CharacteristicName eq 'pH'",
      $apply: 'filter(ActivityStartYear ge 2019)/groupby((LocationId),aggregate($count as N))',
      $top: '5',
      $select: 'Id',
    }));
    expect(countsOf(JSON.parse(text) as Doc)).toEqual(countsOf(plain));
  });

  it('an empty result cites no dataset', async () => {
    const doc = await cite('Records', "CharacteristicName eq 'no such characteristic'");
    expect([doc.rows, doc.datasets]).toEqual([0, []]);
  });
});

describe('formats, negotiated as doi.org negotiates', () => {
  const filter = "CharacteristicName eq 'pH'";
  let doc: Doc;
  beforeAll(async () => {
    doc = await cite('Records', filter);
  });

  it('CSL-JSON: an array of dataset items with the variables citeproc needs', async () => {
    const { res, text } = await fetchText(citationPath('Records', { $filter: filter }), CSL);
    expect(res.headers.get('content-type')).toMatch(/^application\/vnd\.citationstyles\.csl\+json/);
    expect(res.headers.get('vary')).toContain('Accept');
    const items = JSON.parse(text) as Record<string, unknown>[];
    expect(items.map((i) => i['DOI'])).toEqual(doc.datasets.map((d) => d.DOI));
    for (const item of items) {
      expect(item).toMatchObject({ id: expect.any(String), type: 'dataset', title: expect.any(String), URL: doiUrl(String(item['DOI'])) });
      if (item['issued']) expect((item['issued'] as { 'date-parts': number[][] })['date-parts'][0]![0]).toBeGreaterThan(1900);
    }
  });

  it('BibTeX: one balanced @misc entry per dataset, with its DOI link', async () => {
    const { res, text } = await fetchText(citationPath('Records', { $filter: filter }), 'application/x-bibtex');
    expect(res.headers.get('content-type')).toBe('application/x-bibtex; charset=utf-8');
    const entries = bibtexEntries(text);
    expect(entries.map((e) => e.fields['url'])).toEqual(doc.datasets.map((d) => d.url));
    expect(new Set(entries.map((e) => e.key)).size).toBe(entries.length);
    for (const e of entries) expect(e.type).toBe('misc');
    expect(text).toContain(`% Data cited: ${doc.url}`);
  });

  it('RIS: every line a tag, one TY … ER record per dataset', async () => {
    const { res, text } = await fetchText(citationPath('Records', { $filter: filter }), 'application/x-research-info-systems');
    expect(res.headers.get('content-type')).toBe('application/x-research-info-systems; charset=utf-8');
    const records = risRecords(text);
    expect(records.map((r) => r.find(([t]) => t === 'DO')?.[1])).toEqual(doc.datasets.map((d) => d.DOI));
    for (const r of records) expect(r[0]).toEqual(['TY', 'DATA']);
  });

  it.each(['text/plain', 'text/x-bibliography'])('%s: the query, then a line per dataset with its DOI link', async (type) => {
    const { res, text } = await fetchText(citationPath('Records', { $filter: filter }), type);
    expect(res.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toContain(doc.url);
    expect(lines.slice(1)).toHaveLength(doc.datasets.length);
    lines.slice(1).forEach((line, i) => expect(line).toContain(doc.datasets[i]!.url));
  });

  it.each([
    ['format=bibtex', { format: 'bibtex' }, 'application/x-bibtex'],
    ['$format=ris', { $format: 'ris' }, 'application/x-research-info-systems'],
    ['format=<media type>', { format: CSL }, CSL],
    ['format=text', { format: 'text' }, 'text/plain'],
  ])('%s answers as Accept does (for a link in a browser)', async (_, params, type) => {
    const viaParam = await fetchText(citationPath('Records', { $filter: filter, ...params }), 'text/html,*/*;q=0.8');
    const viaAccept = await fetchText(citationPath('Records', { $filter: filter }), type);
    expect(viaParam.res.headers.get('content-type')).toBe(viaAccept.res.headers.get('content-type'));
    expect(viaParam.text).toBe(viaAccept.text);
  });

  it('a browser (*/*) and a client with no Accept get the JSON document; q-values choose', async () => {
    for (const accept of [undefined, 'text/html,application/xhtml+xml,*/*;q=0.8']) {
      expect((await fetchText(citationPath('Records'), accept)).res.headers.get('content-type')).toMatch(/^application\/json/);
    }
    const chosen = await fetchText(citationPath('Records'), 'application/x-bibtex;q=0.5, application/x-research-info-systems');
    expect(chosen.res.headers.get('content-type')).toMatch(/^application\/x-research-info-systems/);
  });

  it('406 names the formats when Accept or format= names none of them', async () => {
    for (const [url, accept] of [[citationPath('Records'), 'application/pdf'], [citationPath('Records', { format: 'docx' }), undefined]] as const) {
      const { res, text } = await fetchText(url, accept);
      expect(res.status).toBe(406);
      const body = JSON.parse(text) as { message: string; errors: { code: string }[] };
      expect(body.errors[0]!.code).toBe('not_acceptable');
      expect(body.message).toContain('bibtex (application/x-bibtex)');
    }
  });
});

describe('errors name what was wrong', () => {
  it.each([
    ['an unknown field', 'Nope eq 1', 'unknown_field', /'Nope' is not a field of Records/],
    ['a broken expression', "CharacteristicName eq 'pH' and", 'invalid_filter', /./],
    ['a value of the wrong type', "ActivityStartYear eq 'soon'", 'invalid_value', /ActivityStartYear wants a whole number/],
  ])('%s in $filter is a 400 naming $filter', async (_, filter, code, message) => {
    const { res, text } = await fetchText(citationPath('Records', { $filter: filter }));
    expect(res.status).toBe(400);
    const body = JSON.parse(text) as { message: string; errors: { code: string; source?: { parameter?: string } }[] };
    expect(body.errors[0]).toMatchObject({ code, source: { parameter: '$filter' } });
    expect(body.message).toMatch(message);
  });

  it('$apply on Locations, and an unknown resource', async () => {
    const apply = await fetchText(citationPath('Locations', { $apply: 'groupby((DOI),aggregate($count as N))' }));
    expect(apply.res.status).toBe(400);
    expect(apply.text).toContain('give the filter as $filter');
    const unknown = await fetchText(citationPath('Nope'));
    expect(unknown.res.status).toBe(404);
    expect(unknown.text).toContain(`/v1/citation/{${resources.map((r) => r.name).join('|')}}`);
  });
});

describe('signposting Link headers', () => {
  let doi: string;
  let licenceUrl: string | null;
  beforeAll(async () => {
    const doc = await cite('Records');
    const withLicence = doc.datasets.find((d) => d.LicenceUrl)!;
    ({ DOI: doi, LicenceUrl: licenceUrl } = withLicence);
  });
  const odata = (resource: string, options: Record<string, string>) =>
    `${server.origin}/v1/odata/v4/${resource}?${Object.entries(options).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`;
  const linksOf = (header: string | null) =>
    (header ?? '').split(/,\s*(?=<)/).map((l) => ({ url: /^<([^>]*)>/.exec(l)?.[1], rel: /rel="([^"]+)"/.exec(l)?.[1], type: /type="([^"]+)"/.exec(l)?.[1] }));

  it('a page pinned to one DOI: next first (datastreamjs reads it), then cite-as, describedby and license', async () => {
    const filter = `DOI eq '${doi}'`;
    const res = await fetch(odata('Records', { $filter: filter, $top: '2', $select: 'Id' }));
    const body = (await res.json()) as { '@odata.nextLink': string };
    const header = res.headers.get('link');
    expect(DATASTREAMJS_NEXT.exec(header ?? '')?.[1]).toBe(body['@odata.nextLink']);
    const links = linksOf(header);
    expect(links.map((l) => l.rel)).toEqual(['next', 'cite-as', 'describedby', 'license']);
    expect(links[1]!.url).toBe(doiUrl(doi));
    expect(links[2]!.type).toBe(CSL);
    expect(links[3]!.url).toBe(licenceUrl);
    // describedby is this query's citation, pinned to the publication the page came from.
    const described = new URL(links[2]!.url!);
    expect(described.pathname).toBe('/v1/citation/Records');
    expect(described.searchParams.get('$filter')).toBe(filter);
    expect(described.searchParams.get(PIN_PARAM)).toBe(publication);
    const items = (await (await fetch(links[2]!.url!, { headers: { Accept: CSL } })).json()) as { DOI: string }[];
    expect(items.map((i) => i.DOI)).toEqual([doi]);
  });

  it('a page of many datasets: describedby, no cite-as, no license; the last page has no next', async () => {
    const res = await fetch(odata('Observations', { $filter: 'LocationId le 3', $top: '10000', $format: 'csv' }));
    await res.text();
    expect(linksOf(res.headers.get('link')).map((l) => l.rel)).toEqual(['describedby']);
    const apply = await fetch(odata('Records', { $apply: "filter(CharacteristicName eq 'pH')/groupby((DOI),aggregate($count as N))" }));
    const described = linksOf(apply.headers.get('link')).find((l) => l.rel === 'describedby')!;
    expect(new URL(described.url!).searchParams.get('$filter')).toBe("CharacteristicName eq 'pH'");
  });

  it('an export carries cite-as, describedby and license', async () => {
    const res = await fetch(`${server.origin}/v1/export/Records?$filter=${encodeURIComponent(`DOI eq '${doi}'`)}&$format=csv`);
    await res.text();
    expect(linksOf(res.headers.get('link')).map((l) => [l.rel, l.url])).toEqual([
      ['cite-as', doiUrl(doi)],
      ['describedby', expect.stringContaining('/v1/citation/Records?$filter=')],
      ['license', licenceUrl],
    ]);
  });

  it('OGC items: next first, then the citation of the same rows as OData filters them', async () => {
    const res = await fetch(`${server.origin}/v1/features/collections/observations/items?limit=2&DOI=${encodeURIComponent(doi)}`);
    const body = (await res.json()) as { links: { rel: string; href: string }[] };
    const links = linksOf(res.headers.get('link'));
    expect(links.map((l) => l.rel)).toEqual(['next', 'cite-as', 'describedby', 'license']);
    expect(links[0]!.url).toBe(body.links.find((l) => l.rel === 'next')!.href);
    expect(new URL(links[2]!.url!).pathname).toBe('/v1/citation/Records');
  });

  it('the citation itself names the licence when every dataset it cites shares one', async () => {
    const res = await fetch(citationPath('Records', { $filter: `DOI eq '${doi}'` }));
    await res.text();
    expect(linksOf(res.headers.get('link')).map((l) => [l.rel, l.url])).toEqual([['cite-as', doiUrl(doi)], ['license', licenceUrl]]);
  });
});

/** A structural BibTeX reader: `@type{key,` then `name = {value}` fields with balanced braces, then `}`. */
function bibtexEntries(text: string): { type: string; key: string; fields: Record<string, string> }[] {
  const entries: { type: string; key: string; fields: Record<string, string> }[] = [];
  const head = /@(\w+)\{([^,\s{}]+),/g;
  for (let m = head.exec(text); m; m = head.exec(text)) {
    const fields: Record<string, string> = {};
    let i = head.lastIndex;
    for (;;) {
      const field = /^\s*(\w+) = \{/.exec(text.slice(i));
      if (!field) break;
      i += field[0].length;
      let depth = 1;
      const start = i;
      for (; depth > 0; i++) {
        if (i >= text.length) throw new Error(`unbalanced braces in ${m[2]}`);
        if (text[i] === '{') depth++;
        else if (text[i] === '}') depth--;
      }
      fields[field[1]!] = text.slice(start, i - 1);
      if (text[i] === ',') i++;
    }
    expect(text.slice(i).trimStart()[0], `entry ${m[2]} ends with }`).toBe('}');
    entries.push({ type: m[1]!, key: m[2]!, fields });
    head.lastIndex = i;
  }
  return entries;
}

/** RIS records as [tag, value] pairs; every non-empty line must be `TG  - value`. */
function risRecords(text: string): [string, string][][] {
  const records: [string, string][][] = [];
  let current: [string, string][] = [];
  for (const line of text.split('\r\n')) {
    if (line === '') continue;
    const m = /^([A-Z][A-Z0-9]) {2}- (.*)$/.exec(line);
    expect(m, `RIS line: ${line}`).not.toBeNull();
    if (m![1] === 'ER') {
      records.push(current);
      current = [];
    } else current.push([m![1]!, m![2]!]);
  }
  expect(current).toEqual([]);
  return records;
}
