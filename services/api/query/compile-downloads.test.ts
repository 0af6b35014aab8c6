/**
 * The downloads' queries: exact SQL, then the same SQL text run on the published fixture file, where each dataset
 * has one file per format with its metadata, and the history holds the publication with every dataset added.
 */
import { describe, expect, it } from 'vitest';
import { DOWNLOAD_FORMATS } from '../../../schemas/publication-files.js';
import { compileDatasetFiles, compilePublicationChanges, compilePublicationHistory } from './compile-downloads.js';
import type { CompiledQuery } from './sql.js';
import { run, useFixture } from '../testing/plans.js';

const fixture = useFixture();

const QUERIES: readonly (readonly [name: string, compile: () => CompiledQuery, sql: string])[] = [
  [
    'compileDatasetFiles',
    compileDatasetFiles,
    `SELECT f."DOI" AS "DOI", d."DatasetName" AS "DatasetName", d."Licence" AS "Licence", d."Citation" AS "Citation", ` +
      `f."Format", f."Sha256", f."Bytes", f."Rows", f."PublicationId" ` +
      `FROM "dataset_files" f LEFT JOIN "datasets" d ON d."DOI" = f."DOI" ORDER BY f."DOI", f."Format"`,
  ],
  [
    'compilePublicationHistory',
    compilePublicationHistory,
    `SELECT h."PublicationId", strftime(h."CreatedAt", '%Y-%m-%dT%H:%M:%S.%gZ') AS "CreatedAt", h."Parent" FROM "publication_history" h ORDER BY h."PublicationId"`,
  ],
  [
    'compilePublicationChanges',
    compilePublicationChanges,
    `SELECT c."PublicationId", c."DOI", c."DatasetName", c."Change" FROM "publication_changes" c ORDER BY c."PublicationId", c."DOI"`,
  ],
];

describe('the downloads’ queries: golden SQL and parameters', () => {
  it.each(QUERIES)('%s', (_, compile, sql) => {
    expect(compile()).toEqual({ sql, params: [] });
  });
});

describe('the downloads’ queries on the fixture file', () => {
  it('compileDatasetFiles: one file per dataset and format, with the dataset’s metadata', async () => {
    const files = await run(fixture(), compileDatasetFiles());
    const datasets = await run(fixture(), { sql: 'SELECT "DOI", "DatasetName" FROM datasets ORDER BY "DOI"', params: [] });
    expect(datasets.length).toBeGreaterThan(1);
    expect(files.map((f) => `${String(f['DOI'])} ${String(f['Format'])}`)).toEqual(datasets.flatMap((d) => [...DOWNLOAD_FORMATS].sort().map((f) => `${String(d['DOI'])} ${f}`)));
    for (const f of files) {
      expect(f['DatasetName']).toBe(datasets.find((d) => d['DOI'] === f['DOI'])!['DatasetName']);
      expect(String(f['Sha256'])).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('compilePublicationHistory and compilePublicationChanges: the publication that added every dataset', async () => {
    const history = await run(fixture(), compilePublicationHistory());
    expect(history.length).toBeGreaterThan(0);
    expect(String(history.at(-1)!['CreatedAt'])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const changes = await run(fixture(), compilePublicationChanges());
    const ids = new Set(history.map((h) => h['PublicationId']));
    expect(changes.length).toBeGreaterThan(0);
    for (const c of changes) expect(ids.has(c['PublicationId']!)).toBe(true);
  });
});
