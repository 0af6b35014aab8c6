/** §2 page latency at three offsets for each filter, on /Records and /Observations, with a diagnosis per page. */
import { repeat, summary, type Context } from './context.js';
import { url } from './extract.js';
import { bind, type Shape, type Value } from './filters.js';
import { pagePhases } from './reference.js';
import { verdict } from './table.js';
import { num } from './duck.js';

export interface PageCase {
  readonly resource: 'Records' | 'Observations';
  readonly shape: Shape;
  readonly position: 'first' | '50%' | '95%';
  /** `$skiptoken` Id: the page starts at the position's matching row. */
  readonly after?: number;
  readonly medianMs: number;
  readonly rows: number;
}

const TOP = 10_000;
const POSITIONS = ['first', '50%', '95%'] as const;

/** The Ids just before the matches at 50% and 95% of the filter's own matches (rank, not raw Id). */
async function offsets(ctx: Context, shape: Shape): Promise<Record<(typeof POSITIONS)[number], number | undefined>> {
  const where = shape.where ? ` WHERE ${bind(shape.where)}` : '';
  const r = (await ctx.duck.all(`SELECT quantile_disc("Id", 0.5) AS a, quantile_disc("Id", 0.95) AS b FROM observations${where}`, (shape.where?.params ?? []) as Value[]))[0]!;
  return { first: undefined, '50%': num(r['a']!) - 1, '95%': num(r['b']!) - 1 };
}

function query(shape: Shape, after: number | undefined): Record<string, string | undefined> {
  return { $filter: shape.odata, $top: String(TOP), $skiptoken: after === undefined ? undefined : `Id:${after}` };
}

export async function pagesSection(ctx: Context): Promise<PageCase[]> {
  const { settings, client, base, filters, figures } = ctx;
  const cases: PageCase[] = [];
  const diagnoses: Record<string, unknown>[] = [];
  for (const shape of filters.pages) {
    const at = await offsets(ctx, shape);
    for (const resource of ['Records', 'Observations'] as const) {
      let firstMs = NaN;
      for (const position of POSITIONS) {
        const q = query(shape, at[position]);
        const u = url(base, resource, q);
        const runs = await repeat(settings.runs, 1, () => client.http.get(u, { marker: Buffer.from('{"Id":') }));
        if (runs.some((r) => r.status !== 200)) throw new Error(`${u}: HTTP ${runs[0]!.status}`);
        const ms = summary(runs.map((r) => r.ms));
        if (position === 'first') firstMs = ms.median;
        const rel = ms.median / firstMs;
        const ok = ms.median <= 250 && (position === 'first' || rel <= 1.3);
        const rows = runs[0]!.markers;
        let note = `${rows} rows, ${(runs[0]!.bytes / 1e6).toFixed(1)} MB`;
        if (resource === 'Records') {
          const raw = new URL(u).search.slice(1);
          const phases = await repeat(3, 1, () => pagePhases(ctx.duck, resource, raw));
          const p1 = summary(phases.map((p) => p.phase1Ms)).median;
          const p2 = summary(phases.map((p) => p.phase2Ms)).median;
          note += `; in-process phase 1 ${p1.toFixed(0)} ms, phase 2 ${p2.toFixed(0)} ms`;
          diagnoses.push({ shape: shape.key, position, httpMs: ms.median, phase1Ms: p1, phase2Ms: p2, rows, phase1Sql: phases[0]!.phase1Sql });
        }
        figures.push({
          section: '2',
          name: `${resource} ${shape.label}, ${position} page`,
          unit: 'ms',
          value: ms,
          target: position === 'first' ? '≤ 250 ms' : '≤ 1.3× first, ≤ 250 ms',
          ratio: position === 'first' ? undefined : rel,
          ratioOf: position === 'first' ? undefined : 'first page',
          verdict: verdict(ok),
          note,
        });
        cases.push({ resource, shape, position, after: at[position], medianMs: ms.median, rows });
      }
    }
  }
  ctx.details['pageDiagnoses'] = diagnoses;
  return cases;
}
