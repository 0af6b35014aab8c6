/**
 * A dataset's landing page on a real socket over the fixture file: every dataset's page, its JSON-LD read by rdflib
 * (a real JSON-LD processor, network closed) into RDF and checked for the terms Google Dataset Search reads, every
 * count and file against the file's own rows, every link it gives followed. Then hostile metadata (markup, a
 * `</script>`, a `javascript:` URL) in a copy of the file: escaped in the HTML, intact in the JSON-LD.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { copyPublished } from '../testing/fixture-db.js';
import { graph, jsonLdBlock, parseRdf, RDF_TYPE, SCHEMA } from '../testing/rdf.js';
import { listen, type TestServer } from '../testing/test-server.js';

let db: Database;
let server: TestServer;
let refInstance: DuckDBInstance;
let ref: DuckDBConnection;

beforeAll(async () => {
  const path = inject('apiFixtureDb');
  db = await openDatabase(path);
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }));
  refInstance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  ref = await refInstance.connect();
});
afterAll(async () => {
  ref?.closeSync();
  refInstance?.closeSync();
  await server?.close();
  await db?.close();
});

const rows = async (sql: string, params: string[] = []) => (await ref.runAndReadAll(sql, params)).getRowObjectsJson();
const page = (origin: string, doi: string) => fetch(`${origin}/datasets/${doi}`);

describe('GET /datasets/{DOI}', () => {
  it('answers every dataset with a page whose JSON-LD rdflib reads as a schema.org Dataset with the required terms', { timeout: 180_000 }, async () => {
    const datasets = await rows(`SELECT "DOI", "DatasetName", "Licence", "DataCollectionOrganization", "DataUploadOrganization", strftime("TemporalExtent"[1], '%Y-%m-%d') AS first, strftime("TemporalExtent"[2], '%Y-%m-%d') AS last FROM datasets ORDER BY "DOI"`);
    expect(datasets.length).toBeGreaterThan(1);
    const blocks: string[] = [];
    for (const d of datasets) {
      const res = await page(server.origin, String(d['DOI']));
      expect(res.status, String(d['DOI'])).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      blocks.push(jsonLdBlock(await res.text()));
    }
    // One reader for every page: a JSON-LD array of documents, each with its own inline context.
    const g = graph(await parseRdf(`[${blocks.join(',')}]`, 'json-ld'));
    for (const d of datasets) {
      const doi = String(d['DOI']);
      const id = `https://doi.org/${doi}`;
      expect(g.typed(SCHEMA('Dataset'))).toContain(id);
      expect(g.one(id, SCHEMA('name')).o).toBe(d['DatasetName']);
      expect(g.one(id, SCHEMA('url'))).toMatchObject({ kind: 'iri', o: `${server.origin}/datasets/${doi}` });
      const identifier = g.one(id, SCHEMA('identifier'));
      expect(g.one(identifier.o, SCHEMA('value')).o).toBe(`doi:${doi}`);
      expect(g.one(identifier.o, SCHEMA('url')).o).toBe(id);
      // The fixture's licences are named ones with a URL: Creative Commons' or Open Data Commons' own.
      expect(g.one(id, SCHEMA('license'))).toMatchObject({ kind: 'iri', o: expect.stringMatching(/^https:\/\/(creativecommons\.org\/licenses\/by\/4\.0\/|opendatacommons\.org\/licenses\/by\/1-0\/)$/) });
      expect(g.one(g.one(id, SCHEMA('creator')).o, SCHEMA('name')).o).toBe(d['DataCollectionOrganization']);
      expect(g.one(g.one(id, SCHEMA('publisher')).o, SCHEMA('name')).o).toBe(d['DataUploadOrganization']);
      expect(g.one(id, SCHEMA('temporalCoverage')).o).toBe(`${String(d['first'])}/${String(d['last'])}`);
      const place = g.one(id, SCHEMA('spatialCoverage')).o;
      expect(g.objects(place, RDF_TYPE).map((t) => t.o)).toEqual([SCHEMA('Place')]);
      const [box] = await rows(`SELECT min("Latitude") s, min("Longitude") w, max("Latitude") n, max("Longitude") e FROM locations WHERE "DOI" = $1`, [doi]);
      expect(g.one(g.one(place, SCHEMA('geo')).o, SCHEMA('box')).o).toBe(`${box!['s']} ${box!['w']} ${box!['n']} ${box!['e']}`);
      const measured = await rows(`SELECT DISTINCT "CharacteristicName" FROM observations WHERE "DOI" = $1 ORDER BY 1`, [doi]);
      expect(g.objects(id, SCHEMA('variableMeasured')).map((v) => g.one(v.o, SCHEMA('name')).o).sort()).toEqual(measured.map((m) => m['CharacteristicName']));
      const files = await rows(`SELECT "Format", "Sha256", "Bytes" FROM dataset_files WHERE "DOI" = $1 ORDER BY "Format"`, [doi]);
      const downloads = g.objects(id, SCHEMA('distribution')).map((t) => t.o);
      expect(downloads.every((dl) => g.objects(dl, RDF_TYPE)[0]?.o === SCHEMA('DataDownload'))).toBe(true);
      expect(downloads.map((dl) => g.one(dl, SCHEMA('sha256')).o).sort()).toEqual(files.map((f) => f['Sha256']).sort());
      expect(downloads.every((dl) => g.one(dl, SCHEMA('contentUrl')).kind === 'iri')).toBe(true);
      const catalogue = g.one(id, SCHEMA('includedInDataCatalog')).o;
      expect(g.one(catalogue, SCHEMA('url')).o).toBe(`${server.origin}/catalogue`);
    }
  });

  it('shows exact counts per characteristic, every location and the files with sizes and hashes, as the file holds them', async () => {
    const [{ DOI: doi }] = (await rows(`SELECT "DOI" FROM datasets ORDER BY "DOI" LIMIT 1`)) as [{ DOI: string }];
    const html = await (await page(server.origin, doi)).text();
    const counts = await rows(`SELECT "CharacteristicName" AS c, count(*)::BIGINT AS n FROM observations WHERE "DOI" = $1 GROUP BY 1 ORDER BY 1`, [doi]);
    const table = /<caption>Characteristics[\s\S]*?<\/table>/.exec(html)![0];
    const shown = [...table.matchAll(/<tr><td>([^<]+)<\/td><td class="n">([\d,]+)<\/td><\/tr>/g)].map((m) => [m[1], Number(m[2]!.replaceAll(',', ''))]);
    expect(shown).toEqual(counts.map((r) => [r['c'], Number(r['n'])]));
    const locations = await rows(`SELECT "Id", "Name" FROM locations WHERE "DOI" = $1 ORDER BY "Id"`, [doi]);
    for (const l of locations) expect(html).toContain(`<a href="/locations/${l['Id']}">`);
    expect((html.match(/<circle /g) ?? []).length).toBe(locations.length);
    // Each file: the URL it links serves bytes of the size and hash it states.
    const files = [...html.matchAll(/<tr><td><a href="([^"]+)" type="[^"]+">(parquet|csv|comparisons-parquet)<\/a><\/td><td class="n">[\d,]+<\/td><td>[^<]*?\(?([\d,]+) bytes\)?<\/td><td><code class="hash">([0-9a-f]{64})<\/code><\/td><\/tr>/g)];
    expect(files.length).toBe(3);
    for (const [, url, , bytes, sha] of files) {
      const body = Buffer.from(await (await fetch(url!)).arrayBuffer());
      expect(body.length).toBe(Number(bytes!.replaceAll(',', '')));
      expect(createHash('sha256').update(body).digest('hex')).toBe(sha);
    }
  });

  it('links the API filtered to the DOI, the export and the OGC collection, each answering for that dataset alone', { timeout: 120_000 }, async () => {
    const [{ DOI: doi }] = (await rows(`SELECT "DOI" FROM datasets ORDER BY "DOI" DESC LIMIT 1`)) as [{ DOI: string }];
    const html = await (await page(server.origin, doi)).text();
    const links = [...html.matchAll(/href="(http:\/\/[^"]+\/v1\/(?:odata|export|features)[^"]*)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
    expect(links.length).toBeGreaterThanOrEqual(7);
    for (const url of links) {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      const text = await res.text();
      expect(text, url).toContain(doi);
      if (url.includes('/v1/odata/')) expect((JSON.parse(text) as { value: { DOI: string }[] }).value.every((r) => r.DOI === doi), url).toBe(true);
    }
    expect(html).toContain(`href="/explore?DOI=${encodeURIComponent(doi)}"`.replace('/explore', `${server.origin}/explore`));
  });

  it('answers an unknown DOI with 404 saying how the path is made, another case of a known one with a redirect to it', async () => {
    const res = await fetch(`${server.origin}/datasets/10.9999/nothing-here`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { message: string; errors: { code: string }[] };
    expect(body.errors[0]!.code).toBe('not_found');
    expect(body.message).toContain("No dataset with DOI '10.9999/nothing-here'");
    expect(body.message).toContain('/datasets/10.25976/abcd-ef12');
    const [{ DOI: doi }] = (await rows(`SELECT "DOI" FROM datasets LIMIT 1`)) as [{ DOI: string }];
    const moved = await fetch(`${server.origin}/datasets/${doi.toUpperCase()}`, { redirect: 'manual' });
    expect(moved.status).toBe(308);
    expect(moved.headers.get('location')).toBe(`/datasets/${doi}`);
  });

  it('is validated by the publication: If-None-Match with its ETag is 304', async () => {
    const [{ DOI: doi }] = (await rows(`SELECT "DOI" FROM datasets LIMIT 1`)) as [{ DOI: string }];
    const first = await page(server.origin, doi);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    expect((await fetch(`${server.origin}/datasets/${doi}`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
  });
});

describe('a dataset whose metadata carries markup', () => {
  const HOSTILE = `Lake <b>"Bold"</b> & </script><script>alert(1)</script> <!-- x \u2028 '''\"\"\" \\ back\nslash`;
  let dir: string;
  let hostileDb: Database;
  let hostile: TestServer;
  let doi: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tributary-pages-'));
    const copy = join(dir, 'hostile.duckdb');
    copyPublished(inject('apiFixtureDb'), copy);
    const instance = await DuckDBInstance.create(copy);
    const conn = await instance.connect();
    doi = String((await conn.runAndReadAll(`SELECT "DOI" FROM datasets ORDER BY "DOI" LIMIT 1`)).getRows()[0]![0]);
    await conn.run(`UPDATE datasets SET "DatasetName" = $1, "Abstract" = $1, "Citation" = $1, "DataSourceURL" = 'javascript:alert(1)', "DataStewardEmail" = 'a b"<c>@example.org', "Licence" = $1 WHERE "DOI" = $2`, [HOSTILE, doi]);
    await conn.run(`UPDATE locations SET "Name" = $1 WHERE "DOI" = $2`, [HOSTILE, doi]);
    conn.closeSync();
    instance.closeSync();
    hostileDb = await openDatabase(copy);
    hostile = await listen(createApp({ acquire: () => hostileDb.acquire(), links: { trustProxy: false } }));
  });
  afterAll(async () => {
    await hostile?.close();
    await hostileDb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('escapes it in the HTML, never links a javascript: URL, and keeps it whole in the JSON-LD and the Turtle', { timeout: 120_000 }, async () => {
    const location = String((await rows(`SELECT min("Id") AS id FROM locations WHERE "DOI" = $1`, [doi]))[0]!['id']);
    const blocks: string[] = [];
    for (const path of [`/datasets/${doi}`, `/locations/${location}`]) {
      const html = await (await fetch(`${hostile.origin}${path}`)).text();
      expect(html, path).not.toContain('<script>alert(1)');
      expect(html, path).not.toContain('<b>');
      expect(html, path).not.toContain('href="javascript:');
      expect(html.match(/<\/script>/g)?.length, path).toBe(1); // the JSON-LD block's own end
      blocks.push(jsonLdBlock(html));
    }
    const g = graph(await parseRdf(`[${blocks.join(',')}]`, 'json-ld'));
    expect(g.one(`https://doi.org/${doi}`, SCHEMA('name')).o).toBe(HOSTILE);
    expect(g.one(`${hostile.origin}/locations/${location}`, SCHEMA('name')).o).toBe(HOSTILE);
    // The catalogue's JSON-LD and Turtle carry it whole too (Turtle's string escapes; an IRI made of text, percent-encoded).
    for (const [path, format] of [['/catalogue.ttl', 'turtle'], ['/catalogue.jsonld', 'json-ld']] as const) {
      const dcat = graph(await parseRdf(await (await fetch(`${hostile.origin}${path}`)).text(), format));
      expect(dcat.one(`https://doi.org/${doi}`, 'http://purl.org/dc/terms/title').o, path).toBe(HOSTILE);
      expect(dcat.triples.some((t) => t.o === 'mailto:a%20b%22%3Cc%3E@example.org'), path).toBe(true);
    }
  });
});

describe('one licence table: the landing page names the licence the citation names', () => {
  /** Written from the licences' own pages: the URL each publisher gives, and a URL taken as written. */
  const LICENCES = [
    ['CC BY 4.0', 'https://creativecommons.org/licenses/by/4.0/'],
    ['Creative Commons Attribution 4.0', 'https://creativecommons.org/licenses/by/4.0/'],
    ['ODC-By', 'https://opendatacommons.org/licenses/by/1-0/'],
    ['https://example.org/licences/water-data-1.0', 'https://example.org/licences/water-data-1.0'],
  ] as const;
  let dir: string;
  let copyDb: Database;
  let api: TestServer;
  let dois: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tributary-licences-'));
    const copy = join(dir, 'licences.duckdb');
    copyPublished(inject('apiFixtureDb'), copy);
    const instance = await DuckDBInstance.create(copy);
    const conn = await instance.connect();
    dois = (await conn.runAndReadAll(`SELECT "DOI" FROM datasets ORDER BY "DOI" LIMIT ${LICENCES.length}`)).getRows().map((r) => String(r[0]));
    expect(dois).toHaveLength(LICENCES.length);
    for (const [i, doi] of dois.entries()) await conn.run(`UPDATE datasets SET "Licence" = $1 WHERE "DOI" = $2`, [LICENCES[i]![0], doi]);
    conn.closeSync();
    instance.closeSync();
    copyDb = await openDatabase(copy);
    api = await listen(createApp({ acquire: () => copyDb.acquire(), links: { trustProxy: false } }));
  });
  afterAll(async () => {
    await api?.close();
    await copyDb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(LICENCES.map(([text, url], i) => [text, url, i] as const))("'%s': the JSON-LD license, the citation's LicenceUrl and the DCAT dct:license are %s", async (_text, url, i) => {
    const doi = dois[i]!;
    const jsonLd = (await (await fetch(`${api.origin}/datasets/${doi}`, { headers: { accept: 'application/ld+json' } })).json()) as { license?: unknown };
    const citation = (await (await fetch(`${api.origin}/v1/citation/Records?$filter=${encodeURIComponent(`DOI eq '${doi}'`)}`)).json()) as { datasets: { DOI: string; LicenceUrl: string | null }[] };
    expect(jsonLd.license).toBe(url);
    expect(citation.datasets.map((d) => [d.DOI, d.LicenceUrl])).toEqual([[doi, url]]);
    const dcat = graph(await parseRdf(await (await fetch(`${api.origin}/catalogue.ttl`)).text(), 'turtle'));
    expect(dcat.one(`https://doi.org/${doi}`, 'http://purl.org/dc/terms/license')).toMatchObject({ kind: 'iri', o: url });
  });
});
