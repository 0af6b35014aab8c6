/** The data API process: the only file with side effects (environment, files, port, signals). */
import { loadApiConfig } from './config.js';
import { threadPoolSize } from './limits/thread-pool.js';

const config = loadApiConfig();
// Read by libuv at its first use, and loading DuckDB's addon is one: everything else is imported after this line
// (limits/thread-pool.ts says why this size; limits/thread-pool.test.ts pins the order).
process.env.UV_THREADPOOL_SIZE ??= String(threadPoolSize({ maxConcurrentQueries: config.MAX_CONCURRENT_QUERIES, maxParkedResponses: config.MAX_PARKED_RESPONSES, cursorCacheSize: config.CURSOR_CACHE_SIZE }));
const { serve } = await import('@hono/node-server');
const { accessOptions } = await import('./access-options.js');
const { createApp } = await import('./app.js');
const { acquirer, openDatabase } = await import('./db/database.js');
const { stopPipeThreadsOnExit } = await import('./db/extract/extract.js');
const { openKeyStore } = await import('./keys/key-store.js');
const { openRedisKeyStore } = await import('./keys/redis-key-store.js');
const { NODE_SERVER_OPTIONS } = await import('./middleware/url-length.js');
const { followCurrent } = await import('./publication/follow-current.js');
const { locatePublication, storeLocator } = await import('./publication/store-source.js');
const { plainFilesDir, storeFilesDir } = await import('../../schemas/publication-files.js');
const { createRedis, redisLabel, waitForRedis } = await import('./redis/redis-client.js');
const { redisSlots } = await import('./redis/redis-slots.js');
const { apiMetrics } = await import('./observe/api-metrics.js');
const { metricsApp } = await import('./observe/metrics-app.js');
const { observeGate } = await import('./observe/observe-gate.js');
const { createQueryGate } = await import('./limits/query-gate.js');
const { duckdbMemory } = await import('./db/duckdb-memory.js');
const { mkdirSync, statfsSync } = await import('node:fs');
const { tmpdir, totalmem } = await import('node:os');
const { join } = await import('node:path');
stopPipeThreadsOnExit();
const log = (msg: string) => console.log(JSON.stringify({ time: new Date().toISOString(), service: 'api', msg }));

// With REDIS_URL the replicas share limits and keys through Redis (docs/deployment.md). Redis must answer at start
// (the keys are read from it); an outage later keeps the last keys and limits each replica alone, logged.
const redis = config.REDIS_URL ? createRedis({ url: config.REDIS_URL, commandTimeoutMs: config.REDIS_TIMEOUT_MS, log }) : undefined;
if (redis) {
  await waitForRedis(redis, config.REDIS_URL!, 10_000).catch((err: Error) => {
    console.error(`cannot connect to Redis: ${err.message}`);
    process.exit(1);
  });
}
const prefix = config.REDIS_PREFIX;
const keys = await (redis
  ? openRedisKeyStore({ redis, prefix, plainKeys: config.API_KEYS, pollMs: 250, log })
  : openKeyStore({ file: config.API_KEYS_FILE, plainKeys: config.API_KEYS, pollMs: 1000, log })
).catch((err: Error) => {
  console.error(`cannot read API keys: ${err.message}`);
  process.exit(1);
});
const slots = redis ? redisSlots(redis, { prefix }) : undefined;
const keySource = redis ? `Redis ${redisLabel(config.REDIS_URL!)}` : config.API_KEYS_FILE;
if (!keys.required) {
  if (config.API_KEYS_REQUIRED) {
    console.error(`API_KEYS_REQUIRED=1 but there are no keys: issue one with 'make key-issue OWNER=…' (writes ${config.API_KEYS_FILE}) or set API_KEYS.`);
    process.exit(1);
  }
  // A fresh checkout must answer `make start` and the README's curl with zero setup; the first issued key
  // (the key file appearing) turns keys on without a restart.
  log(`WARNING: no API keys configured (no API_KEYS, no key in ${keySource}): the API is OPEN to every client. Run 'make key-issue OWNER=you@example.org' to require keys, and set API_KEYS_REQUIRED=1 in production.`);
}

// DuckDB's bounds, from the machine unless set (db/duckdb-memory.ts): a query past them is a 503, not the machine's memory.
const tempDirectory = config.DUCKDB_TEMP_DIRECTORY ?? join(tmpdir(), 'tributary-duckdb');
mkdirSync(tempDirectory, { recursive: true });
const free = (() => {
  const fs = statfsSync(tempDirectory);
  return fs.bavail * fs.bsize;
})();
const duckdb = duckdbMemory(
  { totalMemBytes: totalmem(), freeTempBytes: free, maxConcurrentQueries: config.MAX_CONCURRENT_QUERIES, cursorCacheSize: config.CURSOR_CACHE_SIZE },
  { memoryLimit: config.DUCKDB_MEMORY_LIMIT, maxTempDirectorySize: config.DUCKDB_MAX_TEMP_DIRECTORY_SIZE },
);
log(`DuckDB: memory_limit ${duckdb.memoryLimit}${config.DUCKDB_MEMORY_LIMIT ? '' : ' (derived)'}, spilling at most ${duckdb.maxTempDirectorySize} into ${tempDirectory}`);

// With a publication store the replica serves the publication its CURRENT file names (DUCKDB_PATH is not read).
const store = config.PUBLICATION_STORE;
const served = store ? `publication store ${store}` : config.DUCKDB_PATH;
const db = await openDatabase(config.DUCKDB_PATH, {
  locate: store ? storeLocator(store, log) : undefined,
  locateOne: store ? (id) => locatePublication(store, id, config.PUBLICATION_RETENTION_MS) : undefined,
  retentionMs: config.PUBLICATION_RETENTION_MS,
  threads: config.DUCKDB_THREADS,
  memoryLimit: duckdb.memoryLimit,
  tempDirectory,
  maxTempDirectorySize: duckdb.maxTempDirectorySize,
  cursors: { max: config.CURSOR_CACHE_SIZE, idleMs: config.CURSOR_IDLE_MS },
  pollMs: 1000,
  log,
}).catch((err: Error) => {
  console.error(`cannot open ${served}: ${err.message}\nRun 'make ingest${store ? ` PUBLICATION_STORE=${store}` : ''}' (or 'make start', which ingests the sample) first.`);
  process.exit(1);
});

// Metrics only when asked for (METRICS_PORT), on a port of their own; the access log unless ACCESS_LOG=off.
const gate = createQueryGate({ maxConcurrent: config.MAX_CONCURRENT_QUERIES, maxQueue: config.QUERY_QUEUE, maxWaitMs: config.QUERY_TIMEOUT_MS, maxParked: config.MAX_PARKED_RESPONSES });
const metrics = config.METRICS_PORT !== undefined
  ? apiMetrics({
      served: () => {
        const taken = db.acquire();
        taken.release();
        return { publication: taken.publication, cursorsOpen: taken.snapshot.cursorsOpen };
      },
      queryGate: gate,
      redisUp: redis ? () => redis.status === 'ready' : undefined,
    })
  : undefined;

let stopping = false;
const app = createApp({
  acquire: acquirer(db),
  retentionMs: config.PUBLICATION_RETENTION_MS,
  draining: () => stopping,
  beforeNextLink: store ? followCurrent({ refresh: () => db.refresh(), log }) : undefined,
  links: { publicBaseUrl: config.PUBLIC_BASE_URL, trustProxy: config.TRUST_PROXY },
  limits: { queryTimeoutMs: config.QUERY_TIMEOUT_MS, maxPageBytes: config.MAX_PAGE_BYTES, maxApplyGroups: config.MAX_APPLY_GROUPS, applyRowsReadPerRow: config.APPLY_ROWS_READ_PER_ROW, maxBodyBytes: config.MAX_BODY_BYTES, bodyTimeoutMs: config.BODY_TIMEOUT_MS, bodyMinBytesPerSecond: config.BODY_MIN_BYTES_PER_SECOND, streamStallMs: config.STREAM_STALL_MS, pageStallMs: config.PAGE_STALL_MS },
  exportTimeoutMs: config.EXPORT_TIMEOUT_MS,
  // The dataset files of issue 29, beside the published file or among the store's objects.
  filesDir: store ? storeFilesDir(store) : plainFilesDir(config.DUCKDB_PATH),
  log,
  regionsFile: config.REGIONS_FILE,
  explore: { assetsDir: config.EXPLORE_ASSETS_DIR, tileUrl: config.EXPLORE_TILE_URL, tileAttribution: config.EXPLORE_TILE_ATTRIBUTION },
  access: accessOptions(config, { keys, shared: redis && slots ? { redis, slots } : undefined, log, queryGate: metrics ? observeGate(gate, metrics) : gate }),
  observe: { metrics, accessLog: config.ACCESS_LOG ? (line) => process.stdout.write(`${line}\n`) : undefined, sample: config.ACCESS_LOG_SAMPLE, trustProxy: config.TRUST_PROXY },
});

const server = serve({ fetch: app.fetch, port: config.API_PORT, hostname: config.API_HOST, serverOptions: NODE_SERVER_OPTIONS }, (info) =>
  log(`data API listening on http://${config.API_HOST}:${info.port}/v1/odata/v4 over ${served}`),
);

const metricsServer = metrics
  ? serve({ fetch: metricsApp(() => metrics.render()).fetch, port: config.METRICS_PORT!, hostname: config.METRICS_HOST }, (info) =>
      log(`metrics on http://${config.METRICS_HOST}:${info.port}/metrics`),
    )
  : undefined;

// SIGTERM from the orchestrator: stop accepting, let in-flight responses finish (up to SHUTDOWN_GRACE_MS, then
// cut what is left), close DuckDB, exit 0.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: draining (${config.SHUTDOWN_DELAY_MS ? `unready for ${config.SHUTDOWN_DELAY_MS} ms, then ` : ''}up to ${config.SHUTDOWN_GRACE_MS} ms)`);
    let finished = false;
    const finish = async () => {
      if (finished) return;
      finished = true;
      keys.close();
      slots?.close();
      metricsServer?.close();
      // Held until exit: what closing awaits (a cursor's pipe thread ending) does not keep the loop alive by itself,
      // and a loop that empties first exits with 0 before DuckDB is closed and "stopped" logged.
      setInterval(() => {}, 1000);
      await db.close(2000);
      redis?.disconnect();
      log('stopped');
      process.exit(0);
    };
    // Behind a load balancer (SHUTDOWN_DELAY_MS > 0) /readyz has already turned 503: keep serving what still
    // arrives until the balancer's health check has taken this replica out, so no request meets a closed port.
    setTimeout(() => {
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
    }, config.SHUTDOWN_DELAY_MS);
  });
}
