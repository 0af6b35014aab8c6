/** Test support: the app over the shared fixture file, with a second, plain DuckDB connection for reference SQL. */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Hono } from 'hono';
import { createApp } from '../app.js';
import { acquirer, openDatabase, type Database } from '../db/database.js';

export interface FixtureApp {
  readonly db: Database;
  readonly app: Hono;
  /** A read-only connection of its own: expected answers come from it, never from the code under test. */
  readonly ref: DuckDBConnection;
  close(): Promise<void>;
}

/** `path`: the fixture file (`inject('apiFixtureDb')` in a test). */
export async function openFixtureApp(path: string): Promise<FixtureApp> {
  const db = await openDatabase(path);
  const app = createApp({ acquire: acquirer(db), links: { trustProxy: false } });
  const refInstance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const ref = await refInstance.connect();
  return {
    db,
    app,
    ref,
    async close() {
      ref.closeSync();
      refInstance.closeSync();
      await db.close();
    },
  };
}
