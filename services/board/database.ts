import pg from 'pg';
import type { BoardConfig } from './config.js';
import { startEmbeddedDb, type EmbeddedDb } from './embedded-db.js';
import { errorFields, type Log } from './log.js';
import { applySchema } from './schema.js';

export interface Database {
  readonly pool: pg.Pool;
  /** Present only for the embedded default; tests use it to take the socket server down and up. */
  readonly embedded?: EmbeddedDb;
  close(): Promise<void>;
}

/**
 * The pool the board runs on: the server named by DB_* or, when DB_SERVICE is unset, embedded PGlite on a
 * Unix socket in a private folder (which also gets `posts` created, since nobody migrates a fresh machine by hand).
 */
export async function openDatabase(config: BoardConfig, deps: { log: Log }): Promise<Database> {
  if (config.dbService !== '') {
    const pool = createPool(config, deps.log, {
      host: config.dbService,
      port: config.dbPort,
      database: config.dbName,
      user: config.dbUser,
      password: config.dbPass,
    });
    return { pool, close: () => pool.end() };
  }
  const embedded = await startEmbeddedDb({ dataDir: config.dataDir, maxConnections: config.poolMax });
  // PGlite accepts any user and database name; these only satisfy the startup message.
  const pool = createPool(config, deps.log, { host: embedded.host, port: embedded.port, user: 'postgres', database: 'postgres' });
  try {
    await applySchema(pool);
  } catch (err) {
    await pool.end();
    await embedded.close();
    throw err;
  }
  return {
    pool,
    embedded,
    async close() {
      await pool.end();
      await embedded.close();
    },
  };
}

function createPool(config: BoardConfig, log: Log, target: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool({
    ...target,
    // With PGlite, more clients than the multiplexer admits would be refused with a plain-text line.
    max: config.poolMax,
    connectionTimeoutMillis: config.connectTimeoutMs,
    idleTimeoutMillis: 10_000,
    // Sent in the startup packet: no extra round trip per connection.
    ...(config.statementTimeoutMs > 0 ? { statement_timeout: config.statementTimeoutMs } : {}),
    application_name: 'tributary-board',
    keepAlive: true,
  });
  // A client whose server goes away emits `error`; with no listener that ends the process. The pool listens only
  // while a client is idle (and re-emits on itself); a checked-out client between two statements, or one awaiting
  // its ROLLBACK after a failed query, has no listener of its own, so every client gets one here. pg has already
  // failed the client's pending queries and marked it unusable, and the pool discards it on release, so the
  // next request connects afresh.
  pool.on('connect', (client) =>
    client.on('error', (err) => log({ level: 'warn', msg: 'database connection lost', ...errorFields(err) })),
  );
  pool.on('error', () => {
    // Already logged by the client's own listener above.
  });
  return pool;
}
