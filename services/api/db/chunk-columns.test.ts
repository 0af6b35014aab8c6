/** Columns read from DuckDB's vector memory equal node-api's own values, for every column of every resource. */
import { DuckDBInstance, JSDuckDBValueConverter, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources } from '../../../schemas/index.js';
import { parseQuery } from '../odata/index.js';
import { planQuery, type PagePlan } from '../query/plan.js';
import { renderRow, TEXT_BYTES_COLUMN } from '../query/render-row.js';
import { resourceTable } from '../query/resource-where.js';
import { chunkColumns, type ChunkColumn } from './chunk-columns.js';

let instance: DuckDBInstance;
let conn: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(inject('apiFixtureDb'), { access_mode: 'READ_ONLY' });
  conn = await instance.connect();
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

const DAY_MS = 86_400_000;
const text = new TextDecoder();

/** A column read back as node-api's converter gives it (dates as Date, times and BIGINTs as bigint, NULL as null). */
function values(col: ChunkColumn): unknown[] {
  if (col.kind === 'values') return [...col.values];
  const isNull = (i: number) => col.nullBitmap !== undefined && (col.nullBitmap[i >> 3]! & (1 << (i & 7))) === 0;
  return Array.from({ length: col.length }, (_, i) => {
    if (isNull(i)) return null;
    if (col.kind === 'utf8') return text.decode(col.data.subarray(col.valueOffsets[i], col.valueOffsets[i + 1]));
    const v = col.values[i]!;
    return col.type === 'DATE' ? new Date(Number(v) * DAY_MS) : col.type === 'INTEGER' ? Number(v) : v;
  });
}

describe('chunkColumns', () => {
  it.each(resources.map((r) => [r.name, r] as const))('%s: every column of every row equals the converter\'s values', async (_, resource) => {
    const plan = planQuery(parseQuery('$format=arrow'), resource) as PagePlan;
    const result = await conn.stream(`SELECT ${renderRow('arrow', plan.fields, plan.resource.table)} FROM ${resourceTable(plan)}`);
    const names = result.columnNames();
    const textBytes = names.indexOf(TEXT_BYTES_COLUMN);
    expect(textBytes).toBe(names.length - 1);
    const types = names.map((_, i) => result.columnTypeId(i));
    let rows = 0;
    let nulls = 0;
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const cols = chunkColumns(chunk, types, textBytes);
      expect(cols).toHaveLength(names.length - 1);
      cols.forEach((col, i) => {
        const got = values(col);
        nulls += got.filter((v) => v === null).length;
        expect(got, `${resource.name} ${names[i]}`).toEqual(chunk.convertColumnValues(i, JSDuckDBValueConverter));
      });
      rows += chunk.rowCount;
    }
    expect(rows).toBeGreaterThan(0);
    // The fixture has nulls: the validity bitmaps are exercised, not only the all-valid case.
    if (resource.name === 'Records') expect(nulls).toBeGreaterThan(0);
  });

  it('refuses text bytes that are not exactly the row\'s text columns', async () => {
    const result = await conn.stream(`SELECT 1::BIGINT AS id, 'a long value over twelve bytes' AS c0, 'a long value over twelve byte' AS ${TEXT_BYTES_COLUMN}`);
    const chunk = (await result.fetchChunk())!;
    expect(() => chunkColumns(chunk, [0, 1, 2].map((i) => result.columnTypeId(i)), 2)).toThrow(/text bytes do not match/);
  });

  it('reads text without text bytes too, value by value (values of 12 bytes and fewer are inline)', async () => {
    const result = await conn.stream(`SELECT * FROM (VALUES (1::BIGINT, 'twelve bytes'), (2, NULL), (3, ''), (4, 'thirteen byte'), (5, 'thirteen byte'), (6, 'Température 😀')) v(id, c0)`);
    const chunk = (await result.fetchChunk())!;
    const cols = chunkColumns(chunk, [0, 1].map((i) => result.columnTypeId(i)));
    expect(values(cols[0]!)).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    expect(values(cols[1]!)).toEqual(['twelve bytes', null, '', 'thirteen byte', 'thirteen byte', 'Température 😀']);
  });
});
