/**
 * Arrow IPC stream output: one record batch per DuckDB chunk, typed from the catalogue (dates as DateDay,
 * timestamps as UTC milliseconds, times as microseconds, lists as List), nulls as Arrow nulls.
 *
 * apache-arrow's stream writer only flushes a whole input, which would buffer the page. An IPC stream is
 * a schema message, record-batch messages and an end marker, so each chunk is serialised on its own with
 * `tableToIPC` and the schema message and end marker are written once around them.
 */
import {
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
import type { FieldDef, FieldType } from '../../../schemas/index.js';
import type { ColumnChunk } from '../db/snapshot.js';
import type { Frame } from './page-stream.js';

export const ARROW_TYPE = 'application/vnd.apache.arrow.stream';
const END_OF_STREAM = 8; // continuation marker 0xFFFFFFFF + zero length

function arrowType(type: FieldType): DataType {
  switch (type) {
    case 'integer':
      return new Int64();
    case 'number':
      return new Float64();
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
    default: {
      const never: never = type;
      throw new Error(`no Arrow type for ${String(never)}`);
    }
  }
}

export function arrowSchema(fields: readonly FieldDef[]): Schema {
  return new Schema(fields.map((f) => new Field(f.name, arrowType(f.type), f.nullable)));
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
      const children = schema.fields.map((field, i) => vectorFromArray(chunk.columns[i] as unknown[], field.type).data[0]!);
      const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: chunk.ids.length, nullCount: 0, children }));
      const ipc = tableToIPC(new Table([batch]), 'stream');
      if (!Buffer.from(ipc.buffer, ipc.byteOffset, prefix.length).equals(prefix)) throw new Error('Arrow schema message changed between batches');
      return ipc.subarray(prefix.length, ipc.length - END_OF_STREAM);
    },
  };
}
