/**
 * §6: the conventional design in the local PostgreSQL: one wide `observations` table with a primary key on Id
 * and an index on (LocationId, Id), loaded with the same rows, queried through `pg` with `row_to_json`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { Duck } from './duck.js';
import { bind, type Predicate } from './filters.js';
import { PG_CONNECTION, PG_DATABASE, type PgPageSql } from './pg-client.js';
import { RECORD_COLUMNS } from './reference.js';

const EXTRA_COLUMNS = `"LocationId", "ActivityStartYear", "ActivityGroupType"`;

const PG_TYPES: Record<string, string> = {
  BIGINT: 'bigint', INTEGER: 'integer', DOUBLE: 'double precision', FLOAT: 'real', VARCHAR: 'text', DATE: 'date',
  TIME: 'time', TIMESTAMP: 'timestamp', 'TIMESTAMP WITH TIME ZONE': 'timestamptz', UUID: 'uuid', BOOLEAN: 'boolean',
};

function psql(database: string, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('psql', ['-h', PG_CONNECTION.host, '-p', String(PG_CONNECTION.port), '-U', PG_CONNECTION.user, '-d', database, '-v', 'ON_ERROR_STOP=1', '-q', '-c', command], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql exited with ${code}: ${command}`))));
    child.on('error', reject);
  });
}

export interface PgLoad {
  readonly loadedAt: string;
  readonly loadMs: number;
  readonly fresh: boolean;
}

/** Loads the rows into `tributary_bench` unless the marker (in the cache dir and in the database) names this cache key. */
export async function ensurePostgres(duck: Duck, cacheDir: string, key: string, log: (s: string) => void): Promise<PgLoad> {
  const markerPath = join(cacheDir, 'pg-loaded.json');
  const marker = existsSync(markerPath) ? (JSON.parse(readFileSync(markerPath, 'utf8')) as PgLoad & { key: string }) : undefined;
  const admin = new pg.Client({ ...PG_CONNECTION, database: 'postgres' });
  await admin.connect();
  try {
    const exists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [PG_DATABASE])).rowCount === 1;
    if (exists && marker?.key === key) {
      const db = new pg.Client({ ...PG_CONNECTION, database: PG_DATABASE });
      await db.connect();
      const stored = await db.query(`SELECT value FROM bench_meta WHERE key = 'cache_key'`).catch(() => ({ rows: [] as { value: string }[] }));
      await db.end();
      if (stored.rows[0]?.value === key) return { ...marker, fresh: false };
    }
    log(`PostgreSQL: (re)creating ${PG_DATABASE} for ${key}`);
    await admin.query(`DROP DATABASE IF EXISTS ${PG_DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${PG_DATABASE}`);
  } finally {
    await admin.end();
  }

  const started = performance.now();
  const described = await duck.all(`DESCRIBE SELECT ${RECORD_COLUMNS}, ${EXTRA_COLUMNS} FROM observations`);
  const columns = described.map((r) => `"${String(r['column_name'])}" ${PG_TYPES[String(r['column_type'])] ?? 'text'}`);
  const db = new pg.Client({ ...PG_CONNECTION, database: PG_DATABASE });
  await db.connect();
  const csv = `/tmp/tributary-bench-pg-${process.pid}.csv`;
  const regionsCsv = `/tmp/tributary-bench-pg-regions-${process.pid}.csv`;
  try {
    await db.query(`CREATE TABLE observations (${columns.join(', ')})`);
    await db.query(`CREATE TABLE location_regions ("LocationId" bigint NOT NULL, "RegionId" text NOT NULL)`);
    await db.query(`CREATE TABLE bench_meta (key text PRIMARY KEY, value text)`);
    log(`PostgreSQL: exporting CSV from DuckDB`);
    await duck.all(`COPY (SELECT ${RECORD_COLUMNS}, ${EXTRA_COLUMNS} FROM observations ORDER BY "Id") TO '${csv}' (FORMAT CSV, HEADER false)`);
    await duck.all(`COPY (SELECT "LocationId", "RegionId" FROM location_regions) TO '${regionsCsv}' (FORMAT CSV, HEADER false)`);
    log(`PostgreSQL: \\copy into ${PG_DATABASE}`);
    await psql(PG_DATABASE, `\\copy observations FROM '${csv}' WITH (FORMAT csv)`);
    await psql(PG_DATABASE, `\\copy location_regions FROM '${regionsCsv}' WITH (FORMAT csv)`);
    log(`PostgreSQL: primary key, (LocationId, Id) index, VACUUM ANALYZE`);
    await db.query(`ALTER TABLE observations ADD PRIMARY KEY ("Id")`);
    await db.query(`CREATE INDEX observations_location_id ON observations ("LocationId", "Id")`);
    await db.query(`ALTER TABLE location_regions ADD PRIMARY KEY ("RegionId", "LocationId")`);
    await db.query(`VACUUM ANALYZE observations`);
    await db.query(`VACUUM ANALYZE location_regions`);
    // The load leaves gigabytes of dirty buffers for the checkpointer to write out in the background: written now,
    // so that writing cannot overlap the figures measured next.
    await db.query(`CHECKPOINT`);
    await db.query(`INSERT INTO bench_meta VALUES ('cache_key', $1)`, [key]);
  } finally {
    await db.end();
    await rm(csv, { force: true });
    await rm(regionsCsv, { force: true });
  }
  const load: PgLoad & { key: string } = { key, loadedAt: new Date().toISOString(), loadMs: performance.now() - started, fresh: true };
  await writeFile(markerPath, `${JSON.stringify(load)}\n`);
  return load;
}

/**
 * The keyset page of `row_to_json` text that §6 times against the API's page: `where` and, when `after` is given,
 * `"Id" > after`. With `after: 'param'` the last Id is left for `PgTimed.extract` to append.
 */
export function pgPageSql(where: Predicate | undefined, after: number | 'param' | undefined, top = 10_000): PgPageSql {
  const n = where?.params.length ?? 0;
  const conds = [where ? `(${bind(where)})` : undefined, after !== undefined ? `"Id" > $${n + 1}` : undefined].filter(Boolean);
  const text = `SELECT "Id", row_to_json(t)::text AS j FROM (SELECT ${RECORD_COLUMNS} FROM observations${conds.length ? ` WHERE ${conds.join(' AND ')}` : ''} ORDER BY "Id" LIMIT ${top}) t`;
  return { text, values: [...(where?.params ?? []), ...(typeof after === 'number' ? [after] : [])] };
}
