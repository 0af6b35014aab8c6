/**
 * A DuckDB chunk's columns in Arrow's memory layout, read from the vectors' own memory instead of value by value.
 *
 * Why: node-api's value converter decodes every VARCHAR into a JS string (one native call and one UTF-8 decode per
 * value longer than 12 bytes) and every number into a JS value, and the Arrow writer then encoded them all again:
 * that was nearly all of an Arrow page's time (docs/performance.md, §1 extract). DuckDB's fixed-width vectors
 * already hold what Arrow wants (DOUBLE: float64, BIGINT: int64, DATE: int32 days since the epoch, TIME: int64
 * microseconds since midnight), and its validity mask is Arrow's validity bitmap (bit i of little-endian words set:
 * row i is valid). A VARCHAR vector is an array of 16-byte `string_t`: the length, then either the bytes themselves
 * (12 or fewer) or a pointer to them, which only a native call per value can follow (that was most of the time
 * left). So the query also selects every text column of the row concatenated (`text_bytes`,
 * query/render-row.ts): one native call per row fetches them all, and each column's values are cut out of it by
 * the lengths its own string_t hold. The bytes are copied once into Arrow's UTF-8 buffer, never into a JS string.
 *
 * Any other type (lists, timestamps: Metadata's, a few rows) comes as JS values through node-api's converter.
 * Pinned by db/chunk-columns.test.ts: every column of every resource reads back equal to the converter's values.
 */
import { DuckDBTypeId, JSDuckDBValueConverter, type DuckDBDataChunk } from '@duckdb/node-api';
import duckdb from '@duckdb/node-bindings';

/** Validity as Arrow has it: a bitmap only when some row is null. */
interface Validity {
  readonly length: number;
  readonly nullCount: number;
  /** Bit i set: row i is valid (least significant bit first); absent when nothing is null. */
  readonly nullBitmap?: Uint8Array;
}

/** The DuckDB types read from their vectors' memory, and the typed array each one's values are. */
export interface FixedColumns {
  readonly BIGINT: BigInt64Array;
  readonly INTEGER: Int32Array;
  readonly DOUBLE: Float64Array;
  readonly DATE: Int32Array;
  readonly TIME: BigInt64Array;
}
export type FixedType = keyof FixedColumns;

export type FixedColumn = { [T in FixedType]: Validity & { readonly kind: 'fixed'; readonly type: T; readonly values: FixedColumns[T] } }[FixedType];

/** UTF-8 text: row i is `data[valueOffsets[i] … valueOffsets[i + 1]]`. */
export interface Utf8Column extends Validity {
  readonly kind: 'utf8';
  readonly valueOffsets: Int32Array;
  readonly data: Uint8Array;
}

/** Any other type: node-api's JS values (null for NULL). */
export interface ValuesColumn {
  readonly kind: 'values';
  readonly values: readonly unknown[];
}

export type ChunkColumn = FixedColumn | Utf8Column | ValuesColumn;

const FIXED: Partial<Record<DuckDBTypeId, { type: FixedType; bytes: number; array: (b: ArrayBuffer, offset: number, n: number) => FixedColumns[FixedType] }>> = {
  [DuckDBTypeId.BIGINT]: { type: 'BIGINT', bytes: 8, array: (b, o, n) => new BigInt64Array(b, o, n) },
  [DuckDBTypeId.INTEGER]: { type: 'INTEGER', bytes: 4, array: (b, o, n) => new Int32Array(b, o, n) },
  [DuckDBTypeId.DOUBLE]: { type: 'DOUBLE', bytes: 8, array: (b, o, n) => new Float64Array(b, o, n) },
  [DuckDBTypeId.DATE]: { type: 'DATE', bytes: 4, array: (b, o, n) => new Int32Array(b, o, n) },
  [DuckDBTypeId.TIME]: { type: 'TIME', bytes: 8, array: (b, o, n) => new BigInt64Array(b, o, n) },
};

/**
 * Every column of `chunk` but the text bytes (`textBytes`: its index, when the query selects it), in Arrow's layout.
 * The text bytes of a row must be exactly its VARCHAR columns from index 1 on, in order: checked row by row.
 *
 * @example
 * const cols = chunkColumns(chunk, types, types.length - 1); // [{ kind: 'fixed', type: 'BIGINT', … }, { kind: 'utf8', … }, …]
 */
export function chunkColumns(chunk: DuckDBDataChunk, types: readonly DuckDBTypeId[], textBytes?: number): ChunkColumn[] {
  const texts = textBytes === undefined ? undefined : rowTexts(chunk, textBytes);
  const out: ChunkColumn[] = [];
  for (let i = 0; i < types.length; i++) if (i !== textBytes) out.push(chunkColumn(chunk, i, types[i]!, i === 0 ? undefined : texts));
  if (texts) {
    for (let row = 0; row < chunk.rowCount; row++) {
      if (texts.at[row] !== texts.starts[row + 1]) throw new Error(`row ${row} of a chunk: its text bytes do not match its text columns`);
    }
  }
  return out;
}

/** One chunk's `text_bytes`: all rows' bytes in one buffer, where row r starts, and how far each row is read. */
interface RowTexts {
  readonly data: Uint8Array;
  readonly starts: Int32Array;
  readonly at: Int32Array;
}

function rowTexts(chunk: DuckDBDataChunk, index: number): RowTexts {
  const n = chunk.rowCount;
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, index);
  const { valueOffsets: starts, data } = utf8(vector, n, validity(vector, n));
  return { data, starts, at: starts.slice(0, n) };
}

/**
 * Column `index` of `chunk`, whose type is `typeId`, in Arrow's layout; a VARCHAR column's bytes come from `texts`
 * when given (read on from each row's position there).
 */
export function chunkColumn(chunk: DuckDBDataChunk, index: number, typeId: DuckDBTypeId, texts?: RowTexts): ChunkColumn {
  const n = chunk.rowCount;
  const fixed = FIXED[typeId];
  if (!fixed && typeId !== DuckDBTypeId.VARCHAR) return { kind: 'values', values: chunk.convertColumnValues(index, JSDuckDBValueConverter) };
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, index);
  const valid = validity(vector, n);
  if (typeId === DuckDBTypeId.VARCHAR) return { kind: 'utf8', ...valid, ...(texts ? utf8From(vector, n, valid, texts) : utf8(vector, n, valid)) };
  const bytes = aligned(duckdb.vector_get_data(vector, n * fixed!.bytes), fixed!.bytes);
  return { kind: 'fixed', type: fixed!.type, ...valid, values: fixed!.array(bytes.buffer as ArrayBuffer, bytes.byteOffset, n) } as FixedColumn;
}

/** A typed array view needs its element size's alignment: copied when the bindings' buffer lacks it. */
function aligned(bytes: Uint8Array, size: number): Uint8Array {
  return bytes.byteOffset % size === 0 ? bytes : bytes.slice();
}

/** Set bits per byte value. */
const BITS = Uint8Array.from({ length: 256 }, (_, b) => {
  let c = 0;
  for (let v = b; v; v >>= 1) c += v & 1;
  return c;
});

function validity(vector: duckdb.Vector, n: number): Validity {
  const words = duckdb.vector_get_validity(vector, Math.ceil(n / 64) * 8) as Uint8Array | null;
  if (!words) return { length: n, nullCount: 0 };
  const bitmap = words.slice(0, (n + 7) >> 3);
  // Bits past row n are not rows: cleared so that they count as neither valid nor null.
  if (n & 7) bitmap[bitmap.length - 1]! &= (1 << (n & 7)) - 1;
  let valid = 0;
  for (const b of bitmap) valid += BITS[b]!;
  return valid === n ? { length: n, nullCount: 0 } : { length: n, nullCount: n - valid, nullBitmap: bitmap };
}

const INLINE = 12;

/**
 * Offsets and bytes of a VARCHAR vector. A value that repeats the previous out-of-line one (the same pointer: rows
 * of one location share their dictionary entry) is copied from the output instead of fetched again.
 */
function utf8(vector: duckdb.Vector, n: number, valid: Validity): { valueOffsets: Int32Array; data: Uint8Array } {
  const raw = aligned(duckdb.vector_get_data(vector, n * 16), 4);
  const words = new Uint32Array(raw.buffer, raw.byteOffset, n * 4);
  const valueOffsets = lengths(words, n, valid.nullBitmap);
  const data = new Uint8Array(valueOffsets[n]!);
  let prevLo = -1;
  let prevHi = -1;
  let prevAt = 0;
  let prevLength = -1;
  for (let i = 0; i < n; i++) {
    const at = valueOffsets[i]!;
    const length = valueOffsets[i + 1]! - at;
    if (length === 0) continue;
    if (length <= INLINE) {
      const from = (i << 4) + 4;
      for (let k = 0; k < length; k++) data[at + k] = raw[from + k]!;
      continue;
    }
    const lo = words[(i << 2) + 2]!;
    const hi = words[(i << 2) + 3]!;
    if (lo === prevLo && hi === prevHi && length === prevLength) {
      data.copyWithin(at, prevAt, prevAt + length);
    } else {
      data.set(duckdb.get_data_from_pointer(raw.buffer as ArrayBuffer, raw.byteOffset + (i << 4) + 8, length), at);
      prevLo = lo;
      prevHi = hi;
      prevLength = length;
    }
    prevAt = at;
  }
  return { valueOffsets, data };
}

/** Offsets of a VARCHAR vector (their lengths from its string_t), the bytes from each row's text bytes. */
function utf8From(vector: duckdb.Vector, n: number, valid: Validity, texts: RowTexts): { valueOffsets: Int32Array; data: Uint8Array } {
  const raw = aligned(duckdb.vector_get_data(vector, n * 16), 4);
  const words = new Uint32Array(raw.buffer, raw.byteOffset, n * 4);
  const valueOffsets = lengths(words, n, valid.nullBitmap);
  const data = new Uint8Array(valueOffsets[n]!);
  const source = texts.data;
  const at = texts.at;
  for (let i = 0; i < n; i++) {
    const to = valueOffsets[i]!;
    const length = valueOffsets[i + 1]! - to;
    if (length === 0) continue;
    const from = at[i]!;
    if (length > 32) data.set(source.subarray(from, from + length), to);
    else for (let k = 0; k < length; k++) data[to + k] = source[from + k]!;
    at[i] = from + length;
  }
  return { valueOffsets, data };
}

/** Row i's offset in a VARCHAR column's bytes, from the lengths in its string_t; a null row's is not read. */
function lengths(words: Uint32Array, n: number, bitmap: Uint8Array | undefined): Int32Array {
  const valueOffsets = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (bitmap === undefined || (bitmap[i >> 3]! & (1 << (i & 7))) !== 0) total += words[i << 2]!;
    valueOffsets[i + 1] = total;
  }
  return valueOffsets;
}
