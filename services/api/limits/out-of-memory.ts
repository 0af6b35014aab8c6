/**
 * A query past the DuckDB memory bound (DUCKDB_MEMORY_LIMIT and the temp directory's, db/duckdb-memory.ts) fails with
 * DuckDB's "Out of Memory Error", which reached the client as a 500 and the error log as a fault of ours. It is the
 * bound doing its work: answered 503 `query_too_large`, saying the request was too large for the memory queries share
 * and how to make it smaller; the server and the other queries go on.
 */
import { ApiError } from '../errors.js';

/** Seconds a client is told to wait: the memory may have been taken by other queries that end by then. */
const RETRY_AFTER_S = 5;

/** The 503 for DuckDB's out-of-memory error; any other error unchanged. */
export function explainOutOfMemory(err: unknown): unknown {
  if (!(err instanceof Error) || !err.message.startsWith('Out of Memory Error')) return err;
  return new ApiError(
    'query_too_large',
    'The request needed more memory than this server gives the queries running at once (DUCKDB_MEMORY_LIMIT and its temp directory bound) and was stopped. ' +
      'Make it smaller: narrow $filter (a CharacteristicName, a RegionId, a date range), group by fewer fields, or ask for fewer medians and percentiles; retry later if the server was busy.',
    {},
    { 'Retry-After': String(RETRY_AFTER_S) },
  );
}
