/**
 * A location's landing page and the NDJSON-LD dump of every location, on a real socket over the fixture file. The
 * JSON-LD is read by rdflib (a real JSON-LD processor, network closed) and checked for Geoconnex's location terms:
 * a schema.org Place typed as a HY_Features hydrometric feature and hydro location, with geo, a GeoSPARQL point,
 * variableMeasured and subjectOf its dataset, each value against the file's own rows.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { graph, jsonLdBlock, parseRdf, RDF_TYPE, SCHEMA } from '../testing/rdf.js';
import { listen, type TestServer } from '../testing/test-server.js';

const HYF = 'https://www.opengis.net/def/schema/hy_features/hyf/';
const GSP = 'http://www.opengis.net/ont/geosparql#';

let db: Database;
let server: TestServer;
let refInstance: DuckDBInstance;
let ref: DuckDBConnection;

beforeAll(async () => {
  const path = inject('apiFixtureDb');
  db = await openDatabase(path);
  // A window of 7 locations per query, so the dump crosses several windows.
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, pages: { dumpWindow: 7 } }));
  refInstance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  ref = await refInstance.connect();
});
afterAll(async () => {
  ref?.closeSync();
  refInstance?.closeSync();
  await server?.close();
  await db?.close();
});

const rows = async (sql: string, params: (string | number)[] = []) => (await ref.runAndReadAll(sql, params)).getRowObjectsJson();
const LOCATIONS_SQL = `SELECT l."Id", l."DOI", l."MonitoringLocationID", l."Name", l."Latitude", l."Longitude", d."DatasetName",
  (SELECT list(DISTINCT o."CharacteristicName" ORDER BY o."CharacteristicName") FROM observations o WHERE o."LocationId" = l."Id") AS chars,
  (SELECT strftime(min(o."ActivityStartDate"), '%Y-%m-%d') || '/' || strftime(max(o."ActivityStartDate"), '%Y-%m-%d') FROM observations o WHERE o."LocationId" = l."Id") AS span
  FROM locations l JOIN datasets d ON d."DOI" = l."DOI" ORDER BY l."Id"`;

type Graph = ReturnType<typeof graph>;

/** What Geoconnex reads of a location, checked against the file. */
function expectLocation(g: Graph, id: string, l: Record<string, unknown>, withDates: boolean): void {
  const types = g.objects(id, RDF_TYPE).map((t) => t.o).sort();
  expect(types).toEqual([`${HYF}HY_HydroLocation`, `${HYF}HY_HydrometricFeature`, SCHEMA('Place')].sort());
  expect(g.one(id, SCHEMA('name')).o).toBe(l['Name']);
  expect(g.one(g.one(id, SCHEMA('identifier')).o, SCHEMA('value')).o).toBe(l['MonitoringLocationID']);
  const geo = g.one(id, SCHEMA('geo')).o;
  expect(Number(g.one(geo, SCHEMA('latitude')).o)).toBe(l['Latitude']);
  expect(Number(g.one(geo, SCHEMA('longitude')).o)).toBe(l['Longitude']);
  const wkt = g.one(g.one(id, `${GSP}hasGeometry`).o, `${GSP}asWKT`);
  expect(wkt).toMatchObject({ o: `POINT (${l['Longitude']} ${l['Latitude']})`, datatype: `${GSP}wktLiteral` });
  expect(g.objects(id, SCHEMA('variableMeasured')).map((v) => g.one(v.o, SCHEMA('name')).o).sort()).toEqual(l['chars']);
  const dataset = g.one(id, SCHEMA('subjectOf'));
  expect(dataset.o).toBe(`https://doi.org/${String(l['DOI'])}`);
  expect(g.objects(dataset.o, RDF_TYPE).map((t) => t.o)).toContain(SCHEMA('Dataset'));
  expect(g.objects(dataset.o, SCHEMA('name')).map((t) => t.o)).toContain(l['DatasetName']);
  // Its files: one download per format (pages of one dataset merged into one graph repeat the same three: Records as Parquet and CSV, and its guideline comparisons as Parquet).
  expect(new Set(g.objects(dataset.o, SCHEMA('distribution')).map((d) => g.one(d.o, SCHEMA('contentUrl')).o)).size).toBe(3);
  if (withDates) expect(g.one(id, SCHEMA('temporalCoverage')).o).toBe(l['span']);
}

describe('GET /locations/{Id}', () => {
  it('answers a page whose JSON-LD is a Geoconnex location with the values of the file', { timeout: 120_000 }, async () => {
    const all = await rows(LOCATIONS_SQL);
    // The first and last location of each of three datasets.
    const picked = [...new Set(all.map((l) => l['DOI']))].slice(0, 3).flatMap((doi) => {
      const of = all.filter((l) => l['DOI'] === doi);
      return [of[0]!, of.at(-1)!];
    });
    const blocks: string[] = [];
    for (const l of picked) {
      const res = await fetch(`${server.origin}/locations/${l['Id']}`);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain(`<h1>${String(l['Name'])}</h1>`);
      expect(html).toContain(`href="/datasets/${String(l['DOI'])}"`);
      blocks.push(jsonLdBlock(html));
    }
    const g = graph(await parseRdf(`[${blocks.join(',')}]`, 'json-ld'));
    for (const l of picked) expectLocation(g, `${server.origin}/locations/${l['Id']}`, l, true);
  });

  it('shows exact counts per characteristic measured there', async () => {
    const [first] = await rows(`SELECT min("Id") AS id FROM locations`);
    const id = Number(first!['id']);
    const html = await (await fetch(`${server.origin}/locations/${id}`)).text();
    const counts = await rows(`SELECT "CharacteristicName" AS c, count(*)::INTEGER AS n FROM observations WHERE "LocationId" = $1 GROUP BY 1 ORDER BY 1`, [id]);
    const shown = [...html.matchAll(/<tr><td>([^<]+)<\/td><td class="n">([\d,]+)<\/td><\/tr>/g)].map((m) => [m[1], Number(m[2]!.replaceAll(',', ''))]);
    expect(shown).toEqual(counts.map((r) => [r['c'], r['n']]));
  });

  /** A served statistic as the page writes it: its qualifier (escaped) and 4 significant digits. */
  const qualified = (q: unknown, v: unknown) => (v === null ? '' : `${q === '<' ? '&lt;' : q === '>' ? '&gt;' : ''}${String(Number((v as number).toPrecision(4)))}`);

  it('shows its summary per characteristic and unit: the rows of /LocationSummaries for it, to 4 significant digits', async () => {
    const [busiest] = await rows(`SELECT "LocationId" AS id FROM observations GROUP BY 1 ORDER BY count(DISTINCT "CharacteristicName") DESC, 1 LIMIT 1`);
    const id = Number(busiest!['id']);
    const html = await (await fetch(`${server.origin}/locations/${id}`)).text();
    const api = (await (await fetch(`${server.origin}/v1/odata/v4/LocationSummaries?$filter=LocationId eq ${id}`)).json()) as { value: Record<string, unknown>[] };
    expect(api.value.length).toBeGreaterThan(1);
    const section = html.slice(html.indexOf('<h2 id="summary">'));
    const shown = [...section.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td><td class="n">([\d,]+)<\/td>(?:<td[^>]*>[^<]*<\/td>){5}<td class="n">([^<]*)<\/td>/g)].map((m) => [m[1], m[2], Number(m[3]!.replaceAll(',', '')), m[4]]);
    expect(shown).toEqual(
      api.value.map((s) => [
        [s['CharacteristicName'], s['ResultSampleFraction'], s['MethodSpeciation']].filter((x) => x !== null).join(', '),
        s['ResultUnit'] ?? '',
        s['Count'],
        qualified(s['MedianQualifier'], s['Median']),
      ]),
    );
    expect(section).toContain(`LocationSummaries?$filter=LocationId%20eq%20${id}`);
  });

  it('shows a statistic below a detection limit as a laboratory writes it, <0.005, with how it was computed', async () => {
    const api = (await (await fetch(`${server.origin}/v1/odata/v4/LocationSummaries?$filter=${encodeURIComponent("MedianQualifier eq '<'")}&$top=1`)).json()) as { value: Record<string, unknown>[] };
    const s = api.value[0]!;
    const html = await (await fetch(`${server.origin}/locations/${String(s['LocationId'])}`)).text();
    const section = html.slice(html.indexOf('<h2 id="summary">'));
    const cells = [s['MinQualifier'], s['Min'], s['P10Qualifier'], s['P10'], s['MedianQualifier'], s['Median']];
    const row = [0, 2, 4].map((i) => `<td class="n">${qualified(cells[i], cells[i + 1])}</td>`).join('');
    expect(section).toContain(row);
    expect(row).toContain('&lt;');
    expect(section).toContain(`<td>${String(s['MethodReason'])}</td>`);
  });

  it('answers an Id no location has, or one that is no number, with 404 saying what the path takes', async () => {
    const [max] = await rows(`SELECT max("Id") + 1 AS id FROM locations`);
    for (const id of [String(max!['id']), 'abc', '0', '99999999999999999999']) {
      const res = await fetch(`${server.origin}/locations/${id}`);
      expect(res.status, id).toBe(404);
      const body = (await res.json()) as { message: string };
      expect(body.message).toContain('No monitoring location with Id');
      expect(body.message).toContain('/sitemap.xml');
    }
  });
});

describe('a page asked for as JSON-LD', () => {
  it('answers the JSON-LD the page embeds, alone, when Accept prefers application/ld+json to HTML', async () => {
    const [first] = await rows(`SELECT min("Id") AS id, any_value("DOI") AS doi FROM locations WHERE "Id" = (SELECT min("Id") FROM locations)`);
    for (const path of [`/locations/${first!['id']}`, `/datasets/${String(first!['doi'])}`]) {
      const html = await (await fetch(`${server.origin}${path}`)).text();
      const res = await fetch(`${server.origin}${path}`, { headers: { Accept: 'application/ld+json, text/html;q=0.5' } });
      expect(res.headers.get('content-type'), path).toBe('application/ld+json; charset=utf-8');
      expect(await res.json(), path).toEqual(JSON.parse(jsonLdBlock(html)));
    }
  });
});

describe('GET /catalogue/locations.ndjson', () => {
  it('streams every location once, in Id order, each line a JSON-LD document rdflib reads as a Geoconnex location', { timeout: 120_000 }, async () => {
    const res = await fetch(`${server.origin}/catalogue/locations.ndjson`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('etag')).toMatch(/^W\//);
    const lines = (await res.text()).split('\n');
    expect(lines.pop()).toBe('');
    const all = await rows(LOCATIONS_SQL);
    expect(lines.map((line) => (JSON.parse(line) as { '@id': string })['@id'])).toEqual(all.map((l) => `${server.origin}/locations/${l['Id']}`));
    const g = graph(await parseRdf(`[${lines.join(',')}]`, 'json-ld'));
    for (const l of all) expectLocation(g, `${server.origin}/locations/${l['Id']}`, l, false);
  });
});

describe('the dump and the publication it reads', () => {
  it('holds the publication until its last line is sent, then lets go', async () => {
    let held = 0;
    const acquire = () => {
      const a = db.acquire();
      held++;
      let released = false;
      return { ...a, release: () => (released ? undefined : ((released = true), held--, a.release())) };
    };
    const app = createApp({ acquire, links: { trustProxy: false }, pages: { dumpWindow: 1 } });
    const res = await app.request('http://localhost/catalogue/locations.ndjson');
    expect(res.status).toBe(200);
    expect(held).toBe(1);
    const text = await res.text();
    expect(text.split('\n').length - 1).toBe(Number((await rows(`SELECT count(*) AS n FROM locations`))[0]!['n']));
    await vi.waitFor(() => expect(held).toBe(0));
  });
});
