/**
 * MAX_PAGE_BYTES: after phase one knows how many rows a page has, its size is estimated from the average JSON
 * width of each selected column (measured on a sample when the snapshot opens) and a page over the limit is
 * refused with 413 before any byte is sent, instead of streaming something no client should hold in memory.
 */
import type { FieldDef } from '../../../schemas/index.js';
import type { ColumnWidths } from '../db/snapshot.js';
import { ApiError } from '../errors.js';

/** A JSON page's bytes: per row `{"Name":value,…}` and a separator. Columns never measured count as 16 bytes. */
export function estimatePageBytes(table: string, fields: readonly FieldDef[], rows: number, widths: ColumnWidths): number {
  let row = 2;
  for (const f of fields) row += f.name.length + 4 + (widths.get(`${table}.${f.column}`) ?? 16);
  return rows * row;
}

/** An `$apply` page of `groups` groups estimated at `bytes` (stream/apply-stream.ts): 413 over MAX_PAGE_BYTES. */
export function checkApplySize(bytes: number, groups: number, maxBytes: number | undefined): void {
  if (maxBytes === undefined || bytes <= maxBytes) return;
  throw new ApiError(
    'payload_too_large',
    `This page would be about ${mib(bytes)} (${groups} groups); the limit is ${mib(maxBytes)}. Lower $top, group by fewer fields, or use a shorter alias.`,
    { parameter: '$top' },
  );
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

export function checkPageSize(table: string, fields: readonly FieldDef[], rows: number, widths: ColumnWidths | undefined, maxBytes: number | undefined): void {
  if (!widths || maxBytes === undefined) return;
  const bytes = estimatePageBytes(table, fields, rows, widths);
  if (bytes <= maxBytes) return;
  throw new ApiError(
    'payload_too_large',
    `This page would be about ${mib(bytes)} (${rows} rows of ${fields.length} fields); the limit is ${mib(maxBytes)}. Lower $top or $select fewer fields.`,
    { parameter: '$top' },
  );
}
