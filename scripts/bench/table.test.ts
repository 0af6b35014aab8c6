import { describe, expect, it } from 'vitest';
import { renderTable, verdict, type Figure } from './table.js';

const figure = (over: Partial<Figure>): Figure => ({
  section: '2',
  name: 'first page',
  unit: 'ms',
  value: { median: 40, min: 38, max: 45, runs: 5 },
  verdict: 'info',
  ...over,
});

describe('renderTable', () => {
  it('renders a header, a separator and one row per figure', () => {
    const text = renderTable([
      figure({ target: '≤ 250 ms', verdict: 'PASS' }),
      figure({ name: 'HTTP vs COPY', unit: 'rows/s', ratio: 0.61, ratioOf: 'of COPY', verdict: 'MISS' }),
    ]);
    expect(text.split('\n')).toEqual([
      '| § | figure | median (min–max) | unit | target | ratio | result |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      '| 2 | first page | 40 (38–45) | ms | ≤ 250 ms |  | PASS |',
      '| 2 | HTTP vs COPY | 40 (38–45) | rows/s |  | 0.61× of COPY | MISS |',
    ]);
  });

  it('escapes pipes so a filter text cannot break the table', () => {
    expect(renderTable([figure({ name: 'a|b' })])).toContain('a\\|b');
  });

  it.each([
    [true, 'PASS'],
    [false, 'MISS'],
    [undefined, 'info'],
  ] as const)('verdict(%s) = %s', (ok, v) => expect(verdict(ok)).toBe(v));
});
