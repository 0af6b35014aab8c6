/** §4 `$count` over HTTP beside DuckDB's raw `count(*)` with the same predicate, and one two-dimension `$apply`. */
import { repeat, summary, type Context } from './context.js';
import { num } from './duck.js';
import { url } from './extract.js';
import { bind, type Shape, type Value } from './filters.js';
import { verdict } from './table.js';

export interface CountCase {
  readonly resource: 'Records' | 'Locations' | 'Metadata';
  readonly shape: Shape;
  readonly rawSql: string;
  readonly params: readonly Value[];
  readonly medianMs: number;
  readonly n: number;
}

/** "Broad": a filter matching at least 5% of the rows, where a scan is expensive and statistics must win. */
const BROAD = 0.05;

export async function countsSection(ctx: Context): Promise<CountCase[]> {
  const { settings, client, base, duck, filters, figures } = ctx;
  const runs = Math.max(10, settings.runs);
  const items = [
    ...filters.counts.map((shape) => ({
      resource: 'Records' as const,
      shape,
      rawSql: `SELECT count(*) AS n FROM observations${shape.where ? ` WHERE ${bind(shape.where)}` : ''}`,
    })),
    ...filters.coarse.map((c) => ({ resource: c.resource, shape: c.shape, rawSql: c.rawSql })),
  ];
  const cases: CountCase[] = [];
  for (const item of items) {
    const u = url(base, item.resource, { $filter: item.shape.odata, $count: 'true' });
    const http_ = await repeat(runs, 1, () => client.http.get(u, { whole: true }));
    if (http_[0]!.status !== 200) throw new Error(`${u}: HTTP ${http_[0]!.status} ${http_[0]!.body}`);
    const n = Number((JSON.parse(http_[0]!.body!) as { value: number }).value);
    const params = (item.shape.where?.params ?? []) as Value[];
    const raw = await repeat(Math.min(runs, 5), 1, async () => {
      const r = await duck.timed(item.rawSql, params);
      return { ms: r.ms, n: num(r.rows[0]!['n']!) };
    });
    const ms = summary(http_.map((r) => r.ms));
    const rawMs = summary(raw.map((r) => r.ms));
    const speedup = rawMs.median / ms.median;
    const broad = item.resource === 'Records' && (filters.share[item.shape.key] ?? 0) >= BROAD;
    const agree = raw[0]!.n === n;
    figures.push({
      section: '4',
      name: `$count ${item.resource === 'Records' ? '' : `${item.resource} `}${item.shape.label}`,
      unit: 'ms',
      value: ms,
      target: broad ? '< 10 ms, ≥ 20× raw' : '< 10 ms',
      ratio: speedup,
      ratioOf: 'faster than raw count(*)',
      verdict: verdict(ms.median < 10 && (!broad || speedup >= 20) && agree),
      note: `n=${n}${agree ? '' : ` ≠ raw ${raw[0]!.n}`}; raw count(*) ${rawMs.median.toFixed(1)} ms${item.resource === 'Records' ? `; ${((filters.share[item.shape.key] ?? 0) * 100).toFixed(2)}% of rows` : ''}`,
    });
    cases.push({ resource: item.resource, shape: item.shape, rawSql: item.rawSql, params, medianMs: ms.median, n });
  }
  const [g1, g2] = filters.applyGroupBy;
  const u = url(base, 'Records', { $apply: `groupby((${g1},${g2}),aggregate($count as Count))`, $top: '10000' });
  const apply = await repeat(runs, 1, () => client.http.get(u, { whole: true }));
  if (apply[0]!.status !== 200) throw new Error(`${u}: HTTP ${apply[0]!.status} ${apply[0]!.body}`);
  const groups = (JSON.parse(apply[0]!.body!) as { value: unknown[] }).value.length;
  const ms = summary(apply.map((r) => r.ms));
  figures.push({ section: '4', name: `$apply groupby((${g1},${g2}))`, unit: 'ms', value: ms, target: '< 50 ms', verdict: verdict(ms.median < 50), note: `${groups} groups` });
  return cases;
}
