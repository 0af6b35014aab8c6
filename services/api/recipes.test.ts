/**
 * The runnable recipes of docs/recipes/, run as a user would run them against a real server on loopback with
 * `make start`'s default limits (testing/start-defaults.ts), none of their requests refused.
 * R (httr2, arrow), datastreamjs and Excel/Power BI are documented only: none is installable from the registries CI
 * uses (datastreamjs is not published on npm, and its host is fixed to api.datastream.org; R's arrow has no Debian
 * package).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { openDatabase, type Database } from './db/database.js';
import { listenAsMakeStart, refusals, type StartDefaultsServer } from './testing/start-defaults.js';
import { REPO_ROOT } from './testing/fixture-db.js';
import { filesFixture, type FilesFixture } from './testing/files-fixture.js';
import { runClient } from './testing/run-client.js';

const RECIPES = join(REPO_ROOT, 'docs', 'recipes');
let files: FilesFixture;
let db: Database;
let server: StartDefaultsServer;
let url: string;
let work: string;

beforeAll(async () => {
  files = await filesFixture(inject('apiFixtureDb'));
  work = mkdtempSync(join(tmpdir(), 'tributary-recipes-'));
  db = await openDatabase(files.path);
  server = await listenAsMakeStart(db);
  url = server.origin;
});
let before = 0;
beforeEach(() => {
  before = server.answered.length;
});
afterEach(() => {
  expect(refusals(server, before), "requests refused under make start's limits").toEqual([]);
});
afterAll(async () => {
  await server?.close();
  await db?.close();
  await files?.close();
  rmSync(work, { recursive: true, force: true });
});

interface Index {
  datasets: { DOI: string; Rows: number; files: Record<string, { url: string; bytes: number; sha256: string }> }[];
}
const index = async () => (await (await fetch(`${url}/v1/downloads`)).json()) as Index;

/** Runs a recipe asynchronously: the server answering it lives in this process. */
const run = (command: string, args: string[]) => runClient(command, args, { TRIBUTARY_URL: url });

describe('docs/recipes', () => {
  it('curl.sh: discovery, citation, a filtered page, a count, an aggregate, a CSV extract', async () => {
    const { status, stdout, stderr } = await run('bash', [join(RECIPES, 'curl.sh')]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain(`"@odata.context":"${url}/v1/odata/v4/$metadata"`);
    expect(stdout).toContain('"Citation"');
    expect(stdout).toMatch(/"CharacteristicName":"pH"|"ResultValue"/);
    expect(stdout).toMatch(/\{"value":\d+\}/);
    expect(stdout).toMatch(/"Count":\d+/);
    // A CSV page with more pages: next first, then the dataset's DOI.
    expect(stdout).toMatch(/^link: <http:\/\/127\.0\.0\.1:\d+\/v1\/odata\/v4\/Records\?[^>]+>; rel="next", <https:\/\/doi\.org\/[^>]+>; rel="cite-as", <[^>]+\/v1\/citation\/Records\?[^>]+>; rel="describedby"/im);
    expect(stdout).toContain('DOI,MonitoringLocationID,ActivityStartDate,CharacteristicName,ResultValue,ResultUnit');
  });

  it('python_pandas_export.py: pandas reads a whole filtered result as Parquet from the export URL, as many rows as X-Total-Count', async () => {
    const { status, stdout, stderr } = await run('python3', [join(RECIPES, 'python_pandas_export.py'), 'pH']);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const [, rows, total] = /^(\d+) pH rows \(X-Total-Count (\d+)\)/.exec(stdout) ?? [];
    expect(Number(rows)).toBeGreaterThan(0);
    expect(rows).toBe(total);
    expect(stdout).toMatch(/^ActivityStartDate\s*$/m);
  });

  it('python_urllib.py: pages a whole dataset by @odata.nextLink and matches $count', async () => {
    const { status, stdout, stderr } = await run('python3', [join(RECIPES, 'python_urllib.py')]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const m = /(\d+) rows paged, \$count (\d+)/.exec(stdout);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(1000); // more than one page
    expect(m![1]).toBe(m![2]);
    expect(stdout).toMatch(/cite as: https:\/\/doi\.org\/\S+/);
    expect(stdout).toMatch(/licence: /);
  });

  it("python_pandas_files.py: pandas reads a dataset's Parquet file from the URL the downloads index gives", async () => {
    const listed = (await index()).datasets[1]!;
    const { status, stdout, stderr } = await run('python3', [join(RECIPES, 'python_pandas_files.py'), listed.DOI]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain(`${listed.DOI}: ${listed.Rows} rows from ${listed.files['parquet']!.bytes} bytes of Parquet`);
    expect(stdout).toMatch(/cite as: https:\/\/doi\.org\/\S+ \(.+\); licence: /);
  });

  it("duckdb_manifest.py: DuckDB reads every file of the manifest as one table of every Record; a second run downloads nothing", async () => {
    const folder = join(work, 'parquet');
    const manifest = (await (await fetch(`${url}/v1/downloads/manifest.json`)).json()) as { rows: number; files: unknown[]; publication: string };
    const first = await run('python3', [join(RECIPES, 'duckdb_manifest.py'), folder]);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`${manifest.rows} rows of ${manifest.files.length} datasets in ${manifest.files.length} files (${manifest.files.length} downloaded), publication ${manifest.publication}`);
    expect(readdirSync(folder).filter((f) => f.endsWith('.parquet'))).toHaveLength(manifest.files.length);
    const again = await run('python3', [join(RECIPES, 'duckdb_manifest.py'), folder]);
    expect(again.stdout).toContain(`in ${manifest.files.length} files (0 downloaded)`);
  });

  it('polars_manifest.py: polars scans every file of the manifest over HTTP (footers, then column chunks by range) as one table', async () => {
    const manifest = (await (await fetch(`${url}/v1/downloads/manifest.json`)).json()) as { rows: number; files: unknown[]; publication: string };
    const from = server.answered.length;
    const { status, stdout, stderr } = await run('python3', [join(RECIPES, 'polars_manifest.py')]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain(`${manifest.rows} rows in ${manifest.files.length} files, publication ${manifest.publication}`);
    expect(stdout).toMatch(/^pH: [1-9]\d* results, mean \d+\.\d\d$/m);
    // More requests for files than the pages' bucket holds, several in flight at once: metered by bytes, not counted.
    const reads = server.answered.slice(from).filter((a) => a.target.startsWith('/v1/downloads/files/'));
    expect(reads.length).toBeGreaterThan(2 * manifest.files.length);
    expect(reads.every((a) => a.status === 200 || a.status === 206)).toBe(true);
  });

  it('curl_resume.sh: a cut download resumes with curl -C - (206) and matches its SHA-256', async () => {
    const largest = (await index()).datasets.map((d) => d.files['csv']!).sort((a, b) => b.bytes - a.bytes)[0]!;
    const { status, stdout, stderr } = await run('bash', [join(RECIPES, 'curl_resume.sh'), work]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const third = Math.floor(largest.bytes / 3);
    expect(stdout).toContain(`cut at ${third} of ${largest.bytes} bytes`);
    expect(stdout).toContain(`resumed: HTTP 206, ${largest.bytes - third} bytes`);
    expect(stdout).toContain(`sha256 ok: ${largest.sha256}`);
  });

  it('python_citation.py: a result as Parquet and its citation as BibTeX beside it, found by rel="describedby"', async () => {
    const folder = join(work, 'cited-py');
    const { status, stdout, stderr } = await run('python3', [join(RECIPES, 'python_citation.py'), 'pH', folder]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const cited = JSON.parse(readFileSync(join(folder, 'records.json'), 'utf8')) as { rows: number; publication: string; datasets: { url: string; Rows: number }[] };
    const expected = Number((await (await fetch(`${url}/v1/odata/v4/Records?$filter=${encodeURIComponent("CharacteristicName eq 'pH'")}&$count=true`)).json()).value);
    expect(cited.rows).toBe(expected);
    expect(stdout).toContain(`records.parquet: ${expected} pH rows of publication ${cited.publication}`);
    expect(stdout).toContain(`records.bib: ${cited.datasets.length} datasets to cite`);
    const bib = readFileSync(join(folder, 'records.bib'), 'utf8');
    expect(bib.match(/^@misc\{/gm)).toHaveLength(cited.datasets.length);
    for (const d of cited.datasets) expect(bib).toContain(`url = {${d.url}}`);
    expect(statSync(join(folder, 'records.parquet')).size).toBeGreaterThan(0);
  });

  it('curl_citation.sh: records.csv with records.bib and records.ris of the same query', async () => {
    const folder = join(work, 'cited-curl');
    const { status, stdout, stderr } = await run('bash', [join(RECIPES, 'curl_citation.sh'), folder]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const cited = (await (await fetch(`${url}/v1/citation/Records?$filter=${encodeURIComponent("CharacteristicName eq 'pH'")}`)).json()) as { rows: number; datasets: unknown[] };
    expect(stdout).toContain(`records.csv: ${cited.rows} rows`);
    expect(stdout).toMatch(new RegExp(`records\\.bib: ${cited.datasets.length} datasets, cited from http://127\\.0\\.0\\.1:\\d+/v1/citation/Records\\?\\$filter=`));
    expect(stdout).toContain(`records.ris: ${cited.datasets.length} datasets`);
    expect(readFileSync(join(folder, 'records.ris'), 'utf8')).toMatch(/^TY {2}- DATA\r\n/);
  });

  it('harvest_rdflib.py: robots.txt → sitemap → the DCAT catalogue, a landing page and every location, each read by rdflib', { timeout: 180_000 }, async () => {
    const listed = await index();
    const locations = ((await (await fetch(`${url}/v1/odata/v4/Locations?$count=true`)).json()) as { value: number }).value;
    const { status, stdout, stderr } = await run('python3', [join(RECIPES, 'harvest_rdflib.py')]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain(`${listed.datasets.length} datasets`);
    for (const d of listed.datasets) {
      expect(stdout).toContain(`dcat: ${d.DOI} `);
      expect(stdout).toContain(`3 files, ${d.files['parquet']!.bytes + d.files['csv']!.bytes + d.files['comparisons-parquet']!.bytes} bytes`);
    }
    expect(stdout).toMatch(/^page: https:\/\/doi\.org\/\S+ is a schema:Dataset named '.+', \d+ variables, 3 downloads$/m);
    expect(stdout).toContain(`locations: ${locations} hydro locations, ${locations} subjectOf a dataset`);
  });

  it('the recipes are syntactically valid even where their tool is not run', () => {
    execFileSync('bash', ['-n', join(RECIPES, 'curl.sh')]);
    execFileSync('bash', ['-n', join(RECIPES, 'curl_resume.sh')]);
    execFileSync('bash', ['-n', join(RECIPES, 'curl_citation.sh')]);
    execFileSync(process.execPath, ['--check', join(RECIPES, 'datastreamjs.mjs')]);
  });
});
