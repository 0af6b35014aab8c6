/**
 * The DuckDB type each parameter of a compiled query is bound as. Every placeholder carries its cast (query/sql.ts)
 * and the planner gives whole numbers as bigint, so a JS number is a DOUBLE's value. Left to node-api, an integral
 * number is typed INTEGER or BIGINT, and one beyond int64 (`ResultValue gt 1e19`, `1e300`) fails to bind with
 * "bigint out of int64 range": a 500 for a valid filter. Bigints and strings keep the types node-api gives them.
 */
import { DOUBLE, HUGEINT, VARCHAR, type DuckDBType } from '@duckdb/node-api';
import type { SqlParam } from '../query/sql.js';

export function paramTypes(params: readonly SqlParam[]): DuckDBType[] {
  return params.map((p) => (typeof p === 'number' ? DOUBLE : typeof p === 'bigint' ? HUGEINT : VARCHAR));
}
