import { Field, makeData, RecordBatch, Schema, Struct, Table, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { FieldType } from '../../../schemas/index.js';
import { arrowSchema, chunkColumnData, columnData } from './arrow-frame.js';

/** Columns as the DuckDB converter hands them over: strings, numbers, bigints, Dates, nulls anywhere. */
const cases: { type: FieldType; values: unknown[] }[] = [
  { type: 'string', values: ['pH', null, '', 'Température, eau', '😀 ü "quoted" \\ \n', null, 'x'.repeat(5000)] },
  { type: 'uuid', values: ['0fb765d3-615a-50aa-ace8-d14bdeec855f', null, '00000000-0000-0000-0000-000000000000'] },
  { type: 'number', values: [1.5, null, -0, 1e-300, Number.MAX_VALUE, 0.1 + 0.2, null] },
  { type: 'integer', values: [1n, null, -9223372036854775808n, 9223372036854775807n, 0n] },
  { type: 'date', values: [new Date(Date.UTC(2020, 0, 1)), null, new Date(Date.UTC(1969, 11, 31)), new Date(Date.UTC(1900, 1, 28))] },
  { type: 'time', values: [0n, null, 86_399_999_999n, 45_296_000_000n] },
  { type: 'string', values: [null, null, null] },
  { type: 'number', values: [] },
];

/** The batch's IPC stream read back by apache-arrow itself: what any client would see. */
function decode(type: FieldType, build: (arrowType: Field['type']) => ReturnType<typeof columnData>, length: number) {
  const schema = new Schema([new Field('c', arrowSchema([{ name: 'c', column: 'c', type, nullable: true } as never]).fields[0]!.type, true)]);
  const child = build(schema.fields[0]!.type);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children: [child] }));
  const table = tableFromIPC(tableToIPC(new Table([batch]), 'stream'));
  const column = table.getChild('c')!;
  // get(i) honours the validity bitmap (toArray() of a numeric column shows nulls as 0).
  return { type: String(table.schema.fields[0]!.type), rows: Array.from({ length }, (_, i) => column.get(i) as unknown) };
}

describe('columnData', () => {
  it.each(cases.map((c, i) => [`${c.type} #${i}`, c] as const))('%s decodes to what apache-arrow\'s own builder gives', (_, c) => {
    const fast = decode(c.type, (t) => columnData(c.type, t, c.values), c.values.length);
    const reference = decode(c.type, (t) => vectorFromArray(c.values, t).data[0]!, c.values.length);
    expect(fast.type).toBe(reference.type);
    expect(fast.rows).toEqual(reference.rows);
    expect(fast.rows.filter((v) => v === null).length).toBe(c.values.filter((v) => v === null).length);
  });
});

describe('chunkColumnData', () => {
  const utf8 = new TextEncoder();
  const texts = ['pH', null, '', 'Température 😀'];
  const bytes = texts.map((t) => utf8.encode(t ?? ''));
  const valueOffsets = Int32Array.from([0, ...bytes.map((_, i) => bytes.slice(0, i + 1).reduce((n, b) => n + b.length, 0))]);
  const data = Uint8Array.from(bytes.flatMap((b) => [...b]));
  // Rows 0, 2, 3 valid: bits 0, 2, 3.
  const validity = { length: 4, nullCount: 1, nullBitmap: Uint8Array.of(0b1101) };

  it('DuckDB\'s buffers decode to the values the converter gives', () => {
    const text = decode('string', (t) => chunkColumnData('string', t, { kind: 'utf8', ...validity, valueOffsets, data }), 4);
    expect(text.rows).toEqual(texts);
    const days = decode('date', (t) => chunkColumnData('date', t, { kind: 'fixed', type: 'DATE', ...validity, values: Int32Array.of(18262, 0, -1, 0) }), 4);
    expect(days.rows).toEqual(decode('date', (t) => columnData('date', t, [new Date(Date.UTC(2020, 0, 1)), null, new Date(Date.UTC(1969, 11, 31)), new Date(0)]), 4).rows);
    const ints = decode('integer', (t) => chunkColumnData('integer', t, { kind: 'fixed', type: 'INTEGER', ...validity, values: Int32Array.of(-5, 0, 7, 2147483647) }), 4);
    expect(ints.type).toBe('Int64');
    expect(ints.rows).toEqual([-5n, null, 7n, 2147483647n]);
  });

  it('refuses a column whose stored type is not the field\'s', () => {
    expect(() => decode('date', (t) => chunkColumnData('date', t, { kind: 'fixed', type: 'DOUBLE', length: 1, nullCount: 0, values: Float64Array.of(1) }), 1)).toThrow(/catalogue and the stored column disagree/);
  });
});
