/**
 * §A `$apply` aggregates of values (issue 48) over HTTP, each beside DuckDB's own `GROUP BY` of the same question on
 * the observations, in the same run: the sums, extremes and means the statistics per unit answer (the whole hub by
 * location and characteristic), and the exact percentiles and distinct counts that scan. The first group's values
 * are compared with DuckDB's, so a fast wrong answer cannot pass.
 */
import { repeat, summary, type Context } from './context.js';
import { num } from './duck.js';
import { url } from './extract.js';
import { verdict } from './table.js';

interface AggregateCase {
  readonly name: string;
  readonly apply: string;
  /** The same groups and values, in the same order, computed by DuckDB from the rows; columns g0…, then a0…. */
  readonly rawSql: string;
  readonly targetMs: number;
}

/** At most this many groups a request: the first page of the whole result, as a client pages it. */
const TOP = 10_000;

const CASES: readonly AggregateCase[] = [
  {
    name: 'sum, min, max, average by location and characteristic (statistics)',
    apply: 'groupby((LocationId,CharacteristicName),aggregate($count as N,ResultValue with sum as S,ResultValue with min as Lo,ResultValue with max as Hi,ResultValue with average as Mean))',
    rawSql: `SELECT "LocationId" AS g0, "CharacteristicName" AS g1, count(*) AS a0, sum("ResultValue") AS a1, min("ResultValue") AS a2, max("ResultValue") AS a3, avg("ResultValue") AS a4
      FROM observations GROUP BY ALL ORDER BY 1, 2 LIMIT ${TOP}`,
    targetMs: 50,
  },
  {
    name: 'median, p10, p90, countdistinct by characteristic and unit (scan)',
    apply: 'groupby((CharacteristicName,ResultUnit),aggregate(ResultValue with Tributary.median as Median,ResultValue with Tributary.p10 as P10,ResultValue with Tributary.p90 as P90,ResultValue with countdistinct as D))',
    rawSql: `SELECT "CharacteristicName" AS g0, "ResultUnit" AS g1, quantile_cont("ResultValue", 0.5) AS a0, quantile_cont("ResultValue", 0.1) AS a1, quantile_cont("ResultValue", 0.9) AS a2, count(DISTINCT "ResultValue") AS a3
      FROM observations GROUP BY ALL ORDER BY 1, 2 LIMIT ${TOP}`,
    targetMs: 2000,
  },
];

/** Needs no discovered filter: it runs alone at any ROWS (BENCH_ONLY=aggregates). */
export async function aggregatesSection(ctx: Pick<Context, 'settings' | 'client' | 'base' | 'duck' | 'figures'>): Promise<void> {
  const { settings, client, base, duck, figures } = ctx;
  const runs = Math.max(5, settings.runs);
  for (const c of CASES) {
    const u = url(base, 'Records', { $apply: c.apply, $top: String(TOP) });
    const http_ = await repeat(runs, 1, () => client.http.get(u, { whole: true }));
    if (http_[0]!.status !== 200) throw new Error(`${u}: HTTP ${http_[0]!.status} ${http_[0]!.body}`);
    const groups = (JSON.parse(http_[0]!.body!) as { value: Record<string, unknown>[] }).value;
    const raw = await repeat(Math.min(runs, 5), 1, () => duck.timed(c.rawSql));
    const ms = summary(http_.map((r) => r.ms));
    const rawMs = summary(raw.map((r) => r.ms));
    const agree = sameFirstGroup(groups[0], raw[0]!.rows[0]);
    figures.push({
      section: 'A',
      name: `$apply ${c.name}`,
      unit: 'ms',
      value: ms,
      target: `< ${c.targetMs} ms`,
      ratio: rawMs.median / ms.median,
      ratioOf: "faster than DuckDB's GROUP BY",
      verdict: verdict(ms.median < c.targetMs && agree && groups.length === raw[0]!.rows.length),
      note: `${groups.length} groups (raw ${raw[0]!.rows.length})${agree ? '' : '; first group differs from the raw GROUP BY'}; DuckDB GROUP BY ${rawMs.median.toFixed(1)} ms`,
    });
  }
}

/** The API's first group against DuckDB's first row: keys equal, values within 1e-9 relative (sums add in another order). */
function sameFirstGroup(group: Record<string, unknown> | undefined, row: Record<string, unknown> | undefined): boolean {
  if (!group || !row) return !group && !row;
  const api = Object.values(group);
  // The raw query's columns are in the API's order: g0…, then a0….
  const ref = Object.values(row);
  return api.length === ref.length && api.every((v, i) => close(v, ref[i]));
}

function close(a: unknown, b: unknown): boolean {
  if (a === null || b === null || a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a === 'number' || typeof b === 'number' || typeof b === 'bigint') {
    const [x, y] = [Number(a), num(b as number)];
    return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
  }
  return String(a) === String(b);
}
