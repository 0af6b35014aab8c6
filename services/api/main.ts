/** The data API process: the only file with side effects (environment, files, port, signals). */
import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { loadApiConfig } from './config.js';
import { openDatabase } from './db/database.js';

const config = loadApiConfig();
const log = (msg: string) => console.log(JSON.stringify({ time: new Date().toISOString(), service: 'api', msg }));

const db = await openDatabase(config.DUCKDB_PATH, {
  threads: config.DUCKDB_THREADS,
  memoryLimit: config.DUCKDB_MEMORY_LIMIT,
  pollMs: 1000,
  log,
}).catch((err: Error) => {
  console.error(`cannot open ${config.DUCKDB_PATH}: ${err.message}\nRun 'make ingest' (or 'make start', which ingests the sample) first.`);
  process.exit(1);
});

const app = createApp({
  acquire: () => db.acquire(),
  links: { publicBaseUrl: config.PUBLIC_BASE_URL, trustProxy: config.TRUST_PROXY },
});

const server = serve({ fetch: app.fetch, port: config.API_PORT, hostname: config.API_HOST }, (info) =>
  log(`data API listening on http://${config.API_HOST}:${info.port}/v1/odata/v4 over ${config.DUCKDB_PATH}`),
);

// SIGTERM from the orchestrator: stop accepting, let in-flight pages finish, then close DuckDB.
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: draining`);
    const deadline = setTimeout(() => process.exit(0), 10_000);
    deadline.unref();
    server.close(async () => {
      await db.close();
      process.exit(0);
    });
  });
}
