/** The data API process: the only file with side effects (environment, files, port, signals). */
import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { loadApiConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { openKeyStore } from './keys/key-store.js';
import { createQueryGate } from './limits/query-gate.js';
import { NODE_SERVER_OPTIONS } from './middleware/url-length.js';

const config = loadApiConfig();
// A page's COPY holds a libuv worker thread while it waits for a slow client to drain the pipe (db/copy-text.ts).
// The query gate admits MAX_CONCURRENT_QUERIES at once, and up to CURSOR_CACHE_SIZE cursors wait between pages
// with their COPY blocked (db/cursor.ts): give them their own threads on top of libuv's default 4, so file and DNS
// work never wait behind them. Read by libuv at its first use, which comes after this line.
process.env.UV_THREADPOOL_SIZE ??= String(config.MAX_CONCURRENT_QUERIES + config.CURSOR_CACHE_SIZE + 4);
const log = (msg: string) => console.log(JSON.stringify({ time: new Date().toISOString(), service: 'api', msg }));

const keys = await openKeyStore({ file: config.API_KEYS_FILE, plainKeys: config.API_KEYS, pollMs: 1000, log }).catch((err: Error) => {
  console.error(`cannot read API keys: ${err.message}`);
  process.exit(1);
});
if (!keys.required) {
  if (config.API_KEYS_REQUIRED) {
    console.error(`API_KEYS_REQUIRED=1 but there are no keys: issue one with 'make key-issue OWNER=…' (writes ${config.API_KEYS_FILE}) or set API_KEYS.`);
    process.exit(1);
  }
  // A fresh checkout must answer `make start` and the README's curl with zero setup; the first issued key
  // (the key file appearing) turns keys on without a restart.
  log(`WARNING: no API keys configured (no API_KEYS, no ${config.API_KEYS_FILE}): the API is OPEN to every client. Run 'make key-issue OWNER=you@example.org' to require keys, and set API_KEYS_REQUIRED=1 in production.`);
}

const db = await openDatabase(config.DUCKDB_PATH, {
  threads: config.DUCKDB_THREADS,
  memoryLimit: config.DUCKDB_MEMORY_LIMIT,
  cursors: { max: config.CURSOR_CACHE_SIZE, idleMs: config.CURSOR_IDLE_MS },
  pollMs: 1000,
  log,
}).catch((err: Error) => {
  console.error(`cannot open ${config.DUCKDB_PATH}: ${err.message}\nRun 'make ingest' (or 'make start', which ingests the sample) first.`);
  process.exit(1);
});

let stopping = false;
const app = createApp({
  acquire: () => db.acquire(),
  draining: () => stopping,
  links: { publicBaseUrl: config.PUBLIC_BASE_URL, trustProxy: config.TRUST_PROXY },
  limits: { queryTimeoutMs: config.QUERY_TIMEOUT_MS, maxPageBytes: config.MAX_PAGE_BYTES },
  log,
  explore: { assetsDir: config.EXPLORE_ASSETS_DIR, regionsFile: config.REGIONS_FILE, tileUrl: config.EXPLORE_TILE_URL, tileAttribution: config.EXPLORE_TILE_ATTRIBUTION },
  access: {
    keys,
    corsOrigins: config.CORS_ORIGINS,
    rateLimit: { rps: config.RATE_LIMIT_RPS, burst: config.RATE_LIMIT_BURST },
    maxConcurrentPerKey: config.MAX_CONCURRENT_PER_KEY,
    queryGate: createQueryGate({ maxConcurrent: config.MAX_CONCURRENT_QUERIES, maxQueue: config.QUERY_QUEUE, maxWaitMs: config.QUERY_TIMEOUT_MS }),
    maxUrlBytes: config.MAX_URL_BYTES,
    trustProxy: config.TRUST_PROXY,
    log,
  },
});

const server = serve({ fetch: app.fetch, port: config.API_PORT, hostname: config.API_HOST, serverOptions: NODE_SERVER_OPTIONS }, (info) =>
  log(`data API listening on http://${config.API_HOST}:${info.port}/v1/odata/v4 over ${config.DUCKDB_PATH}`),
);

// SIGTERM from the orchestrator: stop accepting, let in-flight responses finish (up to SHUTDOWN_GRACE_MS, then
// cut what is left), close DuckDB, exit 0.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: draining (up to ${config.SHUTDOWN_GRACE_MS} ms)`);
    let finished = false;
    const finish = async () => {
      if (finished) return;
      finished = true;
      keys.close();
      // Held until exit: what closing awaits (a cursor's pipe thread ending) does not keep the loop alive by itself,
      // and a loop that empties first exits with 0 before DuckDB is closed and "stopped" logged.
      setInterval(() => {}, 1000);
      await db.close(2000);
      log('stopped');
      process.exit(0);
    };
    const deadline = setTimeout(() => {
      log('drain deadline reached: closing the remaining connections');
      if ('closeAllConnections' in server) server.closeAllConnections();
      void finish();
    }, config.SHUTDOWN_GRACE_MS);
    deadline.unref();
    // close() stops accepting and (Node ≥ 19) closes idle keep-alive connections; busy ones end after their response.
    server.close(() => {
      clearTimeout(deadline);
      void finish();
    });
  });
}
