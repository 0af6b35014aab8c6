import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getResource } from '../schemas/catalogue.js';
import { datasetFileName, plainFilesDir, storeFilesDir, type DownloadFormat } from '../schemas/publication-files.js';
import { runCompact } from './compact.js';
import { runIngest } from './pipeline.js';
import { publishToStore } from './publish-store.js';
import { runRemove } from './remove.js';
import { copyFixtures, copyPublishedFile, listedFilesMissing, query, tempDir } from './test-support.js';

/**
 * The dataset files of issue 29 on a real DuckDB file: written per new or replaced dataset, kept for unchanged ones
 * (the same inode, not rewritten), dropped from the listing by a remove, collected from disk once no served
 * publication lists them, and carried into the publication store; publication_history and publication_changes
 * across add, replace, remove and compact.
 */

const ALPHA = '10.25976/alph-aa11';
const BETA = '10.25976/beta-bb22';
const GAMMA = '10.25976/gamm-cc33';
const hubs = new URL('../scripts/sample/hubs.geojson', import.meta.url).pathname;
const GAMMA_ROW = 'Gamma,G-1,Gamma creek,62.4540,-114.3718,WGS84,,,,,River/Stream,Field Msr/Obs,Surface Water,2017-09-10,,,,,,,,,pH,,,7.8,None,Actual,,,,,Accepted,,,,,,,,,\n';

interface Listed {
  readonly DOI: string;
  readonly Format: string;
  readonly Sha256: string;
  readonly Bytes: number;
  readonly Rows: number;
  readonly PublicationId: string;
}

const listed = async (db: string) => (await query(db, 'SELECT * FROM dataset_files ORDER BY "DOI", "Format"')) as unknown as Listed[];
const fileOf = (db: string, f: Listed) => join(plainFilesDir(db), datasetFileName(f.Sha256, f.Format as DownloadFormat));
const publicationOf = async (db: string) => String((await query(db, "SELECT value FROM tributary_meta WHERE key = 'publication_id'"))[0]?.value);
const history = (db: string) => query(db, 'SELECT "PublicationId", strftime("CreatedAt", \'%Y%m%dT%H%M%S%g\') AS at, "Parent" FROM publication_history ORDER BY "CreatedAt"');
const changes = (db: string, id: string) => query(db, `SELECT "DOI", "DatasetName", "Change" FROM publication_changes WHERE "PublicationId" = '${id}' ORDER BY "DOI"`);
const sha256 = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

/** alpha, beta and gamma published into an empty file, once for the file; each test changes a copy of it. */
let first: Promise<string> | undefined;
async function ingestFixtures(dir: string) {
  first ??= (async () => {
    const db = join(await tempDir(), 'db', 'tributary.duckdb');
    const report = await runIngest({ src: await copyFixtures(join(dir, 'first'), ['alpha', 'beta', 'gamma']), duckdbPath: db, regionsFile: hubs });
    expect(report.published).toBe(true);
    return db;
  })();
  const src = await copyFixtures(join(dir, 'src'), ['alpha', 'beta', 'gamma']);
  const db = join(dir, 'db', 'tributary.duckdb');
  await copyPublishedFile(await first, db);
  return { src, db };
}

describe('dataset files', () => {
  it('are written per dataset and format, complete under their hash, with the Records rows in Id order', async () => {
    const { db } = await ingestFixtures(await tempDir());
    const files = await listed(db);
    expect(files.map((f) => [f.DOI, f.Format])).toEqual([ALPHA, BETA, GAMMA].flatMap((d) => [[d, 'comparisons-parquet'], [d, 'csv'], [d, 'parquet']]));
    expect(await listedFilesMissing(db)).toEqual([]);
    // Stored in the documented order, as the merge rewrites it.
    expect((await query(db, 'SELECT "DOI", "Format" FROM dataset_files')).map((f) => [f.DOI, f.Format])).toEqual(files.map((f) => [f.DOI, f.Format]));
    const id = await publicationOf(db);
    const records = getResource('Records')!.fields.map((f) => f.name);
    const comparisons = getResource('GuidelineComparisons')!.fields.map((f) => f.name);
    let compared = 0;
    for (const f of files) {
      const path = fileOf(db, f);
      expect(await sha256(path)).toBe(f.Sha256);
      expect((await stat(path)).size).toBe(Number(f.Bytes));
      expect(f.PublicationId).toBe(id);
      const table = f.Format === 'comparisons-parquet' ? 'guideline_comparisons' : 'observations';
      const ids = (await query(db, `SELECT "Id" FROM ${table} WHERE "DOI" = '${f.DOI}' ORDER BY "Id"`)).map((r) => Number(r.Id));
      expect(Number(f.Rows)).toBe(ids.length);
      if (f.Format === 'comparisons-parquet') {
        compared += ids.length;
        const columns = await query(db, `SELECT name FROM parquet_schema('${path}') WHERE name <> 'duckdb_schema'`);
        // The served fields of GuidelineComparisons, then the location's point as GeoParquet, as the export writes them.
        expect(columns.map((c) => c.name)).toEqual([...comparisons, 'geometry', 'bbox', 'xmin', 'ymin', 'xmax', 'ymax']);
        expect((await query(db, `SELECT "Id" FROM read_parquet('${path}')`)).map((r) => Number(r.Id))).toEqual(ids);
      } else if (f.Format === 'csv') {
        const lines = (await readFile(path, 'utf8')).split('\r\n');
        expect(lines[0]).toBe(records.join(','));
        expect(lines.at(-1)).toBe('');
        expect(lines.slice(1, -1).map((l) => Number(l.split(',')[0]))).toEqual(ids);
      } else {
        const columns = await query(db, `SELECT name FROM parquet_schema('${path}') WHERE name <> 'duckdb_schema'`);
        // The Records fields unchanged, then GeoParquet's point and its bbox covering (a struct of four).
        expect(columns.map((c) => c.name)).toEqual([...records, 'geometry', 'bbox', 'xmin', 'ymin', 'xmax', 'ymax']);
        expect((await query(db, `SELECT "Id" FROM read_parquet('${path}')`)).map((r) => Number(r.Id))).toEqual(ids);
      }
    }
    // The fixtures have comparisons, so the files are not trivially empty.
    expect(compared).toBeGreaterThan(0);
    expect(await history(db)).toEqual([{ PublicationId: id, at: id.slice(0, 18), Parent: null }]);
    expect((await changes(db, id)).map((c) => [c.DOI, c.Change])).toEqual([ALPHA, BETA, GAMMA].map((d) => [d, 'added']));
  });

  it('are rewritten only for a changed dataset; a remove unlists, and the publish after it collects', async () => {
    const { src, db } = await ingestFixtures(await tempDir());
    const first = await publicationOf(db);
    const before = await listed(db);
    const inodes = new Map(await Promise.all(before.map(async (f) => [f.Sha256, await stat(fileOf(db, f))] as const)));

    await appendFile(join(src, 'gamma', 'b-good.csv'), GAMMA_ROW);
    expect((await runIngest({ src, duckdbPath: db, regionsFile: hubs })).published).toBe(true);
    const second = await publicationOf(db);
    const after = await listed(db);
    for (const f of after) {
      const was = before.find((b) => b.DOI === f.DOI && b.Format === f.Format)!;
      if (f.DOI === GAMMA) {
        expect(f.Sha256).not.toBe(was.Sha256);
        expect(f.PublicationId).toBe(second);
        if (f.Format === 'comparisons-parquet') expect(Number(f.Rows)).toBe((await query(db, `SELECT "Id" FROM guideline_comparisons WHERE "DOI" = '${GAMMA}'`)).length);
        else expect(Number(f.Rows)).toBe(Number(was.Rows) + 1);
      } else {
        expect(f).toEqual(was);
        const now = await stat(fileOf(db, f));
        expect([now.ino, now.mtimeMs]).toEqual([inodes.get(f.Sha256)!.ino, inodes.get(f.Sha256)!.mtimeMs]);
      }
    }
    // The replaced publication's gamma files stay while an API may still serve it.
    for (const f of before) expect(existsSync(fileOf(db, f))).toBe(true);
    expect((await changes(db, second)).map((c) => [c.DOI, c.Change])).toEqual([[GAMMA, 'replaced']]);

    expect((await runRemove({ duckdbPath: db, doi: BETA })).published).toBe(true);
    const third = await publicationOf(db);
    expect((await listed(db)).map((f) => f.DOI)).toEqual([ALPHA, ALPHA, ALPHA, GAMMA, GAMMA, GAMMA]);
    expect(await changes(db, third)).toEqual([{ DOI: BETA, DatasetName: 'Beta Lakes', Change: 'removed' }]);
    const betaFiles = before.filter((f) => f.DOI === BETA);
    for (const f of betaFiles) expect(existsSync(fileOf(db, f))).toBe(true);

    // Compaction: the same files listed, a history row without changes; beta's and the first gamma's files go.
    const kept = await listed(db);
    expect((await runCompact({ duckdbPath: db })).published).toBe(true);
    const fourth = await publicationOf(db);
    expect(await listed(db)).toEqual(kept);
    expect(await changes(db, fourth)).toEqual([]);
    for (const f of before.filter((b) => b.DOI !== ALPHA)) expect(existsSync(fileOf(db, f)), `${f.DOI} ${f.Format}`).toBe(false);
    for (const f of kept) expect(existsSync(fileOf(db, f))).toBe(true);
    expect(await listedFilesMissing(db)).toEqual([]);

    const chain = await history(db);
    expect(chain.map((h) => [h.PublicationId, h.Parent])).toEqual([
      [first, null],
      [second, first],
      [third, second],
      [fourth, third],
    ]);
    // Every publication's changes are still there to answer `since` any of them.
    expect((await changes(db, first)).length).toBe(3);
    expect((await changes(db, second)).length).toBe(1);
  });

  it('become objects of the publication store, listed in its manifest and pruned with the publications', async () => {
    const dir = await tempDir();
    const { src, db } = await ingestFixtures(dir);
    const store = join(dir, 'store');
    const one = await publishToStore(store, db);
    const fileObjects = one.objects.filter((o) => o.role === 'dataset-file');
    expect(one.objects[0]!.role).toBe('database');
    expect(fileObjects.map((o) => [o.doi, o.format])).toEqual((await listed(db)).map((f) => [f.DOI, f.Format]));
    for (const o of fileObjects) expect(await sha256(join(store, o.path))).toBe(o.sha256);

    await appendFile(join(src, 'gamma', 'b-good.csv'), GAMMA_ROW);
    await runIngest({ src, duckdbPath: db, regionsFile: hubs });
    await runRemove({ duckdbPath: db, doi: BETA });
    const two = await publishToStore(store, db);
    // Two more publishes of the same file: the first publication is now past the three newest, and past a
    // retention of 0.
    for (let i = 0; i < 2; i++) await publishToStore(store, db);
    const paths = two.objects.filter((o) => o.role === 'dataset-file').map((o) => o.path);
    expect(paths.filter((p) => fileObjects.some((o) => o.path === p)).length).toBe(3); // alpha's, shared
    // The first publication is pruned with the objects only it listed (beta's, the first gamma's).
    for (const o of fileObjects) expect(existsSync(join(store, o.path)), `${o.doi} ${o.format}`).toBe(o.doi === ALPHA);
    for (const p of paths) expect(existsSync(join(storeFilesDir(store), p.slice('objects/'.length)))).toBe(true);
  });
});
