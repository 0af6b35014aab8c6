/**
 * The trends oracle's numerics against scipy's (norm.sf, chi2.sf, special.erfc): the tails the p-values read, from
 * the centre to far beyond any p a trend reports.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { chiSquareUpperTail, erfc, gammaHalfInteger, normalUpperTail, twoSidedNormalP } from './distributions.js';

const relative = (a: number, b: number): number => (a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)));
const grid = (from: number, to: number, step: number): number[] => Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => from + i * step);

const zs = [...grid(-8, 8, 0.0625), 0.1, 1.6448536269514722, 1.959963984540054, 2.6595285795488777, 5.0826502273256358, 5.1849513913085588, 10, 15, 25, 37];
const chiSquares = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 23].flatMap((df) =>
  [0.001, 0.05, 0.5, 1, 2, 3.5, df - 0.5, df, df + 1, df + 1.5, 2 * df, 13.289462365591392, 16.468817, 30, 60, 120].map((x) => [x, df] as const));

/** scipy's answers for the same arguments, in one python3 run. */
const SCIPY = `
import sys, json
from scipy import stats, special
zs, chis = json.load(sys.stdin)
print(json.dumps({
  "erfc": [float(special.erfc(z / 2 ** 0.5)) for z in zs],
  "sf": [float(stats.norm.sf(z)) for z in zs],
  "chi2": [float(stats.chi2.sf(x, df)) for x, df in chis],
}))`;
const reference = JSON.parse(execFileSync('python3', ['-c', SCIPY], { input: JSON.stringify([zs, chiSquares]), encoding: 'utf8' })) as
  { erfc: number[]; sf: number[]; chi2: number[] };


describe('the normal tail', () => {
  // One rounding of the argument (z/√2, x²) is magnified about z² times by e^(−z²/2): the bound grows with it.
  const bound = (z: number) => 1e-14 * Math.max(1, z * z);

  it('erfc agrees with scipy.special.erfc to 1e-14 relative (times z² in the tail)', () => {
    zs.forEach((z, i) => expect(relative(erfc(z / Math.SQRT2), reference.erfc[i]!), `erfc(${z}/√2)`).toBeLessThan(bound(z)));
  });

  it('P(Z > z) agrees with scipy.stats.norm.sf to 1e-14 relative (times z² in the tail)', () => {
    zs.forEach((z, i) => expect(relative(normalUpperTail(z), reference.sf[i]!), `Q(${z})`).toBeLessThan(bound(z)));
  });

  it('gives the README\'s two-sided p for Ex 17-6 and Ex 14-10 (§12)', () => {
    expect(relative(twoSidedNormalP(5.1073215968408938), 3.2675735707179567e-07)).toBeLessThan(1e-12);
    expect(relative(twoSidedNormalP(-2.6595285795488777), 0.0078250090914562948)).toBeLessThan(1e-12);
    expect(twoSidedNormalP(0)).toBe(1);
  });
});

describe('the χ² tail', () => {
  it('agrees with scipy.stats.chi2.sf to 1e-13 relative for 1 to 23 degrees of freedom', () => {
    chiSquares.forEach(([x, df], i) => expect(relative(chiSquareUpperTail(x, df), reference.chi2[i]!), `χ²(${x}, ${df})`).toBeLessThan(1e-13));
  });

  it('gives Ex 14-10\'s Kruskal–Wallis p by bi-month (§12.2: H 13.289462365591392 on 5 df)', () => {
    expect(relative(chiSquareUpperTail(13.289462365591392, 5), 0.020812045403680382)).toBeLessThan(1e-12);
  });

  it('uses Γ at halves exactly: Γ(½) = √π, Γ(5) = 24, Γ(7/2) = 15√π/8', () => {
    expect(gammaHalfInteger(0.5)).toBe(Math.sqrt(Math.PI));
    expect(gammaHalfInteger(5)).toBe(24);
    expect(relative(gammaHalfInteger(3.5), (15 * Math.sqrt(Math.PI)) / 8)).toBeLessThan(1e-15);
  });
});
