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
  // Version 3 files derived ActivityGroupType from an older reading of the groups (portable loggers as
  // Continuous Data, Sample-Other as Other); upstream's lookup came with version 4, so they must not be served.
  it.each(['2', '3'])('refuses a file of storage schema version %s, naming both versions and how to get a new file', async (old) => {
    const path = join(dir, `old-${old}.duckdb`);
    copyFileSync(inject('apiFixtureDb'), path);
    const instance = await DuckDBInstance.create(path);
    const conn = await instance.connect();
    await conn.run(`UPDATE tributary_meta SET value = '${old}' WHERE key = 'schema_version'`);
    conn.closeSync();
    instance.closeSync();
    expect(STORAGE_SCHEMA_VERSION).not.toBe(old);
    await expect(openSnapshot(path)).rejects.toThrow(
      new RegExp(`storage schema version ${old}; this API reads version ${STORAGE_SCHEMA_VERSION}\\. Ingest the sources into a new file \\(make ingest DUCKDB_PATH=`),
    );
  });
});
