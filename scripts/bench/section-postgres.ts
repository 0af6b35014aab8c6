/** §6 the same pages, a full extract and the counts in PostgreSQL's conventional design, as ratios to the API. */
import { repeat, summary, type Context } from './context.js';
import type { CountCase } from './section-counts.js';
import type { PageCase } from './section-pages.js';
import { pgPageSql } from './postgres.js';
import { verdict } from './table.js';

export async function postgresSection(ctx: Context, pages: readonly PageCase[], counts: readonly CountCase[], apiExtractMs: number): Promise<void> {
  const { settings, figures, filters, log } = ctx;
  const pg = ctx.client.pg;
  log('§6 PostgreSQL pages');
  for (const c of pages.filter((p) => p.resource === 'Records')) {
    const runs = await repeat(settings.runs, 1, () => pg.page(pgPageSql(c.shape.where, c.after)));
    if (runs[0]!.rows !== c.rows) throw new Error(`PostgreSQL page ${c.shape.key} ${c.position}: ${runs[0]!.rows} rows, API ${c.rows}`);
    const ms = summary(runs.map((r) => r.ms));
    const ratio = ms.median / c.medianMs;
    figures.push({ section: '6', name: `PostgreSQL ${c.shape.label}, ${c.position} page`, unit: 'ms', value: ms, target: 'API ≥ 2× faster', ratio, ratioOf: 'API', verdict: verdict(ratio >= 2) });
  }
  log('§6 PostgreSQL full extract (keyset pages of 10000, row_to_json)');
  const extract = await repeat(1, 0, async () => {
    const e = await pg.extract(pgPageSql(undefined, undefined), pgPageSql(undefined, 'param'), 10_000);
    if (e.rows !== filters.totalRows) throw new Error(`PostgreSQL extract: ${e.rows} rows`);
    return e;
  });
  const rps = extract.map((e) => filters.totalRows / (e.ms / 1000));
  const ratio = summary(extract.map((e) => e.ms)).median / apiExtractMs;
  figures.push({ section: '6', name: 'PostgreSQL full extract (keyset, row_to_json)', unit: 'rows/s', value: summary(rps), target: 'API ≥ 2× faster', ratio, ratioOf: 'API', verdict: verdict(ratio >= 2) });
  log('§6 PostgreSQL counts');
  for (const c of counts) {
    const runs = await repeat(Math.min(settings.runs, 3), 1, () => pg.count({ text: c.rawSql, values: c.params }));
    const ms = summary(runs.map((r) => r.ms));
    const ratio = ms.median / c.medianMs;
    figures.push({
      section: '6',
      name: `PostgreSQL count ${c.resource === 'Records' ? '' : `${c.resource} `}${c.shape.label}`,
      unit: 'ms',
      value: ms,
      target: 'API ≥ 100× faster',
      ratio,
      ratioOf: 'API',
      verdict: verdict(ratio >= 100 && runs[0]!.n === c.n),
      note: runs[0]!.n === c.n ? undefined : `n=${runs[0]!.n} ≠ API ${c.n}`,
    });
  }
}
