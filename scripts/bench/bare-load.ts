/**
 * §7's reference (issue 55): DuckDB's own bare load of the CSV files a `make ingest` of `src` reads, into a fresh
 * file: `CREATE TABLE … AS SELECT * FROM read_csv([every file], union_by_name)` and a checkpoint, on DuckDB's
 * defaults. No validation, no Ids, no order, no derived tables: the engine's speed on the same bytes, which the
 * ingest's end-to-end time is held against. Run as a process of its own (`bareLoadCommand`), timed as a whole as
 * the ingest is; prints the rows loaded.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDataFile } from '../../ingest/read.js';

/** The data files under `src` (each dataset folder's `.csv` and `.csv.gz`, by ingest/read.ts's own test). */
export async function dataFiles(src: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(src, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && isDataFile(entry.name)) out.push(join(entry.parentPath, entry.name));
  }
  return out.sort();
}

export async function bareLoad(src: string, target: string): Promise<number> {
  await rm(target, { force: true });
  const files = await dataFiles(src);
  const instance = await DuckDBInstance.create(target);
  const conn = await instance.connect();
  const list = files.map((f) => `'${f.replaceAll("'", "''")}'`).join(', ');
  await conn.run(`CREATE TABLE observations AS SELECT * FROM read_csv([${list}], union_by_name = true)`);
  await conn.run('CHECKPOINT');
  const rows = Number((await conn.runAndReadAll('SELECT count(*) FROM observations')).getRows()[0]?.[0]);
  conn.closeSync();
  instance.closeSync();
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [src, target] = process.argv.slice(2);
  if (!src || !target) throw new Error('usage: bare-load <src folder> <target .duckdb>');
  console.log(await bareLoad(src, target));
}
