/**
 * The framing of a cursor's COPY (db/extract/cursor.ts), defined here only: each row is written as
 * `<Id>\x01<byte length>\x01<text>\n`, so that rows can be cut out of the byte stream without looking inside their
 * text (a CSV line may hold newlines and \x01 in quoted fields) and each row's Id can be checked against the page
 * phase one planned. `framedRows` is the SQL that writes it (COPY with FRAME_DELIMITER between columns and
 * FRAME_END after each row, db/extract/copy-text.ts), `RowFrames` the reader.
 *
 * `RowFrames` takes the pipe's reads as they come and hands out whole rows re-framed as a page wants them: the
 * text followed by the page's row end, with the Id and length removed.
 */
import type { CompiledQuery } from '../../query/sql.js';

/** Between the Id, the length and the text. */
export const FRAME_DELIMITER = '\x01';
/** After each row. */
export const FRAME_END = '\n';
const SOH = FRAME_DELIMITER.charCodeAt(0);
const LF = FRAME_END.charCodeAt(0);

/**
 * Ids are read as JavaScript numbers of at most 15 decimal digits: exact (below 2^53) without a BigInt per row.
 * A page whose Ids reach this is served from its window, never by a cursor (exec/page-text.ts).
 */
export const MAX_FRAMED_ID = 10n ** 15n;

/**
 * The frame of a query of `id` and `row` (a row's text, compileCursorRows): `id, strlen(row) AS n, row`, which
 * COPY writes as `<Id>\x01<n>\x01<text>\n`. `strlen` counts bytes, as the reader does.
 */
export function framedRows(q: CompiledQuery): CompiledQuery {
  return { sql: `SELECT id, strlen(row) AS n, row FROM (${q.sql})`, params: q.params };
}

export interface TakenRows {
  /** The rows' text, each followed by the row end. */
  readonly data: Buffer;
  readonly rows: number;
}

export class RowFrames {
  /** Reads not yet parsed, oldest first. */
  private readonly reads: Buffer[] = [];
  private readBytes = 0;
  /** The start of a row that the reads so far have only part of. */
  private carry: Buffer = Buffer.alloc(0);

  /** `spent(read)`: a pushed read has been copied and is referred to no more (its buffer may be reused). */
  constructor(private readonly spent?: (read: Buffer) => void) {}

  push(read: Buffer): void {
    this.reads.push(read);
    this.readBytes += read.length;
  }

  /** Bytes held: what read-ahead is measured by. */
  get bytes(): number {
    return this.readBytes + this.carry.length;
  }

  /** Drops everything held (a cursor that closes with rows read ahead). */
  clear(): void {
    this.reads.length = 0;
    this.readBytes = 0;
    this.carry = Buffer.alloc(0);
  }

  /**
   * Up to `max` whole rows from about `batch` bytes of what is held (more when one row is longer than that).
   * `check(id, i)` sees each row's Id and its index among the rows taken so far; it throws to reject. Returns
   * zero rows when no whole row is held yet.
   */
  take(max: number, rowEnd: Uint8Array, batch: number, check: (id: number, i: number) => void): TakenRows {
    const parts: Buffer[] = this.carry.length ? [this.carry] : [];
    let size = this.carry.length;
    // At least one read beyond the carry, so that a row longer than `batch` still grows towards its end.
    while (this.reads.length && (size < batch || parts.length < 2)) {
      const read = this.reads.shift()!;
      parts.push(read);
      size += read.length;
      this.readBytes -= read.length;
    }
    // Always a buffer of our own (the carry is one): it is written to below, and reads belong to the caller.
    const only = parts.length === 1 ? parts[0]! : undefined;
    const src = only === this.carry ? only : only ? Buffer.from(only) : Buffer.concat(parts, size);
    if (this.spent) for (const part of parts) if (part !== this.carry) this.spent(part);
    // The rows are written back into `src` itself, from its start: each row loses its frame (at least "0\x010\x01"
    // and "\n", 5 bytes) and gains at most two bytes of row end, so the output never overtakes the input still to
    // be read. A second buffer per batch (a page's bytes again, per page) would only wait for the garbage collector,
    // which takes Buffers late (docs/performance.md, §5 memory).
    let pos = 0;
    let o = 0;
    let rows = 0;
    while (rows < max) {
      const idEnd = src.indexOf(SOH, pos);
      if (idEnd < 0) break;
      const lenEnd = src.indexOf(SOH, idEnd + 1);
      if (lenEnd < 0) break;
      const length = digits(src, idEnd + 1, lenEnd);
      const textEnd = lenEnd + 1 + length;
      if (textEnd >= src.length) break; // the row, or its LF, is still to come
      if (src[textEnd] !== LF) throw new Error(`cursor frame broken after ${rows} rows: no line end where its length says`);
      check(digits(src, pos, idEnd), rows);
      src.copyWithin(o, lenEnd + 1, textEnd);
      o += length;
      src.set(rowEnd, o);
      o += rowEnd.length;
      pos = textEnd + 1;
      rows++;
    }
    // The rest waits for the next take, in front of the reads still queued (copied when small: it may pin `src`).
    this.carry = pos === 0 ? src : src.length - pos < 64 * 1024 ? Buffer.from(src.subarray(pos)) : src.subarray(pos);
    return { data: src.subarray(0, o), rows };
  }
}

/** A non-negative decimal integer from ASCII digits; anything else means the frame is not what we wrote. */
function digits(buf: Buffer, start: number, end: number): number {
  if (end <= start || end - start > 15) throw new Error('cursor frame broken: expected a decimal number');
  let n = 0;
  for (let i = start; i < end; i++) {
    const d = buf[i]! - 0x30;
    if (d < 0 || d > 9) throw new Error('cursor frame broken: expected a decimal number');
    n = n * 10 + d;
  }
  return n;
}
