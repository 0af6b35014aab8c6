import { DuckDBInstance } from '@duckdb/node-api';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const fixturesDir = new URL('./fixtures/src/', import.meta.url).pathname;

export async function tempDir(prefix = 'tributary-ingest-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Copies fixture datasets into `dest`; beta's CSV is gzipped here so no binary is committed. */
export async function copyFixtures(dest: string, folders = ['alpha', 'beta', 'gamma', 'broken']): Promise<string> {
  for (const f of folders) await cp(join(fixturesDir, f), join(dest, f), { recursive: true });
  if (folders.includes('beta')) {
    const csv = join(dest, 'beta', 'data.csv');
    await writeFile(`${csv}.gz`, gzipSync(await readFile(csv)));
    await rm(csv);
  }
  return dest;
}

/** Rows of a query against a DuckDB file opened read-only (BIGINT as number, dates as strings). */
export async function query(path: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const reader = await conn.runAndReadAll(sql);
    return reader.getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Every table of the published contract, each in its physical order, for comparing two files. */
export async function dumpTables(path: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of ['datasets', 'locations', 'location_regions', 'observations', 'observation_stats']) {
    out[t] = await query(path, `SELECT * FROM ${t}`);
  }
  out.tributary_meta = await query(path, `SELECT * FROM tributary_meta WHERE key NOT IN ('published_at', 'publication_id') ORDER BY key`);
  return out;
}
