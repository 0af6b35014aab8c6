/** Two bench results side by side (compare.ts): pure, so the table's rules are tested on their own. */
import { formatNumber, formatSummary } from './stats.js';
import type { Figure } from './table.js';

/** What compare reads of a results file (main.ts writes it). */
export interface BenchRun {
  readonly startedAt: string;
  readonly command: string;
  readonly machine: { readonly node: string; readonly cores: number };
  readonly figures: readonly Figure[];
  readonly cache?: { readonly ingest?: { readonly rowsPerSecond: number; readonly peakRssMB?: number; readonly fresh?: boolean } };
}

/** A figure's identity across runs: its section and name without the parts that name one run (a cached figure's date). */
export function figureKey(f: Pick<Figure, 'section' | 'name'>): string {
  return `${f.section} ${f.name.replace(/\s*\(cached figure of [^)]*\)/, '')}`;
}

/** Higher is better for rates; lower for times and sizes. The ratio column is AFTER ÷ BEFORE either way. */
const HIGHER_IS_BETTER = /\/s$|×|^ratio$/;

/** A Markdown table: every figure of either run, in AFTER's order, then BEFORE's figures AFTER lacks. */
export function compareRuns(before: BenchRun, after: BenchRun): string {
  const head = (r: BenchRun) => `${r.command}, Node ${r.machine.node}, ${r.startedAt.slice(0, 16)}`;
  const old = new Map(before.figures.map((f) => [figureKey(f), f]));
  const seen = new Set<string>();
  const rows: string[][] = [];
  for (const f of after.figures) {
    const key = figureKey(f);
    seen.add(key);
    rows.push(row(key, f.unit, old.get(key), f));
  }
  for (const f of before.figures) if (!seen.has(figureKey(f))) rows.push(row(figureKey(f), f.unit, f, undefined));
  const lines = [
    `BEFORE: ${head(before)}`,
    `AFTER: ${head(after)}`,
    '',
    '| § figure | unit | BEFORE median (min–max) | AFTER median (min–max) | AFTER ÷ BEFORE | better when |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`),
  ];
  return lines.join('\n');
}

function row(key: string, unit: string, a: Figure | undefined, b: Figure | undefined): string[] {
  const ratio = a && b && a.value.median !== 0 ? `${formatNumber(b.value.median / a.value.median)}×` : '';
  return [key, unit, a ? formatSummary(a.value) : '—', b ? formatSummary(b.value) : '—', ratio, HIGHER_IS_BETTER.test(unit) ? 'higher' : 'lower'];
}
