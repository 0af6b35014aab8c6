/**
 * Arrow IPC stream output: one record batch per DuckDB chunk, typed from the catalogue (dates as DateDay,
 * timestamps as UTC milliseconds, times as microseconds, lists as List), nulls as Arrow nulls.
 *
 * apache-arrow's stream writer only flushes a whole input, which would buffer the page. An IPC stream is
 * a schema message, record-batch messages and an end marker, so each chunk is serialised on its own with
 * `tableToIPC` and the schema message and end marker are written once around them.
 */
import {
  Bool,
  type Data,
  DateDay,
  Field,
  Float64,
  Int64,
  List,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableToIPC,
  TimeMicrosecond,
  TimestampMillisecond,
  Utf8,
  vectorFromArray,
  type DataType,
} from 'apache-arrow';
import { nullOnWire, type FieldDef, type FieldType } from '../../../schemas/index.js';
import type { ChunkColumn, ColumnChunk } from '../db/snapshot.js';
import type { Frame } from './page-stream.js';

const END_OF_STREAM = 8; // continuation marker 0xFFFFFFFF + zero length

function arrowType(type: FieldType): DataType {
  switch (type) {
    case 'integer':
      return new Int64();
    case 'number':
      return new Float64();
    case 'boolean':
      return new Bool();
    case 'string':
    case 'uuid':
      return new Utf8();
    case 'date':
      return new DateDay();
    case 'time':
      return new TimeMicrosecond();
    case 'timestamp':
      return new TimestampMillisecond('UTC');
    case 'string[]':
      return new List(new Field('item', new Utf8(), true));
    case 'date[]':
      return new List(new Field('item', new DateDay(), true));
    case 'integer[]':
      return new List(new Field('item', new Int64(), true));
    default: {
      const never: never = type;
      throw new Error(`no Arrow type for ${String(never)}`);
    }
  }
}

export function arrowSchema(fields: readonly FieldDef[]): Schema {
  return new Schema(fields.map((f) => new Field(f.name, arrowType(f.type), nullOnWire(f))));
}

const DAY_MS = 86_400_000;

/**
 * One column of a batch as Arrow data. Flat types are written straight into their buffers: apache-arrow's generic
 * `vectorFromArray` builders were most of a page's Arrow time (docs/performance.md, Alternatives measured and
 * rejected), and the same columns built this way decode to the same values (stream/arrow-frame.test.ts). Lists and
 * timestamps (Metadata only: a few rows) keep the generic builder.
 */
export function columnData(type: FieldType, arrow: DataType, values: readonly unknown[]): Data {
  switch (type) {
    case 'string':
    case 'uuid':
      return utf8Data(arrow as Utf8, values as readonly (string | null)[]);
    case 'number':
      return flatData(arrow, values, new Float64Array(values.length), (v) => v as number);
    case 'integer':
    case 'time':
      return flatData(arrow, values, new BigInt64Array(values.length), (v) => v as bigint);
    case 'date':
      return flatData(arrow, values, new Int32Array(values.length), (v) => Math.floor((v as Date).getTime() / DAY_MS));
    default:
      return vectorFromArray(values as unknown[], arrow).data[0]!;
  }
}

/**
 * What each field type accepts from DuckDB's memory as it is: its Arrow type's values buffer has the same layout
 * (db/chunk-columns.ts). An INTEGER column is widened to Arrow's Int64.
 */
const SAME_LAYOUT: Partial<Record<FieldType, readonly string[]>> = {
  integer: ['BIGINT', 'INTEGER'],
  number: ['DOUBLE'],
  date: ['DATE'],
  time: ['TIME'],
};

/**
 * One column of a batch from a chunk's column: DuckDB's buffers become Arrow's as they are (no value is converted);
 * JS values (lists, timestamps) go through `columnData`.
 */
export function chunkColumnData(type: FieldType, arrow: DataType, col: ChunkColumn): Data {
  switch (col.kind) {
    case 'values':
      return columnData(type, arrow, col.values);
    case 'utf8':
      if (type !== 'string' && type !== 'uuid') break;
      return makeData({ type: arrow as Utf8, length: col.length, nullCount: col.nullCount, nullBitmap: col.nullBitmap, valueOffsets: col.valueOffsets, data: col.data });
    case 'fixed': {
      if (!SAME_LAYOUT[type]?.includes(col.type)) break;
      const data = col.type === 'INTEGER' ? BigInt64Array.from(col.values as Int32Array, (v: number) => BigInt(v)) : col.values;
      return makeData({ type: arrow, length: col.length, nullCount: col.nullCount, nullBitmap: col.nullBitmap, data } as never);
    }
  }
  throw new Error(`a ${type} field was read as ${col.kind === 'fixed' ? col.type : col.kind} values: the catalogue and the stored column disagree`);
}

/** Arrow's validity bitmap (bit i set: row i is not null) and the null count, or none when nothing is null. */
function validity(values: readonly unknown[]): { nullBitmap?: Uint8Array; nullCount: number } {
  let nullCount = 0;
  for (const v of values) if (v === null || v === undefined) nullCount++;
  if (nullCount === 0) return { nullCount };
  const nullBitmap = new Uint8Array((values.length + 7) >> 3);
  for (let i = 0; i < values.length; i++) if (values[i] !== null && values[i] !== undefined) nullBitmap[i >> 3]! |= 1 << (i & 7);
  return { nullBitmap, nullCount };
}

function flatData<T extends number | bigint>(
  type: DataType,
  values: readonly unknown[],
  data: { [i: number]: T; length: number },
  convert: (v: unknown) => T,
): Data {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== null && v !== undefined) data[i] = convert(v);
  }
  return makeData({ type, length: values.length, ...validity(values), data } as never);
}

/** Offsets and UTF-8 bytes, each string encoded once into one buffer sized beforehand. */
function utf8Data(type: Utf8, values: readonly (string | null)[]): Data<Utf8> {
  const valueOffsets = new Int32Array(values.length + 1);
  let bytes = 0;
  for (const v of values) if (v) bytes += Buffer.byteLength(v, 'utf8');
  const data = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v) at += data.write(v, at, 'utf8');
    valueOffsets[i + 1] = at;
  }
  return makeData({ type, length: values.length, ...validity(values), valueOffsets, data });
}

/**
 * @example
 * const body = await pageStream(snapshot.streamColumns(q, signal), arrowFrame(plan.fields), { count });
 */
export function arrowFrame(fields: readonly FieldDef[]): Frame<ColumnChunk> {
  const schema = arrowSchema(fields);
  const empty = tableToIPC(new Table(schema), 'stream');
  const prefix = empty.subarray(0, empty.length - END_OF_STREAM);
  return {
    prefix,
    suffix: empty.subarray(empty.length - END_OF_STREAM),
    render(chunk) {
      const children = schema.fields.map((field, i) => chunkColumnData(fields[i]!.type, field.type, chunk.columns[i]!));
      const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: chunk.ids.length, nullCount: 0, children }));
      const ipc = tableToIPC(new Table([batch]), 'stream');
      if (!Buffer.from(ipc.buffer, ipc.byteOffset, prefix.length).equals(prefix)) throw new Error('Arrow schema message changed between batches');
      return ipc.subarray(prefix.length, ipc.length - END_OF_STREAM);
    },
  };
}
