import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIngest } from './pipeline.js';
import { runRemove } from './remove.js';
import { fixturesDir, publishedDois, query, tempDir } from './test-support.js';

/**
 * metadata.json as real ones are written: DOIs compared case-insensitively (one spelling per DOI is published, remove
 * finds it in any case), blank optional fields published as absent.
 */

async function folderWithDoi(src: string, name: string, doi: string, extra: Record<string, unknown> = {}): Promise<void> {
  await cp(join(fixturesDir, 'alpha'), join(src, name), { recursive: true });
  const meta = JSON.parse(await readFile(join(src, name, 'metadata.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(src, name, 'metadata.json'), JSON.stringify({ ...meta, DOI: doi, ...extra }));
}

describe('DOIs in any case', () => {
  it('refuses a second spelling of a published DOI, naming both, and removes a DOI given in another case', async () => {
    const dir = await tempDir();
    const duckdbPath = join(dir, 'doi.duckdb');
    const first = join(dir, 'first');
    await folderWithDoi(first, 'a', '10.5066/P9(AB);C');
    expect((await runIngest({ src: first, duckdbPath })).published).toBe(true);

    const second = join(dir, 'second');
    await folderWithDoi(second, 'a', '10.5066/p9(ab);c');
    await folderWithDoi(second, 'b', '10.23719/1000123');
    const report = await runIngest({ src: second, duckdbPath });
    expect(report.published).toBe(true);
    const refused = report.datasets.find((d) => d.folder === 'a');
    expect(refused?.status).toBe('failed');
    expect(refused?.error).toBe("DOI 10.5066/p9(ab);c differs only in case from the published 10.5066/P9(AB);C, the same DOI: spell it as published, or remove the published one first (make remove DOI='10.5066/P9(AB);C')");
    expect(await publishedDois(duckdbPath)).toEqual(['10.23719/1000123', '10.5066/P9(AB);C']);

    const removed = await runRemove({ duckdbPath, doi: '10.5066/P9(ab);C' });
    expect(removed.datasets.map((d) => [d.DOI, d.status])).toEqual([['10.5066/P9(AB);C', 'removed']]);
    expect(await publishedDois(duckdbPath)).toEqual(['10.23719/1000123']);
  });

  it('keeps to DOI_PATTERN when the operator sets one, naming it in the failure', async () => {
    const dir = await tempDir();
    await folderWithDoi(dir, 'a', '10.5066/P9ABCDEF');
    await folderWithDoi(dir, 'b', '10.25976/ab12-cd34');
    const report = await runIngest({ src: dir, duckdbPath: join(dir, 'p.duckdb'), doiPattern: /^10\.(25976|81029)\/.+$/ });
    expect(report.datasets.map((d) => [d.folder, d.status])).toEqual([['a', 'failed'], ['b', 'loaded']]);
    expect(report.datasets[0]?.error).toContain("DOI '10.5066/P9ABCDEF' does not match DOI_PATTERN ^10\\.(25976|81029)\\/.+$");
  });
});

describe('blank metadata fields', () => {
  it('publishes a dataset whose optional fields are "" or null, as absent (NULL)', async () => {
    const dir = await tempDir();
    await folderWithDoi(dir, 'a', '10.23719/blank', { Version: '', CreateTimestamp: '', Licence: null, Keywords: null, Abstract: '' });
    const duckdbPath = join(dir, 'b.duckdb');
    expect((await runIngest({ src: dir, duckdbPath })).published).toBe(true);
    const [row] = await query(duckdbPath, 'SELECT "Version", "CreateTimestamp", "Licence", "Keywords", "Abstract", "DatasetName" FROM datasets');
    expect(row).toEqual({ Version: null, CreateTimestamp: null, Licence: null, Keywords: null, Abstract: null, DatasetName: 'Alpha River Monitoring' });
  });

  it('fails a dataset whose required field is blank, naming it and what to write', async () => {
    const dir = await tempDir();
    await folderWithDoi(dir, 'a', '10.23719/blank', { DatasetName: '' });
    const report = await runIngest({ src: dir, duckdbPath: join(dir, 'b.duckdb') });
    expect(report.datasets[0]?.error).toBe('a/metadata.json is invalid: DatasetName: DatasetName is required: give it in metadata.json, e.g. "DatasetName": "Bow River Monitoring"');
  });
});

describe('formula text in metadata.json (issue 56 item 2, upstream\'s CSVInjection rule)', () => {
  const formulas = { DatasetName: '=HYPERLINK("http://evil.example","Data")', Abstract: '@SUM(A1)', Keywords: ['river', '+cmd'], Version: '-1' };

  it('refuses it at the default level, naming each field and how to publish it', async () => {
    const dir = await tempDir();
    await folderWithDoi(dir, 'a', '10.23719/formula', formulas);
    const report = await runIngest({ src: dir, duckdbPath: join(dir, 'f.duckdb') });
    const [d] = report.datasets;
    expect(d?.status).toBe('failed');
    expect(d?.error).toMatch(/^a\/metadata\.json is invalid: DatasetName starts with "=", which a spreadsheet runs as a formula \(DataStream's CSVInjection rule\): remove that first character, or declare "ValidationLevel": "storable"/);
    expect(d?.error).toContain('Abstract starts with "@"');
    expect(d?.error).toContain('Keywords[1] starts with "+"');
    // A number is a value, not a formula.
    expect(d?.error).not.toContain('Version');
  });

  it('publishes it as given at storable, with a warning per field', async () => {
    const dir = await tempDir();
    await folderWithDoi(dir, 'a', '10.23719/formula', { ...formulas, ValidationLevel: 'storable' });
    const duckdbPath = join(dir, 'f.duckdb');
    const report = await runIngest({ src: dir, duckdbPath });
    const [d] = report.datasets;
    expect(d?.status).toBe('loaded');
    const warned = d!.warnings.filter((w) => w.file === 'a/metadata.json').map((w) => w.message.split(' starts with')[0]);
    expect(warned).toEqual(['DatasetName', 'Abstract', 'Keywords[1]']);
    const [row] = await query(duckdbPath, 'SELECT "DatasetName", "Abstract", "Keywords" FROM datasets');
    expect(row).toEqual({ DatasetName: formulas.DatasetName, Abstract: formulas.Abstract, Keywords: formulas.Keywords });
  });
});
