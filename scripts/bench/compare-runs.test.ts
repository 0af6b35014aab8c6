import { describe, expect, it } from 'vitest';
import { compareRuns, figureKey, type BenchRun } from './compare-runs.js';
import type { Figure } from './table.js';

const fig = (section: string, name: string, unit: string, median: number): Figure => ({ section, name, unit, value: { median, min: median, max: median, runs: 1 }, verdict: 'info' });
const run = (node: string, figures: Figure[]): BenchRun => ({ startedAt: '2026-11-24T10:00:00.000Z', command: 'BENCH_QUICK=1 make bench', machine: { node, cores: 2 }, figures });

describe('compareRuns', () => {
  it('pairs figures by section and name, ignoring a cached figure\'s date, with AFTER ÷ BEFORE', () => {
    const before = run('v20.20.2', [
      fig('1', 'HTTP /Records JSON extract', 'rows/s', 100_000),
      fig('7', 'make ingest, 1000000 rows end to end (cached figure of 2026-11-01; BENCH_INGEST=1 re-measures)', 'rows/s', 150_000),
      fig('2', 'gone', 'ms', 5),
    ]);
    const after = run('v24.21.0', [
      fig('1', 'HTTP /Records JSON extract', 'rows/s', 120_000),
      fig('7', 'make ingest, 1000000 rows end to end', 'rows/s', 150_000),
      fig('1z', 'new', 'rows/s', 7),
    ]);
    const lines = compareRuns(before, after).split('\n');
    expect(lines[0]).toContain('Node v20.20.2');
    expect(lines[1]).toContain('Node v24.21.0');
    expect(lines).toContain('| 1 HTTP /Records JSON extract | rows/s | 100,000 | 120,000 | 1.2× | higher |');
    expect(lines).toContain('| 7 make ingest, 1000000 rows end to end | rows/s | 150,000 | 150,000 | 1× | higher |');
    expect(lines).toContain('| 1z new | rows/s | — | 7 |  | higher |');
    expect(lines).toContain('| 2 gone | ms | 5 | — |  | lower |');
  });

  it('keys a figure without its run-specific remark', () => {
    expect(figureKey({ section: '7', name: 'x (cached figure of 2026-01-01T00:00; BENCH_INGEST=1 re-measures) y' })).toBe('7 x y');
  });
});
