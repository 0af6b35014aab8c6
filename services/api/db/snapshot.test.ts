import { DuckDBInstance } from '@duckdb/node-api';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STORAGE_SCHEMA_VERSION } from '../../../schemas/index.js';
import { openSnapshot } from './snapshot.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-snapshot-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openSnapshot', () => {
  // Regression: the old hint said "re-run make ingest", which refuses to build on a file of another version.
  it('refuses a file of another storage schema version, naming both versions and how to get a new file', async () => {
    const path = join(dir, 'old.duckdb');
    copyFileSync(inject('apiFixtureDb'), path);
    const instance = await DuckDBInstance.create(path);
    const conn = await instance.connect();
    await conn.run(`UPDATE tributary_meta SET value = '2' WHERE key = 'schema_version'`);
    conn.closeSync();
    instance.closeSync();
    expect(STORAGE_SCHEMA_VERSION).not.toBe('2');
    await expect(openSnapshot(path)).rejects.toThrow(
      new RegExp(`storage schema version 2; this API reads version ${STORAGE_SCHEMA_VERSION}\\. Ingest the sources into a new file \\(make ingest DUCKDB_PATH=`),
    );
  });
});
