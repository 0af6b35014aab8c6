/** The results table: one row per figure, rendered as Markdown so it pastes into the README unchanged. */
import { formatNumber, formatSummary, type Summary } from './stats.js';

export type Verdict = 'PASS' | 'MISS' | 'info';

export interface Figure {
  /** Section of the issue: 1 extract, 2 pages, … */
  readonly section: string;
  readonly name: string;
  readonly unit: string;
  readonly value: Summary;
  /** Human-readable target, e.g. `≤ 250 ms`. */
  readonly target?: string;
  /** The figure divided by its reference (e.g. HTTP rows/s ÷ DuckDB COPY rows/s); its meaning is in `ratioOf`. */
  readonly ratio?: number;
  readonly ratioOf?: string;
  readonly verdict: Verdict;
  readonly note?: string;
}

const HEADER = ['§', 'figure', 'median (min–max)', 'unit', 'target', 'ratio', 'result'] as const;

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function cells(f: Figure): string[] {
  const ratio = f.ratio === undefined ? '' : `${formatNumber(f.ratio)}×${f.ratioOf ? ` ${f.ratioOf}` : ''}`;
  return [f.section, f.name, formatSummary(f.value), f.unit, f.target ?? '', ratio, f.verdict === 'info' ? '' : f.verdict];
}

/** A Markdown table of the figures in order. */
export function renderTable(figures: readonly Figure[]): string {
  const rows = [HEADER as readonly string[], ...figures.map(cells)].map((r) => r.map(escapeCell));
  const lines = rows.map((r) => `| ${r.join(' | ')} |`);
  lines.splice(1, 0, `| ${HEADER.map(() => '---').join(' | ')} |`);
  return lines.join('\n');
}

/** PASS when `ok`, else MISS; `undefined` (nothing to judge) is info. */
export function verdict(ok: boolean | undefined): Verdict {
  return ok === undefined ? 'info' : ok ? 'PASS' : 'MISS';
}
