/**
 * The execution stage of a whole-result export: the exact row count first (the count query `$count=true` runs,
 * answered from the statistics where it can be), then every row as DuckDB's COPY writes the format. The rows are a
 * generator that starts only when first read: the route sends its headers (the count among them) before any row
 * is written, and a HEAD never starts the COPY.
 */
import type { ColumnChunk, Snapshot } from '../db/snapshot.js';
import type { ExportFormat } from '../export-formats.js';
import { bboxOf } from '../../../schemas/geoparquet.js';
import { compileCount } from '../query/compile-count.js';
import { compileExport } from '../query/compile-export.js';
import type { PagePlan } from '../query/plan.js';
import { resolveLocations } from './resolve-locations.js';

/** The body: bytes DuckDB's COPY wrote (returns the row count it reports), or typed chunks for the Arrow writer. */
export type ExportRows =
  | { readonly kind: 'bytes'; readonly chunks: AsyncGenerator<Uint8Array, number> }
  | { readonly kind: 'columns'; readonly chunks: AsyncGenerator<ColumnChunk> };

export interface ExportResult {
  /** Rows the body will hold: exact, counted before the first byte (the route checks the body against it). */
  readonly count: number;
  readonly rows: ExportRows;
}

export async function executeExport(given: PagePlan, format: ExportFormat, snapshot: Snapshot, signal: AbortSignal): Promise<ExportResult> {
  const plan = await resolveLocations(given, snapshot, signal);
  const compiled = compileExport(plan, format);
  const geo = compiled.kind === 'copy' ? compiled.geo : undefined;
  // GeoParquet's bbox is written from the COPY's options, so it is found first, beside the count.
  const [counted, bounds] = await Promise.all([
    snapshot.columns(compileCount({ kind: 'count', resource: plan.resource, where: plan.where }), signal),
    geo ? snapshot.columns(geo.bounds, signal) : undefined,
  ]);
  const rows: ExportRows =
    compiled.kind === 'copy'
      ? { kind: 'bytes', chunks: snapshot.copyExport(compiled.query, geo && bounds ? geo.options(bboxOf(firstRow(bounds))) : compiled.options, signal) }
      : { kind: 'columns', chunks: snapshot.streamColumns(compiled.query, signal) };
  return { count: Number(counted['n']?.[0] ?? 0), rows };
}

function firstRow(columns: Readonly<Record<string, readonly unknown[]>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(columns).map(([name, values]) => [name, values[0]]));
}
