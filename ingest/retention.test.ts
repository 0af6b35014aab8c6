/**
 * What ingest keeps for pinned next links (schemas/publication-retention.ts): a plain file's unlisted dataset files
 * until PUBLICATION_RETENTION_MS has passed, and the store's replaced publications as long, besides the three newest.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { collectFiles, UNLISTED_FILE } from './dataset-files.js';
import { publishToStore } from './publish-store.js';
import { copyPublishedFile } from './test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'tributary-retention-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const name = (n: number) => `sha256-${String(n).padStart(64, '0')}.parquet`;

describe('collectFiles', () => {
  it('removes a file no publication lists only once it has gone unlisted for the retention', async () => {
    const files = join(dir, 'files');
    mkdirSync(files);
    for (const n of [1, 2, 3]) writeFileSync(join(files, name(n)), 'x');
    const hour = 3_600_000;
    // 1 is listed; 2 and 3 go unlisted now.
    expect(await collectFiles(files, new Set([name(1)]), hour, 0)).toEqual([]);
    expect(existsSync(join(files, UNLISTED_FILE))).toBe(true);
    // Half an hour later 3 is listed again (a dataset published back), 2 still waits.
    expect(await collectFiles(files, new Set([name(1), name(3)]), hour, hour / 2)).toEqual([]);
    // An hour after it went unlisted, 2 goes; 3 went unlisted again just now and stays.
    expect(await collectFiles(files, new Set([name(1)]), hour, hour)).toEqual([name(2)]);
    expect(readdirSync(files).sort()).toEqual([name(1), name(3), UNLISTED_FILE].sort());
    expect(await collectFiles(files, new Set([name(1)]), hour, 2 * hour + 1)).toEqual([name(3)]);
    expect(readdirSync(files)).toEqual([name(1)]);
  });
});

describe('publishToStore', () => {
  it('keeps replaced publications for the retention, and only the three newest after it', async () => {
    const db = join(dir, 'hub.duckdb');
    await copyPublishedFile(inject('sampleHub').duckdbPath, db);
    const store = join(dir, 'store');
    for (let i = 0; i < 4; i++) await publishToStore(store, db, { retentionMs: 3_600_000 });
    expect(readdirSync(join(store, 'publications'))).toHaveLength(4);
    await publishToStore(store, db, { retentionMs: 0 });
    expect(readdirSync(join(store, 'publications'))).toHaveLength(3);
  });
});
