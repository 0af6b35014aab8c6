import { describe, expect, it } from 'vitest';
import { ex1410, sulfateEx176 } from '../../scripts/testing/trend-examples.js';
import type { TrendObservation } from '../../scripts/testing/trend-increments.js';
import { longestRun, nonSeasonalChecks, seasonalChecks } from './data-checks.js';
import { kendall, kendallTest, seasonalKendall, type KendallValue } from './kendall.js';
import { seasonOf, textOrder } from './seasons.js';
import { senSlope, substituted, type SlopePoint } from './sen-slope.js';
import { category, direction, improvesWhen, reason } from './trend-category.js';
import type { Increment } from './trend-types.js';

/**
 * LWP's core functions on the README's worked examples where they run outside Trends' sufficiency rules (§12.1:
 * all 23 sulfate values; §12.2: seasonal by month and non-seasonal), and the rules §5, §7 and §9 state by example.
 * Every figure is the README's (LWP's own R functions at the pinned commit); none is computed here by our code.
 */

const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** The examples' values, one per month already: each its own increment. */
function increments(values: readonly TrendObservation[]): Increment[] {
  return values.map((v, i) => ({ observationId: BigInt(i), day: day(v.date), year: Number(v.date.slice(0, 4)), month: Number(v.date.slice(5, 7)), value: v.value, censoring: 'not' as const }));
}

/** Within `rel` (1e-12 absolute near zero). */
const closeTo = (actual: unknown, expected: number, rel: number) => typeof actual === 'number' && Math.abs(actual - expected) <= Math.max(1e-12, rel * Math.abs(expected));

/** Seasonal: pairs within a season, its season-years by year; non-seasonal (no season): every increment its own. */
const points = (incs: readonly Increment[], season?: (i: Increment) => number): SlopePoint[] =>
  incs.map((i) => ({ value: substituted(i.value, i.censoring), censoring: i.censoring, day: i.day, season: season?.(i) ?? 0, seasonYear: season ? i.year : i.day }));

function expectClose(actual: Record<string, unknown>, expected: Record<string, number>, rel: number): void {
  for (const [k, v] of Object.entries(expected)) expect(closeTo(actual[k], v, rel), `${k}: ${String(actual[k])} vs ${v}`).toBe(true);
}

describe('§12.1 EPA Example 17-6, LWP core functions on all 23 values (non-seasonal)', () => {
  const incs = increments(sulfateEx176);
  const sums = kendall(incs.map((i, k): KendallValue => ({ value: i.value, censoring: 'not', time: k })));

  it('S = 194, VarS = 1428 (ties 510×3, 560×2, 590×2), D = 253, τ, Z, P, Cd as LWP and EnvStats', () => {
    expect(sums).toMatchObject({ n: 23, S: 194, D: 253 });
    expect(closeTo(sums.VarS, 1428, 1e-12)).toBe(true);
    expect(closeTo(sums.S / sums.D, 0.76679841897233203, 1e-12)).toBe(true);
    const test = kendallTest(sums.S, sums.VarS);
    expectClose({ ...test }, { Z: 5.1073215968408938 }, 1e-12);
    expectClose({ ...test }, { P: 3.2675735707179567e-7, Cd: 1.6337867853589783e-7 }, 1e-9);
  });

  it('Sen slope 26.49 ppm/yr with its 90 % interval, Median 560, 4.73 % a year', () => {
    const sen = senSlope(points(incs), textOrder(incs, 'monthly'), false);
    expect(sen.median).toBe(560);
    expectClose({ ...sen }, { slope: 26.489974402730375, lower: 20.46716639509172, upper: 34.140266251188997, percentAnnualChange: 4.7303525719161383 }, 1e-9);
    expect(sen.note).toBe('ok');
  });
});

describe('§12.2 EPA Example 14-10, LWP core functions', () => {
  const incs = increments(ex1410);
  const month = (i: Increment) => seasonOf('month', i.month);

  it('seasonal by month: S = 35, VarS = 43, τ = 35/36, Z and P as EnvStats documents; pooled Sen slope and interval', () => {
    const bySeason = [...Map.groupBy(incs.map((i) => ({ value: i.value, censoring: 'not' as const, time: i.year, season: month(i) })), (v) => v.season).values()];
    const sums = seasonalKendall(bySeason);
    expect(sums).toMatchObject({ S: 35, D: 36 });
    expect(closeTo(sums.VarS, 43, 1e-12)).toBe(true);
    expect(closeTo(sums.S / sums.D, 0.97222222222222221, 1e-12)).toBe(true);
    expectClose({ ...kendallTest(sums.S, sums.VarS) }, { Z: 5.1849513913085588, P: 2.1607121265531671e-7 }, 1e-9);
    const sen = senSlope(points(incs, month), textOrder(incs, 'monthly'), true);
    expectClose({ ...sen }, { slope: 0.060041095890411011, lower: 0.059877049180327921, upper: 0.069952120383036998 }, 1e-9);
  });

  it('non-seasonal on the same 36 values: S = 315, VarS = 5371, P, Sen slope and interval', () => {
    const sums = kendall(incs.map((i, k) => ({ value: i.value, censoring: 'not' as const, time: k })));
    expect(sums.S).toBe(315);
    expect(closeTo(sums.VarS, 5371, 1e-12)).toBe(true);
    expectClose({ ...kendallTest(sums.S, sums.VarS) }, { P: 1.8313496838488237e-5 }, 1e-9);
    const sen = senSlope(points(incs), textOrder(incs, 'monthly'), false);
    expectClose({ ...sen }, { slope: 0.063664638584720601, lower: 0.04472377059327326, upper: 0.081652054407286123 }, 1e-9);
  });
});

describe("§7.2's censored pairs", () => {
  const pair = (a: [number, 'not' | 'lt' | 'gt'], b: [number, 'not' | 'lt' | 'gt']) =>
    kendall([
      { value: a[0], censoring: a[1], time: 0 },
      { value: b[0], censoring: b[1], time: 1 },
    ]).S;

  it.each([
    ['<1 then 10: an increase', [1, 'lt'], [10, 'not'], 1],
    ['<1 then 0.5: a tie', [1, 'lt'], [0.5, 'not'], 0],
    ['<1 then 1: an increase', [1, 'lt'], [1, 'not'], 1],
    ['<1 then <5: a tie', [1, 'lt'], [5, 'lt'], 0],
    ['10 then <5: a decrease', [10, 'not'], [5, 'lt'], -1],
    ['3 then <5: a tie', [3, 'not'], [5, 'lt'], 0],
    ['>5 then >9: one tie at the largest limit', [5, 'gt'], [9, 'gt'], 0],
    ['3 then >2: an increase (the > value is 2.1)', [3, 'not'], [2, 'gt'], -1],
  ] as const)('%s', (_, a, b, s) => expect(pair(a as never, b as never)).toBe(s));

  it('pairs tied in time count nothing', () => {
    expect(kendall([{ value: 1, censoring: 'not', time: 5 }, { value: 2, censoring: 'not', time: 5 }]).S).toBe(0);
  });
});

describe("§5's checks", () => {
  const v = (value: number, censored = false) => ({ value, censored });

  it('r is the longest run of equal consecutive differences (2, 2, 2, 5 → 2)', () => {
    expect(longestRun([2, 2, 2, 5])).toBe(2);
    expect(longestRun([1, 2, 3, 4, 4])).toBe(3);
    expect(longestRun([7])).toBe(0);
  });

  it('notes verbatim, first failure first', () => {
    expect(nonSeasonalChecks([v(1), v(1), v(2), v(2), v(2)])).toBe('< 3 unique values');
    expect(nonSeasonalChecks([v(1), v(2), v(3), v(4, true), v(5, true)])).toBe('< 5 Non-censored values');
    expect(nonSeasonalChecks([v(1), v(2), v(3), v(4), v(5), v(6)])).toBe('Long run of single value');
    expect(nonSeasonalChecks([v(1), v(5), v(3), v(4), v(2), v(6)])).toBe('ok');
    const s = (value: number, season: number, censored = false) => ({ value, censored, season });
    expect(seasonalChecks([s(1, 0), s(2, 0), s(3, 0), s(4, 1), s(5, 1), s(6, 1)], 4)).toBe('< 3non-NA values in Season');
    expect(seasonalChecks([s(1, 0), s(2, 0), s(3, 0), s(4, 1), s(4, 1), s(4, 1)], 2)).toBe('< 3 unique values in Season');
    // Season 0's differences 1, 1, 1, 1: r = 4 of 5 values, over 0.75 (4 values, r = 3, would be exactly 0.75: ok).
    expect(seasonalChecks([s(1, 0), s(2, 0), s(3, 0), s(4, 0), s(5, 0), s(9, 1), s(5, 1), s(7, 1)], 2)).toBe('Long run of single value in a Season');
    expect(seasonalChecks([s(1, 0), s(2, 0), s(3, 0), s(4, 0), s(9, 1), s(5, 1), s(7, 1)], 2)).toBe('ok');
    expect(seasonalChecks([s(1, 0), s(2, 0), s(3, 0), s(4, 1), s(5, 1), s(7, 1)], 4, true)).toBe('ok');
  });
});

describe("§9's words", () => {
  it('direction from Cd; the five categories on the probability of degradation, right-closed', () => {
    expect([0.7, 0.3, 0.5, null].map(direction)).toEqual(['Decreasing', 'Increasing', 'Indeterminate', 'Not Analysed']);
    // Decrease improves: PD = 1 − Cd. Increase improves: PD = Cd.
    expect([0.9, 0.67, 0.33, 0.1, 0.05].map((cd) => category(cd, 'decreasing'))).toEqual(['Very likely improving', 'Likely improving', 'Indeterminate', 'Likely degrading', 'Very likely degrading']);
    expect([0.1, 0.33, 0.67, 0.9, 0.95].map((cd) => category(cd, 'increasing'))).toEqual(['Very likely improving', 'Likely improving', 'Indeterminate', 'Likely degrading', 'Very likely degrading']);
    expect(category(null, 'decreasing')).toBe('Not Analysed');
    expect(category(0.99, null)).toBeNull();
  });

  it('polarity: oxygen and clarity improve upwards, pH and temperature have none, the rest improve downwards', () => {
    expect(improvesWhen('Dissolved oxygen (DO)')).toBe('increasing');
    expect(improvesWhen('Depth, Secchi disk depth')).toBe('increasing');
    expect(improvesWhen('pH')).toBeNull();
    expect(improvesWhen('Temperature, water')).toBeNull();
    expect(improvesWhen('Escherichia coli')).toBe('decreasing');
    expect(improvesWhen('Light, underwater extinction coefficient (K)')).toBe('decreasing');
  });

  it('the reason a row has no category', () => {
    expect(reason(undefined, 'decreasing')).toBe('unassessed');
    expect(reason({ Cd: null } as never, 'decreasing')).toBe('not analysed');
    expect(reason({ Cd: 0.2 } as never, null)).toBe('no polarity');
    expect(reason({ Cd: 0.2 } as never, 'decreasing')).toBeNull();
  });
});
