/**
 * The bench's measuring client (HTTP against the API, `pg` against PostgreSQL), run in a lean process of its own
 * (client-child.ts), every figure timed there.
 *
 * Why: V8 collects a process's garbage very differently once its old generation holds more than a few MB. A client
 * that moves Buffers (megabytes per 10,000-row page) then runs full mark-compacts all the time, whether the extra heap
 * is `zod` (which the bench imports through the sample generator and the schemas), `@duckdb/node-api` or a plain
 * array of objects, and reads the same API markedly slower (docs/performance.md, How each figure is measured):
 * a heavy client measures its own collector, for the API and for PostgreSQL alike. The official clients (Python,
 * R, curl) have no such collector; the closest Node can come is a client whose heap stays small, which the child
 * checks at start.
 */
import { forkChild } from './child-rpc.js';
import type { ClientRequest } from './client-child.js';
import type { ExtractResult } from './extract.js';
import type { Encoding, GetOptions, HttpClient, Response } from './http-client.js';
import type { PgPage, PgPageSql } from './pg-client.js';

/**
 * The child's old generation at start sits just under this on Node 24 (`node:http` alone is a good part of it), and
 * V8 changes its collection just above it (see above), so a start above this means something heavy was imported.
 */
export const MAX_CLIENT_HEAP_MB = 7.5;

export interface Client {
  readonly http: HttpClient;
  /** Follows next links from `first`; `onMark(page)` runs as each page listed in `marks` ends (for RSS samples). */
  extract(first: string, format: 'json' | 'csv' | 'arrow', opts?: { maxPages?: number; marks?: readonly number[]; onMark?: (page: number) => void; encoding?: Encoding }): Promise<ExtractResult>;
  partitioned(base: string, filter: string): Promise<ExtractResult & { locations: number }>;
  readonly pg: {
    page(q: PgPageSql): Promise<PgPage>;
    extract(first: PgPageSql, next: PgPageSql, top: number): Promise<{ ms: number; rows: number; bytes: number }>;
    count(q: PgPageSql): Promise<{ ms: number; n: number }>;
  };
  /** The child's old generation after a full collection at start, in MiB. */
  readonly heapMB: number;
  close(): void;
}

export async function openClient(headers: Record<string, string>): Promise<Client> {
  const trace = process.env.BENCH_TRACE_GC === '1' ? ['--trace-gc'] : [];
  const child = await forkChild<ClientRequest, number>(new URL('./client-child.ts', import.meta.url), [JSON.stringify(headers)], ['--expose-gc', ...trace], 'client');
  const heapMB = child.ready as number;
  if (heapMB > MAX_CLIENT_HEAP_MB) {
    child.close();
    throw new Error(`the bench's client process starts with ${heapMB.toFixed(1)} MB of heap (limit ${MAX_CLIENT_HEAP_MB}): something heavy was imported into client-child.ts (scripts/bench/client.ts says why it must stay lean)`);
  }
  const { ask } = child;
  return {
    http: {
      get: (url: string, opts?: GetOptions) => ask<Response & { body?: string }>({ op: 'get', url, opts }),
      close: child.close,
    },
    extract: (first, format, opts = {}) => ask({ op: 'extract', first, format, maxPages: opts.maxPages, marks: opts.marks, encoding: opts.encoding }, opts.onMark),
    partitioned: (base, filter) => ask({ op: 'partitioned', base, filter }),
    pg: {
      page: (q) => ask({ op: 'pgPage', q }),
      extract: (first, next, top) => ask({ op: 'pgExtract', first, next, top }),
      count: (q) => ask({ op: 'pgCount', q }),
    },
    heapMB,
    close: child.close,
  };
}
