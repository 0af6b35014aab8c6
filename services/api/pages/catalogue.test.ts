/**
 * The harvesters' documents on a real socket over the fixture file: the DCAT catalogue as JSON-LD and as Turtle,
 * both read by rdflib (network closed) into the same triples and checked for DCAT-AP 3's mandatory and recommended
 * terms against the file's rows; content negotiation; sitemap.xml (one file, and split into an index of parts)
 * checked by xmllint and for every landing page exactly once; robots.txt; and the links to them from the OGC API
 * landing page, /v1/downloads and $metadata.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { graph, parseRdf, RDF_TYPE, type Triple } from '../testing/rdf.js';
import { openKeyStore } from '../keys/key-store.js';
import { createQueryGate } from '../limits/query-gate.js';
import { listen, type TestServer } from '../testing/test-server.js';
import { catalogueFormat, wantsJsonLd } from './register-pages.js';

const DCAT = 'http://www.w3.org/ns/dcat#';
const DCT = 'http://purl.org/dc/terms/';
const FOAF = 'http://xmlns.com/foaf/0.1/';
const SPDX = 'http://spdx.org/rdf/terms#';

let db: Database;
let server: TestServer;
let split: TestServer;
let refInstance: DuckDBInstance;
let ref: DuckDBConnection;

beforeAll(async () => {
  const path = inject('apiFixtureDb');
  db = await openDatabase(path);
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }));
  // The same data with sitemap files of 10 URLs: the fixture's pages then need an index of several.
  split = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, pages: { sitemapUrls: 10 } }));
  refInstance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  ref = await refInstance.connect();
});
afterAll(async () => {
  ref?.closeSync();
  refInstance?.closeSync();
  await server?.close();
  await split?.close();
  await db?.close();
});

const rows = async (sql: string) => (await ref.runAndReadAll(sql)).getRowObjectsJson();
/** A triple with its blank nodes (rdflib names them afresh in each reading) written as `_`, to compare two readings. */
const ground = (ts: readonly Triple[]) => (t: Triple) => `${blank(ts, t.s) ? '_' : t.s} ${t.p} ${t.kind === 'blank' ? '_' : t.o} ${t.datatype ?? ''}`;

describe('the DCAT catalogue', () => {
  let jsonld: Triple[];
  let turtle: Triple[];

  beforeAll(async () => {
    const [a, b] = await Promise.all([fetch(`${server.origin}/catalogue.jsonld`), fetch(`${server.origin}/catalogue.ttl`)]);
    expect(a.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
    expect(b.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    [jsonld, turtle] = await Promise.all([parseRdf(await a.text(), 'json-ld'), parseRdf(await b.text(), 'turtle')]);
  }, 120_000);

  it('says the same triples as JSON-LD and as Turtle', () => {
    expect(jsonld.length).toBeGreaterThan(100);
    expect(turtle.length).toBe(jsonld.length);
    const grounded = (ts: Triple[]) => ts.map(ground(ts)).sort();
    expect(grounded(turtle)).toEqual(grounded(jsonld));
  });

  it('is a dcat:Catalog with DCAT-AP 3’s mandatory terms, listing every dataset of the file', async () => {
    const g = graph(jsonld);
    const catalogue = `${server.origin}/catalogue`;
    expect(g.typed(`${DCAT}Catalog`)).toEqual([catalogue]);
    expect(g.one(catalogue, `${DCT}title`).o).toBeTruthy();
    expect(g.one(catalogue, `${DCT}description`).o).toBeTruthy();
    expect(g.one(g.one(catalogue, `${DCT}publisher`).o, `${FOAF}name`).o).toBeTruthy();
    const dois = (await rows(`SELECT "DOI" FROM datasets ORDER BY "DOI"`)).map((r) => `https://doi.org/${String(r['DOI'])}`);
    expect(g.objects(catalogue, `${DCAT}dataset`).map((t) => t.o).sort()).toEqual(dois);
    expect(g.typed(`${DCAT}DataService`).sort()).toEqual([`${server.origin}/v1/features`, `${server.origin}/v1/odata/v4/`]);
  });

  it('describes each dataset with its title, description, publisher, licence, coverage, landing page and distributions', async () => {
    const g = graph(jsonld);
    const datasets = await rows(`SELECT "DOI", "DatasetName", "Abstract", "DataUploadOrganization", strftime("TemporalExtent"[1], '%Y-%m-%d') AS first, strftime("TemporalExtent"[2], '%Y-%m-%d') AS last FROM datasets ORDER BY "DOI"`);
    const files = await rows(`SELECT "DOI", "Sha256", "Bytes" FROM dataset_files ORDER BY "DOI", "Format"`);
    for (const d of datasets) {
      const doi = String(d['DOI']);
      const id = `https://doi.org/${doi}`;
      expect(g.objects(id, RDF_TYPE).map((t) => t.o)).toEqual([`${DCAT}Dataset`]);
      expect(g.one(id, `${DCT}identifier`).o).toBe(doi);
      expect(g.one(id, `${DCT}title`).o).toBe(d['DatasetName']);
      expect(g.one(id, `${DCT}description`).o).toBe(d['Abstract']);
      expect(g.one(g.one(id, `${DCT}publisher`).o, `${FOAF}name`).o).toBe(d['DataUploadOrganization']);
      expect(g.one(id, `${DCT}license`).kind).toBe('iri');
      expect(g.one(id, `${DCAT}landingPage`).o).toBe(`${server.origin}/datasets/${doi}`);
      const period = g.one(id, `${DCT}temporal`).o;
      expect(g.one(period, `${DCAT}startDate`)).toMatchObject({ o: d['first'], datatype: 'http://www.w3.org/2001/XMLSchema#date' });
      expect(g.one(period, `${DCAT}endDate`).o).toBe(d['last']);
      expect(g.one(g.one(id, `${DCT}spatial`).o, `${DCAT}bbox`).o).toMatch(/^POLYGON\(\(/);
      const distributions = g.objects(id, `${DCAT}distribution`).map((t) => t.o);
      for (const dist of distributions) expect(g.objects(dist, `${DCAT}accessURL`).length, dist).toBe(1);
      const downloads = distributions.filter((dist) => g.objects(dist, `${DCAT}downloadURL`).length);
      const expected = files.filter((f) => f['DOI'] === doi);
      expect(downloads.length).toBe(expected.length);
      for (const f of expected) {
        const dist = downloads.find((x) => g.one(g.one(x, `${SPDX}checksum`).o, `${SPDX}checksumValue`).o === f['Sha256'])!;
        expect(dist, String(f['Sha256'])).toBeDefined();
        expect(g.one(dist, `${DCAT}byteSize`).o).toBe(String(f['Bytes']));
        expect(g.one(dist, `${DCAT}mediaType`).o).toMatch(/^http:\/\/www\.iana\.org\/assignments\/media-types\//);
      }
    }
  });

  it('is chosen by Accept at /catalogue, and a format it is not served in is 406 naming both', async () => {
    const turtle = await fetch(`${server.origin}/catalogue`, { headers: { Accept: 'text/turtle' } });
    expect(turtle.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    expect((await fetch(`${server.origin}/catalogue`)).headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
    const refused = await fetch(`${server.origin}/catalogue`, { headers: { Accept: 'application/rdf+xml' } });
    expect(refused.status).toBe(406);
    expect(((await refused.json()) as { message: string }).message).toContain('/catalogue.ttl');
  });

  it.each([
    [undefined, 'jsonld'], ['*/*', 'jsonld'], ['application/json', 'jsonld'], ['text/turtle;q=0.9, application/ld+json', 'jsonld'],
    ['application/ld+json;q=0.5, text/turtle', 'turtle'], ['text/*', 'turtle'], ['text/html, */*;q=0.8', 'jsonld'], ['application/rdf+xml', undefined], ['text/turtle;q=0', undefined],
  ] as const)('Accept %s → %s', (accept, format) => {
    expect(catalogueFormat(accept)).toBe(format);
  });
});

describe('a landing page by Accept', () => {
  it.each([
    [undefined, false], ['text/html,application/xhtml+xml,*/*;q=0.8', false], ['application/ld+json', true], ['application/ld+json, text/html;q=0.9', true],
    ['text/html, application/ld+json;q=0.9', false], ['application/ld+json;q=0', false], ['*/*', false],
  ] as const)('Accept %s → JSON-LD alone: %s', (accept, json) => {
    expect(wantsJsonLd(accept)).toBe(json);
  });
});

/** Whether `s` is a blank node of `ts` (rdflib names them; they are the subjects no IRI-shaped triple names). */
function blank(ts: readonly Triple[], s: string): boolean {
  return ts.some((t) => t.kind === 'blank' && t.o === s);
}

const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
function wellFormed(xml: string): void {
  execFileSync('xmllint', ['--noout', '-'], { input: xml });
}

describe('sitemap.xml and robots.txt', () => {
  it('lists every landing page once in one sitemap while they fit', async () => {
    const res = await fetch(`${server.origin}/sitemap.xml`);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const xml = await res.text();
    wellFormed(xml);
    expect(xml).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    const pages = [
      ...(await rows(`SELECT "DOI" FROM datasets ORDER BY "DOI"`)).map((r) => `${server.origin}/datasets/${String(r['DOI'])}`),
      ...(await rows(`SELECT "Id" FROM locations ORDER BY "Id"`)).map((r) => `${server.origin}/locations/${String(r['Id'])}`),
    ];
    expect(locs(xml)).toEqual(pages);
    for (const url of [pages[0]!, pages.at(-1)!]) expect((await fetch(url)).status, url).toBe(200);
  });

  it('becomes an index of sitemap-N.xml files beside it when they do not fit, each within the limit, together every page once', async () => {
    const index = await (await fetch(`${split.origin}/sitemap.xml`)).text();
    wellFormed(index);
    expect(index).toContain('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    const parts = locs(index);
    const [{ n }] = (await rows(`SELECT (SELECT count(*) FROM datasets) + (SELECT count(*) FROM locations) AS n`)) as [{ n: number }];
    expect(parts).toEqual(Array.from({ length: Math.ceil(Number(n) / 10) }, (_, i) => `${split.origin}/sitemap-${i + 1}.xml`));
    const all: string[] = [];
    for (const part of parts) {
      const xml = await (await fetch(part)).text();
      wellFormed(xml);
      expect(locs(xml).length).toBeLessThanOrEqual(10);
      all.push(...locs(xml));
    }
    const whole = locs(await (await fetch(`${server.origin}/sitemap.xml`)).text()).map((u) => u.replace(server.origin, split.origin));
    expect(all).toEqual(whole);
    expect((await fetch(`${split.origin}/sitemap-${parts.length + 1}.xml`)).status).toBe(404);
    expect((await fetch(`${server.origin}/sitemap-1.xml`)).status).toBe(404);
  });

  it('robots.txt names the sitemap and keeps crawlers off the keyed API', async () => {
    const text = await (await fetch(`${server.origin}/robots.txt`)).text();
    expect(text).toContain(`Sitemap: ${server.origin}/sitemap.xml`);
    expect(text).toContain('Disallow: /v1/');
  });
});

describe('links to the catalogue', () => {
  it('from the OGC API landing page, /v1/downloads and $metadata', async () => {
    const landing = (await (await fetch(`${server.origin}/v1/features`)).json()) as { links: { href: string; rel: string; type: string }[] };
    expect(landing.links).toContainEqual(expect.objectContaining({ href: `${server.origin}/catalogue`, rel: 'describedby', type: 'application/ld+json' }));
    expect(landing.links).toContainEqual(expect.objectContaining({ href: `${server.origin}/sitemap.xml`, rel: 'describedby' }));
    const downloads = (await (await fetch(`${server.origin}/v1/downloads`)).json()) as { catalogue: string; sitemap: string };
    expect(downloads.catalogue).toBe(`${server.origin}/catalogue`);
    expect(downloads.sitemap).toBe(`${server.origin}/sitemap.xml`);
    expect(await (await fetch(`${server.origin}/v1/odata/v4/$metadata`)).text()).toContain('<PropertyValue Property="href" String="/catalogue"/>');
  });
});

describe('with API keys required', () => {
  it('serves the pages and the harvesters\' documents without a key, while /v1 still asks for one', async () => {
    const keys = await openKeyStore({ plainKeys: ['pages-test-key'], pollMs: 0 });
    const keyed = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, access: { keys } }));
    try {
      const [{ DOI: doi }] = (await rows(`SELECT "DOI" FROM datasets LIMIT 1`)) as [{ DOI: string }];
      const [{ Id: id }] = (await rows(`SELECT "Id" FROM locations LIMIT 1`)) as [{ Id: string }];
      for (const path of [`/datasets/${doi}`, `/locations/${id}`, '/catalogue', '/catalogue.ttl', '/catalogue/locations.ndjson', '/sitemap.xml', '/robots.txt']) {
        const res = await fetch(`${keyed.origin}${path}`);
        expect(res.status, path).toBe(200);
        await res.arrayBuffer();
      }
      expect((await fetch(`${keyed.origin}/v1/downloads`)).status).toBe(401);
    } finally {
      await keyed.close();
      keys.close();
    }
  });
});

describe('under the query gate', () => {
  it('a page waits for a query slot as any client does: none free and no queue, 503; a slot free, 200', async () => {
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 0, maxWaitMs: 1000 });
    const gated = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, access: { queryGate: gate } }));
    try {
      const [{ Id: id }] = (await rows(`SELECT "Id" FROM locations LIMIT 1`)) as [{ Id: string }];
      const taken = await gate.acquire(undefined, 'someone else');
      if (typeof taken !== 'object') throw new Error(`the test could not take the slot: ${String(taken)}`);
      for (const path of [`/locations/${id}`, '/catalogue/locations.ndjson', '/sitemap.xml']) {
        const res = await fetch(`${gated.origin}${path}`);
        expect(res.status, path).toBe(503);
        expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('unavailable');
      }
      taken.release();
      expect((await fetch(`${gated.origin}/locations/${id}`)).status).toBe(200);
    } finally {
      await gated.close();
    }
  });
});
