/**
 * The bench's DuckDB, in a process of its own (scripts/bench/duck.ts forks it): answers `all` and `drain` requests
 * over the IPC channel, each timed here so that in-process figures carry no IPC cost.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { serveParent } from './child-rpc.js';
import type { DuckAnswer, DuckRequest } from './duck.js';

const instance = await DuckDBInstance.create(process.argv[2]!, { access_mode: 'READ_ONLY' });
const conn = await instance.connect();

async function answer(req: DuckRequest): Promise<DuckAnswer> {
  const started = performance.now();
  if (req.op === 'all') {
    const rows = (await conn.runAndReadAll(req.sql, [...req.params])).getRowObjects();
    return { ms: performance.now() - started, rows };
  }
  const result = await conn.stream(req.sql, [...req.params]);
  let count = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    count += chunk.rowCount;
  }
  return { ms: performance.now() - started, count };
}

serveParent(answer, true, () => {
  conn.closeSync();
  instance.closeSync();
});
