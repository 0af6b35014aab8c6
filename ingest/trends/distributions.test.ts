import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { chiSquareUpperTail, erfc, normalCdf, twoSidedNormalP } from './distributions.js';

/**
 * The tails against scipy (an independent implementation: Cephes' erfc, igamc): relative agreement to 1e-13 from
 * the centre far into the tails, where a trend's P lives (P 3e-7 is a routine Kendall result, and C = 1 − P/2 keeps
 * P only when P itself is exact).
 */

const grid = Array.from({ length: 161 }, (_, i) => i * 0.05 - 1).concat([8, 10, 15, 20, 26.5, 1e-9, -1e-9, -3, -6]);
const chiCases: [number, number][] = [];
for (let df = 1; df <= 11; df++) for (const x of [0.001, 0.3, 1, 2.5, df - 0.5, df, df + 0.5, df + 1, 5, 12.086165, 16.468817, 30, 80]) chiCases.push([x, df]);

function scipy(): { erfc: number[]; cdf: number[]; p: number[]; chi: number[] } {
  const script = `
import json, sys
from scipy.special import erfc
from scipy.stats import norm, chi2
d = json.load(sys.stdin)
print(json.dumps({'erfc': [float(erfc(x)) for x in d['grid']], 'cdf': [float(norm.cdf(x)) for x in d['grid']],
  'p': [float(2 * norm.sf(abs(x))) for x in d['grid']], 'chi': [float(chi2.sf(x, df)) for x, df in d['chi']]}))`;
  return JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify({ grid, chi: chiCases }) }).toString());
}

const relative = (a: number, b: number) => (a === b ? 0 : Math.abs(a - b) / Math.abs(b));

describe('normal and χ² tails against scipy', () => {
  const ref = scipy();

  it('erfc, Φ and the two-sided p agree to 1e-13 relative, the far tails included', () => {
    // Beyond |z| = 10 the factor e^(−z²/2) alone carries z²'s rounding, some 1e-14 × z²: 1e-12 there.
    const within = (x: number) => (Math.abs(x) > 10 ? 1e-12 : 1e-13);
    grid.forEach((x, i) => {
      expect(relative(erfc(x), ref.erfc[i]!), `erfc(${x})`).toBeLessThan(within(x * Math.SQRT2));
      expect(relative(normalCdf(x), ref.cdf[i]!), `Φ(${x})`).toBeLessThan(within(x));
      expect(relative(twoSidedNormalP(x), ref.p[i]!), `p(${x})`).toBeLessThan(within(x));
    });
    expect(ref.p[grid.indexOf(26.5)]).toBeLessThan(1e-150);
  });

  it('the χ² upper tail agrees to 1e-13 relative for 1 to 11 degrees of freedom (Kruskal–Wallis over 2 to 12 seasons)', () => {
    chiCases.forEach(([x, df], i) => expect(relative(chiSquareUpperTail(x, df), ref.chi[i]!), `χ²(${x}, ${df})`).toBeLessThan(1e-13));
  });

  it('refuses degrees of freedom it was not written for', () => {
    expect(() => chiSquareUpperTail(1, 0)).toThrow(RangeError);
    expect(() => chiSquareUpperTail(1, 1.5)).toThrow(RangeError);
  });
});
