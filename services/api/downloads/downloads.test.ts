/**
 * /v1/downloads, its manifest and /v1/publications on a real socket, over a published file with real dataset files:
 * every number the index states is checked against the file's own rows and the bytes actually served.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { filesFixture, type FilesFixture } from '../testing/files-fixture.js';
import { listen, type TestServer } from '../testing/test-server.js';

interface FileEntry { url: string; bytes: number; rows: number; sha256: string; publication: string; mediaType: string }
interface Index {
  publication: string;
  manifest: string;
  publications: string;
  datasets: { DOI: string; DatasetName: string; Licence: string | null; Citation: string | null; Rows: number; files: Record<string, FileEntry> }[];
}

let fixture: FilesFixture;
let db: Database;
let server: TestServer;
let ref: DuckDBConnection;
let refInstance: DuckDBInstance;
let index: Index;

beforeAll(async () => {
  fixture = await filesFixture(inject('apiFixtureDb'));
  db = await openDatabase(fixture.path);
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }));
  refInstance = await DuckDBInstance.create(fixture.path, { access_mode: 'READ_ONLY' });
  ref = await refInstance.connect();
  index = (await (await fetch(`${server.origin}/v1/downloads`)).json()) as Index;
});
afterAll(async () => {
  ref?.closeSync();
  refInstance?.closeSync();
  await server?.close();
  await db?.close();
  await fixture?.close();
});

const rows = async (sql: string) => (await ref.runAndReadAll(sql)).getRowObjectsJson();
const sha256 = (bytes: ArrayBuffer) => createHash('sha256').update(Buffer.from(bytes)).digest('hex');

describe('GET /v1/downloads', () => {
  it('lists every dataset of /Metadata with its DOI, name, licence, citation and row count', async () => {
    const expected = await rows(`SELECT d."DOI", d."DatasetName", d."Licence", d."Citation", count(o."Id")::INTEGER AS n FROM datasets d LEFT JOIN observations o ON o."DOI" = d."DOI" GROUP BY ALL ORDER BY d."DOI"`);
    expect(index.datasets.map((d) => [d.DOI, d.DatasetName, d.Licence, d.Citation, d.Rows])).toEqual(expected.map((r) => [r['DOI'], r['DatasetName'], r['Licence'], r['Citation'], r['n']]));
    expect(index.publication).toBe((await rows(`SELECT value FROM tributary_meta WHERE key = 'publication_id'`))[0]!['value']);
    expect(index.manifest).toBe(`${server.origin}/v1/downloads/manifest.json`);
    expect(index.publications).toBe(`${server.origin}/v1/publications`);
  });

  it('gives each dataset a Parquet and a CSV file and a comparisons Parquet file whose bytes and sha256 are those served', async () => {
    for (const d of index.datasets.slice(0, 3)) {
      expect(Object.keys(d.files).sort()).toEqual(['comparisons-parquet', 'csv', 'parquet']);
      expect(d.files['comparisons-parquet']!.url).toMatch(/\.comparisons\.parquet\?/);
      expect(d.files['comparisons-parquet']!.mediaType).toBe('application/vnd.apache.parquet');
      for (const [format, f] of Object.entries(d.files)) {
        expect(f.url).toMatch(new RegExp(`^${server.origin}/v1/downloads/files/sha256-${f.sha256}/[A-Za-z0-9._-]+\\.(parquet|csv)\\?publication=${index.publication}$`));
        const body = await (await fetch(f.url)).arrayBuffer();
        expect(body.byteLength).toBe(f.bytes);
        expect(sha256(body)).toBe(f.sha256);
        if (format !== 'comparisons-parquet') expect(f.rows).toBe(d.Rows);
      }
    }
  });

  it("gives each dataset's comparisons file exactly its rows of GuidelineComparisons?$filter=DOI eq '…', in Id order", async () => {
    const fields = ['Id', 'ObservationId', 'GuidelineId', 'DOI', 'LocationId', 'ActivityStartDate', 'ActivityStartYear', 'CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultValue', 'ResultUnit', 'ResultDetectionCondition', 'Publisher', 'ProtectionLevel', 'GuidelineLower', 'GuidelineUpper', 'Verdict', 'Reason', 'Inputs'];
    // Both sides as text: JSON numbers and DuckDB's BIGINTs (JSON strings) alike.
    const norm = (r: Record<string, unknown>) => fields.map((k) => (r[k] === null || r[k] === undefined ? null : String(r[k])));
    const dir = await mkdtemp(join(tmpdir(), 'tributary-comparisons-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    let compared = 0;
    for (const d of index.datasets) {
      const f = d.files['comparisons-parquet']!;
      const path = join(dir, `${f.sha256}.parquet`);
      await writeFile(path, Buffer.from(await (await fetch(f.url)).arrayBuffer()));
      const fromFile = await rows(`SELECT ${fields.map((k) => `"${k}"`).join(', ')} FROM read_parquet('${path}')`);
      const served: Record<string, unknown>[] = [];
      for (let url: string | undefined = `${server.origin}/v1/odata/v4/GuidelineComparisons?$filter=${encodeURIComponent(`DOI eq '${d.DOI}'`)}`; url; ) {
        const page = (await (await fetch(url)).json()) as { value: Record<string, unknown>[]; '@odata.nextLink'?: string };
        served.push(...page.value);
        url = page['@odata.nextLink'];
      }
      expect(fromFile.map(norm), d.DOI).toEqual(served.map(norm));
      expect(f.rows).toBe(served.length);
      compared += served.length;
    }
    expect(compared).toBeGreaterThan(0);
  });

  it('answers 304 to If-None-Match with the publication ETag', async () => {
    const first = await fetch(`${server.origin}/v1/downloads`);
    const etag = first.headers.get('etag')!;
    expect(etag).toBe(`W/"${index.publication}"`);
    const again = await fetch(`${server.origin}/v1/downloads`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('builds absolute URLs from PUBLIC_BASE_URL, as next links are', async () => {
    const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false, publicBaseUrl: 'https://data.example.org/' } });
    const body = (await (await app.request('/v1/downloads')).json()) as Index;
    expect(body.datasets[0]!.files['parquet']!.url).toMatch(/^https:\/\/data\.example\.org\/v1\/downloads\/files\/sha256-[0-9a-f]{64}\//);
  });
});

describe('GET /v1/downloads/manifest.json', () => {
  it('lists every dataset\'s comparisons file beside, and DuckDB reads them as one table of every comparison', async () => {
    const manifest = (await (await fetch(`${server.origin}/v1/downloads/manifest.json`)).json()) as {
      publication: string;
      comparisons: { rows: number; bytes: number; duckdb: string; files: { DOI: string; path: string; url: string; object: string; bytes: number; rows: number; sha256: string }[] };
    };
    const c = manifest.comparisons;
    expect(c.files.map((f) => f.DOI)).toEqual(index.datasets.map((d) => d.DOI));
    expect(c.files.map((f) => f.sha256)).toEqual(index.datasets.map((d) => d.files['comparisons-parquet']!.sha256));
    expect(c.rows).toBe(Number((await rows(`SELECT count(*) AS n FROM guideline_comparisons`))[0]!['n']));
    expect(c.bytes).toBe(c.files.reduce((n, f) => n + f.bytes, 0));
    expect(c.duckdb).toBe(`SELECT * FROM read_parquet([${c.files.map((f) => `'${f.url}'`).join(', ')}])`);
    const dir = await mkdtemp(join(tmpdir(), 'tributary-manifest-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const local: string[] = [];
    for (const f of c.files) {
      expect(f.url).toBe(`${server.origin}${f.path}?publication=${manifest.publication}`);
      const path = join(dir, `${f.DOI.replace(/\W/g, '_')}-${f.object}`);
      await writeFile(path, Buffer.from(await (await fetch(f.url)).arrayBuffer()));
      local.push(path);
    }
    const read = await rows(`SELECT count(*)::INTEGER AS n, count(DISTINCT "Verdict")::INTEGER AS verdicts, max("Id")::VARCHAR AS last FROM read_parquet([${local.map((p) => `'${p}'`).join(', ')}])`);
    expect(read).toEqual(await rows(`SELECT count(*)::INTEGER AS n, count(DISTINCT "Verdict")::INTEGER AS verdicts, max("Id")::VARCHAR AS last FROM guideline_comparisons`));
  });

  it('lists every current Parquet file, relative and absolute, and DuckDB reads them as one table of every Record', async () => {
    const manifest = (await (await fetch(`${server.origin}/v1/downloads/manifest.json`)).json()) as {
      files: { DOI: string; path: string; url: string; object: string; bytes: number; rows: number; sha256: string }[];
      publication: string;
      rows: number;
      duckdb: string;
      geoparquet: { version: string; primaryColumn: string; encoding: string; geometryTypes: string[]; crs: string; covering: string };
    };
    expect(manifest.files.map((f) => f.DOI)).toEqual(index.datasets.map((d) => d.DOI));
    const total = Number((await rows(`SELECT count(*) AS n FROM observations`))[0]!['n']);
    expect(manifest.rows).toBe(total);
    for (const f of manifest.files) {
      expect(f.url).toBe(`${server.origin}${f.path}?publication=${manifest.publication}`);
      expect(f.object).toBe(`sha256-${f.sha256}.parquet`);
    }
    expect(manifest.duckdb).toBe(`SELECT * FROM read_parquet([${manifest.files.map((f) => `'${f.url}'`).join(', ')}])`);
    // Download the files as the recipe does, then one read_parquet over all of them.
    const dir = await mkdtemp(join(tmpdir(), 'tributary-manifest-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const local: string[] = [];
    for (const f of manifest.files) {
      const path = join(dir, f.object);
      await writeFile(path, Buffer.from(await (await fetch(f.url)).arrayBuffer()));
      local.push(path);
    }
    const list = local.map((p) => `'${p}'`).join(', ');
    const read = await rows(`SELECT count(*)::INTEGER AS n, count(DISTINCT "DOI")::INTEGER AS dois, max("Id")::VARCHAR AS last FROM read_parquet([${list}])`);
    const expected = await rows(`SELECT count(*)::INTEGER AS n, count(DISTINCT "DOI")::INTEGER AS dois, max("Id")::VARCHAR AS last FROM observations`);
    expect(read).toEqual(expected);
    // What the manifest says of GeoParquet is what every file's geo metadata says.
    const g = manifest.geoparquet;
    for (const path of local) {
      const [kv] = await rows(`SELECT decode(value) AS geo FROM parquet_kv_metadata('${path}') WHERE decode(key) = 'geo'`);
      expect(JSON.parse(String(kv!['geo']))).toMatchObject({
        version: g.version,
        primary_column: g.primaryColumn,
        columns: { [g.primaryColumn]: { encoding: g.encoding, geometry_types: g.geometryTypes, crs: { id: { authority: 'OGC', code: 'CRS84' } }, covering: { bbox: { xmin: [g.covering, 'xmin'] } } } },
      });
    }
  });
});

describe('GET /v1/publications', () => {
  type Change = { DOI: string; DatasetName: string; change: string; files?: Record<string, FileEntry> };
  type Feed = { publication: string; publications: { id: string; createdAt: string; parent: string | null; changes: Change[] }[] };
  const feed = async (query = '') => (await (await fetch(`${server.origin}/v1/publications${query}`)).json()) as Feed;
  /** What the feed must say, read from the file's own tables with SQL of the test's own. */
  const expectedHistory = async () => {
    const history = await rows(`SELECT "PublicationId" AS id, "Parent" AS parent FROM publication_history ORDER BY "PublicationId"`);
    const changes = await rows(`SELECT "PublicationId" AS id, "DOI", "DatasetName", "Change" AS change FROM publication_changes ORDER BY "PublicationId", "DOI"`);
    const written = await rows(`SELECT DISTINCT "DOI", "PublicationId" AS id FROM dataset_files`);
    return history.map((p) => ({
      id: p['id'],
      parent: p['parent'],
      changes: changes.filter((c) => c['id'] === p['id']).map((c) => ({
        DOI: c['DOI'],
        DatasetName: c['DatasetName'],
        change: c['change'],
        // Linked only while the files that change wrote are the ones served.
        ...(c['change'] !== 'removed' && written.some((w) => w['DOI'] === c['DOI'] && w['id'] === p['id']) ? { files: index.datasets.find((d) => d.DOI === c['DOI'])!.files } : {}),
      })),
    }));
  };

  it('lists every publication oldest first, with the datasets each added, replaced or removed and the files still served', async () => {
    const all = await feed();
    const expected = await expectedHistory();
    expect(all.publications.map(({ createdAt: _, ...p }) => p)).toEqual(expected);
    expect(all.publications.at(-1)!.id).toBe(index.publication);
    for (const p of all.publications) expect(p.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Every dataset served was added or replaced by some publication, with its files linked there.
    const linked = all.publications.flatMap((p) => p.changes.filter((c) => c.files).map((c) => c.DOI));
    expect([...new Set(linked)].sort()).toEqual(index.datasets.map((d) => d.DOI).sort());
  });

  it('?since=<id> answers the publications after that one', async () => {
    const ids = (await feed()).publications.map((p) => p.id);
    for (const [i, id] of ids.entries()) expect((await feed(`?since=${id}`)).publications.map((p) => p.id)).toEqual(ids.slice(i + 1));
    expect((await feed(`?since=${index.publication}`)).publications).toEqual([]);
  });

  it('?since= an unknown id is a 400 naming how to list the ids', async () => {
    const res = await fetch(`${server.origin}/v1/publications?since=20991231T000000000Z-ffffffff`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { code: string; detail: string; source: { parameter: string } }[] };
    expect(body.errors[0]).toMatchObject({ code: 'unknown_publication', source: { parameter: 'since' } });
    expect(body.errors[0]!.detail).toContain('GET /v1/publications (without since) lists every publication id');
  });
});
