/** Queries on connections of their own, on the real fixture file: results, streaming, and every way a query ends. */
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

describe('createQueryRunner', () => {
  it('columns: bound parameters in, columns by name out; the connection is closed after', async () => {
    const cols = await runner.columns({ sql: 'SELECT "Id", "DOI" FROM observations WHERE "Id" BETWEEN $1 AND $2 ORDER BY "Id"', params: [10n, 12n] });
    expect(cols['Id']).toEqual([10n, 11n, 12n]);
    expect(cols['DOI']).toHaveLength(3);
    expect(runner.running).toBe(0);
  });

  it('streamColumns: Ids first, then each column in Arrow\'s layout, chunk by chunk', async () => {
    const ids: bigint[] = [];
    let width = 0;
    for await (const chunk of runner.streamColumns({ sql: 'SELECT "Id" AS id, "ActivityStartDate" AS c0, "ResultValue" AS c1 FROM observations WHERE "Id" <= 5000 ORDER BY "Id"', params: [] })) {
      ids.push(...(chunk.ids as bigint[]));
      width = chunk.columns.length;
      expect(chunk.columns[0]).toMatchObject({ kind: 'fixed', type: 'DATE', length: chunk.ids.length });
      expect(chunk.columns[1]).toMatchObject({ kind: 'fixed', type: 'DOUBLE', length: chunk.ids.length });
    }
    expect(ids).toEqual(Array.from({ length: 5000 }, (_, i) => BigInt(i + 1)));
    expect(width).toBe(2);
    expect(runner.running).toBe(0);
  });

  it('a consumer that stops early closes its connection', async () => {
    const stream = runner.streamColumns({ sql: 'SELECT "Id" AS id FROM observations', params: [] });
    await stream.next();
    expect(runner.running).toBe(1);
    await stream.return(undefined);
    expect(runner.running).toBe(0);
  });

  it('an aborted signal refuses before a connection is opened; a failing query leaves nothing running', async () => {
    const abort = new AbortController();
    abort.abort(new Error('gone'));
    await expect(runner.columns({ sql: 'SELECT 1', params: [] }, abort.signal)).rejects.toThrow('gone');
    await expect(runner.columns({ sql: 'SELECT nope FROM observations', params: [] })).rejects.toThrow(/nope/);
    expect(runner.running).toBe(0);
  });
});

describe('a number parameter is bound as a DOUBLE, whatever its size (a filter value beyond int64 answered 500; db/param-types.ts)', () => {
  // Integral doubles node-api would type as BIGINT, past int64's range, and a fraction beside them.
  const VALUES = [1e19, -1e19, 3.343729826581275e212, -1.7976931348623157e308, 49.5];
  const sql = `SELECT count(*) AS n FROM observations WHERE "ResultValue" > CAST($1 AS DOUBLE) OR "ResultValue" = CAST($2 AS DOUBLE)`;

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
