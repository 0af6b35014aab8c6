/**
 * What GeoParquet (issue 41, schemas/geoparquet.ts) costs, for §7's files stage and §1e's Parquet export: DuckDB's
 * COPY of every Records row to Parquet as both write it (the fields, then `geometry` and `bbox`, with the `geo`
 * metadata) against the same COPY of the fields alone, on the reference connection, runs alternating so both see
 * the machine's same moments; and the export's bbox query, which runs beside the count before the first byte.
 */
import { statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { getResource } from '../../schemas/index.js';
import { parquetColumnsSql } from '../../schemas/row-sql.js';
import { parseQuery } from '../../services/api/odata/index.js';
import { compileExport } from '../../services/api/query/compile-export.js';
import { planQuery, type PagePlan } from '../../services/api/query/plan.js';
import { RESOURCE_NAMES } from '../../services/api/query/render-row.js';
import type { DuckDBValue } from '@duckdb/node-api';
import { summary, type Context } from './context.js';

export async function geoParquetSection(ctx: Context): Promise<void> {
  const { settings, duck, filters, figures, log } = ctx;
  const plan = planQuery(parseQuery(''), getResource('Records')!) as PagePlan;
  const geo = compileExport(plan, 'parquet');
  if (geo.kind !== 'copy' || !geo.geo) throw new Error('a Parquet export of Records carries GeoParquet columns');
  const file = `/tmp/tributary-bench-geoparquet-${process.pid}.parquet`;
  const bounds = await duck.timed(geo.geo.bounds.sql, geo.geo.bounds.params as DuckDBValue[]);
  const bbox = [bounds.rows[0]?.['xmin'], bounds.rows[0]?.['ymin'], bounds.rows[0]?.['xmax'], bounds.rows[0]?.['ymax']].map(Number) as [number, number, number, number];
  const copies = {
    with: `COPY (${geo.query.sql}) TO '${file}' (${geo.geo.options(bbox)})`,
    without: `COPY (SELECT ${parquetColumnsSql(plan.fields, RESOURCE_NAMES)} FROM "observations" t) TO '${file}' (${geo.options})`,
  };
  const runs: Record<keyof typeof copies, { ms: number; bytes: number }[]> = { with: [], without: [] };
  log(`§7/§1e GeoParquet: ${settings.extractRuns} run(s) of COPY to Parquet with and without geometry and bbox (${filters.totalRows} rows)`);
  for (let i = 0; i < settings.extractRuns; i++) {
    for (const kind of i % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const)) {
      const { ms } = await duck.timed(copies[kind]);
      runs[kind].push({ ms, bytes: statSync(file).size });
      await rm(file, { force: true });
    }
  }
  const median = (kind: keyof typeof copies) => summary(runs[kind].map((r) => r.ms)).median;
  const ratio = median('with') / median('without');
  const bytes = runs.with[0]!.bytes / runs.without[0]!.bytes;
  figures.push({
    section: '7',
    name: `files stage: a Parquet file with GeoParquet's geometry and bbox ÷ without (DuckDB COPY of every Records row, ${filters.totalRows} rows)`,
    unit: '×',
    value: summary(runs.with.map((r, i) => r.ms / runs.without[i]!.ms)),
    verdict: 'info',
    note: `${(median('with') / 1000).toFixed(1)} s with, ${(median('without') / 1000).toFixed(1)} s without; the file ${bytes.toFixed(2)}× the bytes (${(runs.with[0]!.bytes / 1e6).toFixed(0)} MB)`,
  });
  figures.push({
    section: '1e',
    name: "Parquet export: GeoParquet's columns (COPY with ÷ without) and its bbox query before the first byte",
    unit: 'ms',
    value: summary([bounds.ms]),
    ratio,
    ratioOf: 'COPY without geometry and bbox',
    verdict: 'info',
    note: `the bbox query of the whole hub ${bounds.ms.toFixed(0)} ms, run beside the count; the COPY ${ratio.toFixed(2)}× its time without`,
  });
}
