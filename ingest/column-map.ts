import { uploadColumns } from '../schemas/index.js';
import { requiredUploadColumns } from '../schemas/observation-row.js';

/** Where each upload column sits in one file's header. */
export interface ColumnMap {
  /** Upload column name → index in the header, or null when the file lacks the (optional) column. */
  readonly indexOf: ReadonlyMap<string, number | null>;
  /** Header positions that are not upload columns (ignored, with a warning). */
  readonly unknown: readonly { readonly index: number; readonly name: string }[];
  /** Why the file cannot be read (missing required or duplicate columns); empty when it can. */
  readonly errors: readonly { readonly column: string; readonly reason: string }[];
  readonly width: number;
  /** The header as read, for naming columns in messages. */
  readonly header: readonly string[];
}

const known = new Set(uploadColumns.map((f) => f.name));

/**
 * Maps a header (as read, order free) onto the upload schema. Matching is exact, as DataStream's template. A file
 * without one of `required` (by default upstream's required columns) is rejected whole.
 */
export function mapColumns(header: readonly string[], required: readonly string[] = requiredUploadColumns): ColumnMap {
  const positions = new Map<string, number[]>();
  const unknown: { index: number; name: string }[] = [];
  header.forEach((name, index) => {
    if (known.has(name)) positions.get(name)?.push(index) ?? positions.set(name, [index]);
    else unknown.push({ index, name });
  });
  const errors: { column: string; reason: string }[] = [];
  for (const [column, at] of positions) {
    if (at.length > 1) errors.push({ column, reason: `file rejected: column ${column} appears ${at.length} times in the header` });
  }
  for (const column of required) {
    if (!positions.has(column)) errors.push({ column, reason: `file rejected: required column ${column} is missing from the header` });
  }
  const indexOf = new Map(uploadColumns.map((f) => [f.name, positions.get(f.name)?.[0] ?? null] as const));
  return { indexOf, unknown, errors, width: header.length, header };
}
