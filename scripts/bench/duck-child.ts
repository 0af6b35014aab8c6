/**
 * The bench's DuckDB, in a process of its own (scripts/bench/duck.ts forks it): answers `all` and `drain` requests
 * over the IPC channel, each timed here so that in-process figures carry no IPC cost.
 */
import { DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';

interface Request {
  readonly id: number;
  readonly op: 'all' | 'drain';
  readonly sql: string;
  readonly params: DuckDBValue[];
}

const instance = await DuckDBInstance.create(process.argv[2]!, { access_mode: 'READ_ONLY' });
const conn = await instance.connect();

async function answer(req: Request): Promise<{ ms: number; rows?: Record<string, DuckDBValue>[]; count: number }> {
  const started = performance.now();
  if (req.op === 'all') {
    const rows = (await conn.runAndReadAll(req.sql, req.params)).getRowObjects();
    return { ms: performance.now() - started, rows, count: rows.length };
  }
  const result = await conn.stream(req.sql, req.params);
  let count = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    count += chunk.rowCount;
  }
  return { ms: performance.now() - started, count };
}

// One request at a time, in order: the parent awaits each answer before it measures anything else.
let queue: Promise<unknown> = Promise.resolve();
process.on('message', (req: Request) => {
  queue = queue.then(() =>
    answer(req).then(
      (res) => process.send!({ id: req.id, ...res }),
      (err: unknown) => process.send!({ id: req.id, error: err instanceof Error ? err.message : String(err) }),
    ),
  );
});
process.on('disconnect', () => {
  conn.closeSync();
  instance.closeSync();
  process.exit(0);
});
process.send!({ ready: true });
