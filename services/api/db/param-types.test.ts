/** Regression (found by request-fuzz.test.ts): a whole number beyond int64 in a DOUBLE filter answered 500. */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createExtract, type Extract } from './extract/extract.js';
import { createQueryRunner, type QueryRunner } from './query-runner.js';

let instance: DuckDBInstance;
let extract: Extract;
let runner: QueryRunner;
beforeAll(async () => {
  instance = await DuckDBInstance.create(inject('apiFixtureDb'), { access_mode: 'READ_ONLY' });
  extract = createExtract(inject('apiFixtureDb'), { config: { access_mode: 'READ_ONLY' } });
  runner = createQueryRunner(instance, extract);
});
afterAll(async () => {
  instance.closeSync();
  await extract.close();
});

// Integral doubles node-api would type as BIGINT, past int64's range, and a fraction beside them.
const VALUES = [1e19, -1e19, 3.343729826581275e212, -1.7976931348623157e308, 49.5];
const sql = `SELECT count(*) AS n FROM observations WHERE "ResultValue" > CAST($1 AS DOUBLE) OR "ResultValue" = CAST($2 AS DOUBLE)`;

describe('a number parameter is bound as a DOUBLE, whatever its size', () => {
  it.each(VALUES)('%d, by columns, streamColumns and copyText', async (value) => {
    const q = { sql, params: [value, value] };
    const conn = await instance.connect();
    const expected = (await conn.runAndReadAll(sql.replaceAll('$1', String(value)).replaceAll('$2', String(value)))).getColumnsObject()['n'];
    conn.closeSync();
    expect((await runner.columns(q))['n']).toEqual(expected);
    for await (const chunk of runner.streamColumns({ sql: `SELECT 1::BIGINT AS id, n AS c0 FROM (${sql})`, params: [value, value] })) expect(chunk.ids).toEqual([1n]);
    let text = '';
    for await (const bytes of runner.copyText({ sql: `SELECT 1::BIGINT AS id, CAST(n AS VARCHAR) AS row FROM (${sql})`, params: [value, value] }, ',')) text += Buffer.from(bytes).toString();
    // The row after its frame's Id (db/extract/row-frame.ts).
    expect(text.endsWith(`${String(expected![0])},`)).toBe(true);
  });
});
