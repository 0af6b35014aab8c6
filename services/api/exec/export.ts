/**
 * The execution stage of a whole-result export: the exact row count first (the count query `$count=true` runs,
 * answered from the statistics where it can be), then every row as DuckDB's COPY writes the format. The rows are a
 * generator that starts only when first read: the route sends its headers (the count among them) before any row
 * is written, and a HEAD never starts the COPY.
 */
import type { Snapshot } from '../db/snapshot.js';
import type { ExportFormat } from '../export-formats.js';
import { compileCount } from '../query/compile-count.js';
import { compileExport } from '../query/compile-export.js';
import type { PagePlan } from '../query/plan.js';

export interface ExportResult {
  /** Rows the body will hold: exact, counted before the first byte. */
  readonly count: number;
  /** The body's bytes; returns the row count COPY reports (checked against `count` by the route). */
  readonly chunks: AsyncGenerator<Uint8Array, number>;
}

export async function executeExport(plan: PagePlan, format: ExportFormat, snapshot: Snapshot, signal: AbortSignal): Promise<ExportResult> {
  const counted = await snapshot.columns(compileCount({ kind: 'count', resource: plan.resource, where: plan.where }), signal);
  const { query, options } = compileExport(plan, format);
  return { count: Number(counted['n']?.[0] ?? 0), chunks: snapshot.copyExport(query, options, signal) };
}
