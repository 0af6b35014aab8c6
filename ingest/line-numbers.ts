/**
 * Physical line numbers of CSV records. DuckDB's reader numbers records, not lines (its reject table's `line`
 * is the record index, header = 1), and a quoted field may hold newlines. The physical line where a record
 * starts is its record index plus every newline embedded in the records before it.
 */
export interface FileLines {
  /** Records DuckDB could not parse: record index (header = 1) and newlines inside them; ascending. */
  readonly malformed: readonly { readonly record: number; readonly newlines: number }[];
  /** Parsed records holding newlines: index among parsed data records (0-based) and count; ascending. */
  readonly parsed: readonly { readonly index: number; readonly newlines: number }[];
}

/** Record index (header = 1) of the parsed data record `index` (0-based among parsed records). */
export function recordOfParsed(lines: FileLines, index: number): number {
  let record = index + 2;
  for (const m of lines.malformed) {
    if (m.record <= record) record++;
    else break;
  }
  return record;
}

/** The physical line (1-based, header = 1) where the record with record index `record` starts. */
export function lineOfRecord(lines: FileLines, record: number): number {
  let newlines = 0;
  let parsedBefore = 0;
  let malformedBefore = 0;
  for (const m of lines.malformed) {
    if (m.record >= record) break;
    newlines += m.newlines;
    malformedBefore++;
  }
  // Parsed records before `record`: every data record before it that was not malformed.
  parsedBefore = record - 2 - malformedBefore;
  for (const p of lines.parsed) {
    if (p.index >= parsedBefore) break;
    newlines += p.newlines;
  }
  return record + newlines;
}

export function lineOfParsed(lines: FileLines, index: number): number {
  return lineOfRecord(lines, recordOfParsed(lines, index));
}
