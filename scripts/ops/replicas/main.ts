/**
 * `make replicas N=3`: the replicated topology on one machine — N API replicas on loopback ports API_PORT+1 … +N
 * behind HAProxy on API_PORT, sharing Redis (REDIS_URL, default the local 127.0.0.1:6379) and a publication store
 * (PUBLICATION_STORE, default data/publications). An empty store is first given a publication: DUCKDB_PATH as it
 * is (run `make ingest` or `make start` first), the way `make ingest PUBLICATION_STORE=…` publishes. Runs until
 * Ctrl-C, then drains and stops every process it started.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { currentPublication, publicationOf, publishToStore } from '../../../ingest/publish-store.js';
import { startTopology } from './topology.js';

const n = Number(process.env['N'] ?? '3');
const port = Number(process.env['API_PORT'] ?? '3000');
const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const store = resolve(process.env['PUBLICATION_STORE'] || 'data/publications');
const duckdb = process.env['DUCKDB_PATH'] || 'data/tributary.duckdb';
const main = process.env['API_MAIN'];

if (!Number.isInteger(n) || n < 1 || n > 64) {
  console.error(`N=${process.env['N']}: expected the number of replicas, 1 to 64 (make replicas N=3)`);
  process.exit(2);
}
if (!(await currentPublication(store))) {
  if (!existsSync(duckdb)) {
    console.error(`the publication store ${store} is empty and there is no ${duckdb} to publish: run 'make start' (sample) or 'make ingest PUBLICATION_STORE=${store}' first`);
    process.exit(1);
  }
  // parent null: only into a store that is still empty (an ingest may be publishing into it meanwhile). Under the
  // file's own id, so that ingest on this DUCKDB_PATH finds its working file holds the current publication.
  const p = await publishToStore(store, duckdb, { parent: null, id: await publicationOf(duckdb) });
  console.log(`published ${duckdb} into ${store} as ${p.id}`);
}

const topology = await startTopology({
  replicas: n,
  port,
  host: process.env['API_HOST'] || '0.0.0.0',
  replicaBasePort: port + 1,
  redisUrl,
  store,
  apiMain: main ? { args: [main] } : undefined,
  log: (line) => console.log(line),
}).catch((err: Error) => {
  console.error(`make replicas: ${err.message}`);
  process.exit(1);
});
console.log(`${n} replicas behind HAProxy: ${topology.url}/v1/odata/v4 (replicas on ports ${port + 1}-${port + n}; Redis ${redisUrl.replace(/\/\/[^@]*@/, '//')}; store ${store}). Ctrl-C stops them.`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void topology.stop(15_000).then(() => process.exit(0));
  });
}
// A replica that dies is reported; the balancer keeps serving from the others.
for (const r of topology.replicas) r.process.on('exit', (code, sig) => stopping || console.error(`${r.name} exited (${sig ?? code}); the balancer routes around it`));
topology.haproxy.on('exit', (code) => {
  if (stopping) return;
  console.error(`haproxy exited with ${code}: stopping the replicas`);
  void topology.stop().then(() => process.exit(1));
});
