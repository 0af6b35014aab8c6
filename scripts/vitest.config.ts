import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// Lives in scripts/ because the repository's top level is fixed; `make test` passes it with --config.

// The suite checks the runtime the services run on: `npx vitest` straight from a shell on another major version
// would pass or fail for reasons of its own. `make test` runs on the pinned Node (scripts/node.sh).
const pinned = (JSON.parse(readFileSync(resolve(import.meta.dirname, '../package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
if (process.versions.node.split('.')[0] !== pinned.split('.')[0]) {
  throw new Error(`the tests run on Node ${process.version}, but Tributary runs on Node ${pinned} (package.json engines.node): run them with make test, which installs it`);
}

// As services/api/main.ts does for the server: pages held open by tests (slow readers, concurrency limits) each
// keep a COPY on a libuv worker thread. Forked test workers inherit this.
process.env.UV_THREADPOOL_SIZE ??= '16';

export default defineConfig({
  root: resolve(import.meta.dirname, '..'),
  test: {
    include: ['{services,ingest,schemas,scripts}/**/*.test.ts'],
    // Integration tests open real DuckDB files, sockets and PostgreSQL databases.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default in a run is one worker fewer than the cores: one worker on a 2-core machine, idle while its
    // test waits on a spawned CLI, a server or a browser. Half again as many workers as cores keeps the cores busy;
    // a number, as vitest caps a percentage at the core count.
    maxWorkers: Math.ceil(availableParallelism() * 1.5),
    // Each file in a process of its own (vitest's default, said because it was tried off): files that hold responses
    // open leave libuv threads blocked in COPYs until their process ends, and a later file sharing the process then
    // found its queries waiting for a thread (access.server.test.ts failed in a full run, passed alone).
    isolate: true,
    // The default summary, then the ten slowest files (scripts/slowest-files.ts): a slowdown shows in the run that made it.
    reporters: ['default', [resolve(import.meta.dirname, 'slowest-files.ts'), { count: 10 }]],
    // One published DuckDB file, built by the real generator and ingest CLIs, shared by the API tests.
    globalSetup: ['services/api/testing/fixture-db.ts'],
  },
});
