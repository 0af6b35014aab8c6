/**
 * §T trends (issue 54 item 3) over HTTP, each beside DuckDB's own query of the same answer on the same file: the
 * region's picture a report asks for, trends counted by `Category` (`$apply` groupby), and `$count` of the most
 * common category. Each answer is checked against DuckDB's, so a fast wrong answer cannot pass.
 */
import { repeat, summary, type Context } from './context.js';
import { num } from './duck.js';
import { url } from './extract.js';
import { verdict } from './table.js';

const RESOURCE = 'Trends';
const COUNT_TARGET_MS = 50;

export async function trendsSection(ctx: Pick<Context, 'settings' | 'client' | 'base' | 'duck' | 'figures'>): Promise<void> {
  const { settings, client, base, duck, figures } = ctx;
  const runs = Math.max(10, settings.runs);
  const total = num((await duck.all('SELECT count(*) AS n FROM trends'))[0]!['n']!);
  if (total === 0) throw new Error('the hub holds no trends: §T has nothing to measure');
  const raw = await repeat(5, 1, () => duck.timed(`SELECT "Category", count(*) AS "Count" FROM trends GROUP BY ALL ORDER BY 2 DESC, 1`));
  const rawGroups = raw[0]!.rows.map((r) => [r['Category'] ?? null, num(r['Count']!)] as const);
  const key = (groups: readonly (readonly [unknown, number])[]) => JSON.stringify([...groups].map(([c, n]) => `${String(c)}=${n}`).sort());

  const applyUrl = url(base, RESOURCE, { $apply: 'groupby((Category),aggregate($count as Count))' });
  const grouped = await repeat(runs, 1, () => client.http.get(applyUrl, { whole: true }));
  if (grouped[0]!.status !== 200) throw new Error(`${applyUrl}: HTTP ${grouped[0]!.status} ${grouped[0]!.body}`);
  const groups = (JSON.parse(grouped[0]!.body!) as { value: { Category: string | null; Count: number }[] }).value.map((g) => [g.Category, Number(g.Count)] as const);
  const applyMs = summary(grouped.map((r) => r.ms));
  const rawMs = summary(raw.map((r) => r.ms));
  const same = key(groups) === key(rawGroups);
  figures.push({
    section: 'T',
    name: `Trends $apply=groupby((Category),aggregate($count as Count)) (of ${total} trends)`,
    unit: 'ms',
    value: applyMs,
    target: `≤ ${COUNT_TARGET_MS} ms`,
    ratio: rawMs.median / applyMs.median,
    ratioOf: "faster than DuckDB's GROUP BY",
    verdict: verdict(applyMs.median <= COUNT_TARGET_MS && same),
    note: `${groups.length} categories${same ? '' : ` ≠ DuckDB's ${key(rawGroups)}`}; DuckDB ${rawMs.median.toFixed(1)} ms`,
  });

  const [common, commonN] = rawGroups.find(([c]) => c !== null) ?? [];
  if (common === undefined) return;
  const filter = `Category eq '${String(common).replaceAll("'", "''")}'`;
  const countUrl = url(base, RESOURCE, { $filter: filter, $count: 'true', $top: '0' });
  const counted = await repeat(runs, 1, () => client.http.get(countUrl, { whole: true }));
  if (counted[0]!.status !== 200) throw new Error(`${countUrl}: HTTP ${counted[0]!.status} ${counted[0]!.body}`);
  const n = Number((JSON.parse(counted[0]!.body!) as { '@odata.count': number })['@odata.count']);
  const countMs = summary(counted.map((r) => r.ms));
  figures.push({
    section: 'T',
    name: `$count Trends ${filter}`,
    unit: 'ms',
    value: countMs,
    target: `≤ ${COUNT_TARGET_MS} ms`,
    verdict: verdict(countMs.median <= COUNT_TARGET_MS && n === commonN),
    note: `n=${n}${n === commonN ? '' : ` ≠ DuckDB's ${commonN}`}`,
  });
}
