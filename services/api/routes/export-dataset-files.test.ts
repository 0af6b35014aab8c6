/**
 * Issue 29's promise about the dataset files ingest writes beside the published file (schemas/publication-files.ts):
 * a dataset's CSV file is exactly its `$format=csv` pages put together (the header once, then every line), and its
 * Parquet file holds the values and schema the Records export writes for `$filter=DOI eq '…'`. The fixture file is
 * built by the real ingest CLI, so these are the files a publish really writes.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { datasetFileName, plainFilesDir, type DownloadFormat } from '../../../schemas/publication-files.js';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { listen, type TestServer } from '../testing/test-server.js';

let path: string;
let db: Database;
let server: TestServer;
let refInstance: DuckDBInstance;
let ref: DuckDBConnection;
let dir: string;
let doi: string;
let files: Record<DownloadFormat, string>;

beforeAll(async () => {
  path = inject('apiFixtureDb');
  db = await openDatabase(path);
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }));
  refInstance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  ref = await refInstance.connect();
  dir = mkdtempSync(join(tmpdir(), 'tributary-dataset-files-test-'));
  // The dataset with the most rows: several pages of CSV.
  const rows = (await ref.runAndReadAll(`SELECT "DOI", "Format", "Sha256" FROM dataset_files WHERE "DOI" = (SELECT "DOI" FROM dataset_files ORDER BY "Rows" DESC, "DOI" LIMIT 1)`)).getRowObjects();
  doi = String(rows[0]!['DOI']);
  files = Object.fromEntries(rows.map((r) => [r['Format'], join(plainFilesDir(path), datasetFileName(String(r['Sha256']), r['Format'] as DownloadFormat))])) as Record<DownloadFormat, string>;
});
afterAll(async () => {
  await server.close();
  ref.closeSync();
  refInstance.closeSync();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const filter = () => `$filter=${encodeURIComponent(`DOI eq '${doi}'`).replace(/'/g, '%27')}`;

describe("a dataset's files", () => {
  it('CSV: byte for byte the $format=csv pages of its DOI, the header once', async () => {
    const pages: string[] = [];
    let next: string | undefined = `${server.origin}/v1/odata/v4/Records?${filter()}&$format=csv&$top=1000`;
    while (next) {
      const res: Response = await fetch(next);
      expect(res.status).toBe(200);
      pages.push(await res.text());
      next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    }
    expect(pages.length).toBeGreaterThan(1);
    const [header] = pages[0]!.split('\r\n');
    const lines = pages.flatMap((p) => p.split('\r\n').slice(1).filter(Boolean));
    expect(readFileSync(files.csv, 'utf8')).toBe(`${header}\r\n${lines.join('\r\n')}\r\n`);
  });

  it("Parquet: the Records export's schema and values for its DOI", async () => {
    const res = await fetch(`${server.origin}/v1/export/Records?${filter()}&$format=parquet`);
    expect(res.status).toBe(200);
    const exported = join(dir, 'export.parquet');
    writeFileSync(exported, Buffer.from(await res.arrayBuffer()));
    const schema = async (file: string) => (await ref.runAndReadAll(`SELECT name, type, logical_type, num_children FROM parquet_schema('${file}')`)).getRowObjectsJson();
    expect(await schema(files.parquet)).toEqual(await schema(exported));
    const rows = async (file: string) => (await ref.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)).getRowObjectsJson();
    const fromFile = await rows(files.parquet);
    expect(fromFile.length).toBe(Number(res.headers.get('x-total-count')));
    expect(fromFile).toEqual(await rows(exported));
  });
});
