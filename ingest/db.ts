import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { totalmem } from 'node:os';

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

// INGEST_TRACE=1 prints each statement's wall and CPU time (the process's, so DuckDB's threads included): where an
// ingest spends it, without a profiler. CPU time is the figure to compare on a loaded machine; wall ≈ CPU means
// the statement ran on one core.
const tracing = process.env.INGEST_TRACE === '1';
interface TraceStart {
  readonly wall: number;
  readonly cpu: NodeJS.CpuUsage;
}
function trace(sql: string, t0: TraceStart): void {
  if (!tracing) return;
  const cpu = process.cpuUsage(t0.cpu);
  const ms = Math.round(performance.now() - t0.wall);
  process.stderr.write(`[sql ${ms} ms, cpu ${Math.round((cpu.user + cpu.system) / 1000)} ms] ${sql.replace(/\s+/g, ' ').slice(0, 110)}\n`);
}
const traceStart = (): TraceStart => ({ wall: performance.now(), cpu: process.cpuUsage() });

/** The first column of the first row as a number (counts, maxima); 0 when NULL. */
export async function scalarNumber(conn: DuckDBConnection, sql: string, params: Params = []): Promise<number> {
  const rows = await all(conn, sql, params);
  const value = rows[0] ? Object.values(rows[0])[0] : null;
  return value === null || value === undefined ? 0 : Number(value);
}

/** Loads string rows into a table through DuckDB's appender (no per-row SQL). */
export async function appendRows(
  conn: DuckDBConnection,
  table: string,
  rows: Iterable<readonly (string | number | bigint)[]>,
  schema = 'main',
  catalog?: string,
): Promise<void> {
  const appender = await conn.createAppender(table, schema, catalog);
  for (const row of rows) {
    for (const value of row) {
      if (typeof value === 'string') appender.appendVarchar(value);
      else if (typeof value === 'bigint') appender.appendBigInt(value);
      else appender.appendDouble(value);
    }
    appender.endRow();
  }
  appender.closeSync();
}

const UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 2 ** 10, MIB: 2 ** 20, GIB: 2 ** 30, TIB: 2 ** 40 };

/** Bytes of a DuckDB size such as `8GB`, `512MiB` or `1.5 GB`; undefined when it is not one. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?I?B)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2]!.toUpperCase()] : undefined;
  return m && unit ? Math.floor(Number(m[1]) * unit) : undefined;
}

export interface IngestMemory {
  /** DuckDB's `memory_limit` for the build, in bytes. */
  readonly limitBytes: number;
  /** Data-file bytes loaded per sorted batch (load-direct.ts): a quarter of the limit. */
  readonly batchBytes: number;
}

/**
 * The ingest's memory: `INGEST_MEMORY_LIMIT` (a DuckDB size), by default half the machine's RAM rather than
 * DuckDB's 80%, because the API (its own DuckDB) and the OS cache of the published file share the machine. A
 * batch's sort held ~2× its CSV bytes at 10M rows (4.9–5.2 GB for 2.8 GB), so a quarter of the limit per batch
 * sorts without spilling; beyond the limit DuckDB spills to `<build>.tmp`.
 */
export function ingestMemory(env: NodeJS.ProcessEnv = process.env, totalBytes = totalmem()): IngestMemory {
  const raw = env.INGEST_MEMORY_LIMIT;
  const limitBytes = raw ? parseSize(raw) : Math.floor(totalBytes / 2);
  if (limitBytes === undefined || limitBytes < 2 ** 27) throw new Error(`INGEST_MEMORY_LIMIT must be a size of at least 128MiB such as 8GB or 512MiB, got '${raw}'`);
  return { limitBytes, batchBytes: Math.floor(limitBytes / 4) };
}
