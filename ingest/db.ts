import { BIGINT, LIST, listValue, VARCHAR, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { peakRssMB } from './stage-memory.js';

export type Params = readonly DuckDBValue[];

/** Runs one statement and returns its rows as plain JS objects (BIGINT as bigint). */
export async function all(conn: DuckDBConnection, sql: string, params: Params = []): Promise<Record<string, unknown>[]> {
  const t0 = traceStart();
  const reader = await conn.runAndReadAll(sql, params.length > 0 ? [...params] : undefined);
  trace(sql, t0);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}

export async function run(conn: DuckDBConnection, sql: string, params: Params = []): Promise<number> {
  const t0 = traceStart();
  const result = await conn.run(sql, params.length > 0 ? [...params] : undefined);
  trace(sql, t0);
  return Number(result.rowsChanged);
}

// INGEST_TRACE=1 prints each statement's wall and CPU time (the process's, so DuckDB's threads included) and the
// stage's peak RSS after it (stage-memory.ts): where an ingest spends its time and which statement raised its memory,
// without a profiler. CPU time is the figure to compare on a loaded machine; wall ≈ CPU means
// the statement ran on one core. Switched on by main.ts from the settings.
let tracing = false;
export function traceStatements(on: boolean): void {
  tracing = on;
}
interface TraceStart {
  readonly wall: number;
  readonly cpu: NodeJS.CpuUsage;
}
function trace(sql: string, t0: TraceStart): void {
  if (!tracing) return;
  const cpu = process.cpuUsage(t0.cpu);
  const ms = Math.round(performance.now() - t0.wall);
  const peak = peakRssMB();
  process.stderr.write(`[sql ${ms} ms, cpu ${Math.round((cpu.user + cpu.system) / 1000)} ms${peak === undefined ? '' : `, stage peak ${peak} MB`}] ${sql.replace(/\s+/g, ' ').slice(0, 110)}\n`);
}
const traceStart = (): TraceStart => ({ wall: performance.now(), cpu: process.cpuUsage() });

/** The first column of the first row as a number (counts, maxima); 0 when NULL. */
export async function scalarNumber(conn: DuckDBConnection, sql: string, params: Params = []): Promise<number> {
  const rows = await all(conn, sql, params);
  const value = rows[0] ? Object.values(rows[0])[0] : null;
  return value === null || value === undefined ? 0 : Number(value);
}

/**
 * A value the appender takes: a number goes into a DOUBLE column, a bigint into an integer one, an array into
 * VARCHAR[], a BigInt64Array into BIGINT[] (a typed array, so that an empty list still says its type).
 */
export type AppendValue = string | number | bigint | boolean | null | readonly string[] | BigInt64Array;

/** Loads rows into a table through DuckDB's appender (no per-row SQL, no SQL text to parse). */
export async function appendRows(
  conn: DuckDBConnection,
  table: string,
  rows: Iterable<readonly AppendValue[]>,
  schema = 'main',
  catalog?: string,
): Promise<void> {
  const appender = await conn.createAppender(table, schema, catalog);
  for (const row of rows) {
    for (const value of row) {
      if (typeof value === 'string') appender.appendVarchar(value);
      else if (typeof value === 'bigint') appender.appendBigInt(value);
      else if (typeof value === 'number') appender.appendDouble(value);
      else if (typeof value === 'boolean') appender.appendBoolean(value);
      else if (value === null) appender.appendNull();
      else if (value instanceof BigInt64Array) appender.appendList(listValue([...value]), LIST(BIGINT));
      else appender.appendList(listValue([...value]), LIST(VARCHAR));
    }
    appender.endRow();
  }
  appender.closeSync();
}
