/**
 * The trends oracle's parts, each against something other than itself: §3's table, §4's middles, §5's checks on
 * hand-made lists, Kruskal–Wallis and the Sen slope against scipy, Mann–Kendall against brute force (S) and the
 * exact permutation variance (VarS), and censored cases worked by hand from §7's rules.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../sample/prng.js';
import { firstTier, longestRunOfDifferences, nonSeasonalChecks, seasonalChecks } from './trend-checks.js';
import { category, direction, improvesWhen, reason } from './trend-direction.js';
import { coverage, coverageThresholds, incrementMiddle, inTextOrder, keepIncrements, seasonLabel, seasonLevels, type TrendObservation } from './trend-increments.js';
import { kendall, kendallTest, kruskalWallis } from './trend-kendall.js';
import { pairSlopes, senNote, senSlope, type SenIncrement } from './trend-sen.js';

const relative = (a: number, b: number): number => (a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)));
const at = (date: string, value: number, id = 1, time: string | null = null, censoring: '<' | '>' | null = null): TrendObservation => ({ date, time, id, value, censoring });

describe('coverage and the time increment (§3)', () => {
  it('reproduces the README\'s table of whole-number thresholds', () => {
    expect([3, 5, 8, 10, 15].map((p) => [p, coverageThresholds(p)])).toEqual([
      [3, { months: 33, quarters: 11, years: 3 }], [5, { months: 54, quarters: 18, years: 5 }], [8, { months: 87, quarters: 29, years: 8 }],
      [10, { months: 108, quarters: 36, years: 9 }], [15, { months: 162, quarters: 54, years: 14 }],
    ]);
  });

  /** One observation on the 10th of each month given as (year, month) pairs. */
  const months = (pairs: [number, number][]) => pairs.map(([y, m], i) => at(`${y}-${String(m).padStart(2, '0')}-10`, i, i));
  const allMonths = (years: number[], skip = 0) => years.flatMap((y) => Array.from({ length: 12 }, (_, m) => [y, m + 1] as [number, number])).slice(skip);

  it.each([
    ['54 of 60 months in 5 years: monthly', 5, allMonths([2020, 2021, 2022, 2023, 2024], 6), 'monthly'],
    ['53 months, 18 quarters: quarterly', 5, allMonths([2020, 2021, 2022, 2023, 2024], 7), 'quarterly'],
    ['108 months in 9 of 10 years: monthly', 10, allMonths([2015, 2016, 2017, 2018, 2019, 2020, 2021, 2022, 2023]), 'monthly'],
    ['96 months in 8 of 10 years: unassessed', 10, allMonths([2015, 2016, 2017, 2018, 2019, 2020, 2021, 2022]), 'unassessed'],
    ['17 quarters of 20: unassessed', 5, [...allMonths([2020, 2021, 2022, 2023]).filter(([, m]) => m % 3 === 1), [2024, 1]], 'unassessed'],
  ] as const)('%s', (_, period, pairs, increment) => {
    expect(coverage(months(pairs as [number, number][]), period).TimeIncrement).toBe(increment);
  });

  it('counts distinct year × month, year × quarter and years over the period\'s observations', () => {
    const obs = [at('2020-01-05', 1), at('2020-01-25', 2), at('2020-03-01', 3), at('2021-12-31', 4)];
    expect(coverage(obs, 2)).toEqual({ Observations: 4, Months: 3, Quarters: 2, Years: 2, TimeIncrement: 'unassessed' });
  });
});

describe('one value per increment (§4)', () => {
  it('places the middles at the README\'s offsets, never on a half day', () => {
    expect([0, 1, 2].map((k) => incrementMiddle(k, 12).toFixed(3))).toEqual(['14.208', '44.625', '75.042']);
    expect([0, 1, 2, 3].map((k) => incrementMiddle(k, 4))).toEqual([44.625, 135.875, 227.125, 318.375]);
    for (const m of [12, 4]) for (let k = 0; k < m; k++) expect(incrementMiddle(k, m) % 1).not.toBeCloseTo(0.5, 6);
  });

  it('keeps the same offset in leap years, so the kept day moves: 16 March in 2024, 17 March in 2023', () => {
    const kept = keepIncrements([at('2023-03-16', 1, 1), at('2023-03-17', 2, 2), at('2024-03-16', 3, 3), at('2024-03-17', 4, 4)], 'monthly');
    expect(kept.map((i) => i.observation.date)).toEqual(['2023-03-17', '2024-03-16']);
  });

  it('breaks a same-date tie by canonical order: a missing time first, then the earlier time, then Id', () => {
    const keep = (obs: TrendObservation[]) => keepIncrements(obs, 'quarterly')[0]!.observation.id;
    expect(keep([at('2020-02-15', 1, 5, '08:00'), at('2020-02-15', 2, 9, null)])).toBe(9);
    expect(keep([at('2020-02-15', 1, 5, '09:00'), at('2020-02-15', 2, 9, '08:00')])).toBe(9);
    expect(keep([at('2020-02-15', 1, 9, '08:00'), at('2020-02-15', 2, 5, '08:00')])).toBe(5);
  });

  it('holds increments in LWP\'s text order for the run checks, byte order of `<label>-<year>`', () => {
    const kept = keepIncrements([2015, 2016].flatMap((y) => Array.from({ length: 12 }, (_, m) => at(`${y}-${String(m + 1).padStart(2, '0')}-15`, m))), 'monthly');
    expect(inTextOrder(kept).slice(0, 6).map((i) => i.text)).toEqual(['Apr-2015', 'Apr-2016', 'Aug-2015', 'Aug-2016', 'Dec-2015', 'Dec-2016']);
    const quarters = keepIncrements([at('2015-02-01', 1, 1), at('2015-05-01', 2, 2), at('2016-11-01', 3, 3)], 'quarterly');
    expect(inTextOrder(quarters).map((i) => i.text)).toEqual(['Apr.to.Jun-2015', 'Jan.to.Mar-2015', 'Oct.to.Dec-2016']);
  });

  it('labels seasons as LWP does', () => {
    expect(seasonLevels('bi-month')).toEqual(['Jan.to.Feb', 'Mar.to.Apr', 'May.to.Jun', 'Jul.to.Aug', 'Sep.to.Oct', 'Nov.to.Dec']);
    expect(seasonLevels('half-year')).toEqual(['Jan.to.Jun', 'Jul.to.Dec']);
    expect([1, 6, 12].map((m) => seasonLabel(m, 'quarter'))).toEqual(['Jan.to.Mar', 'Apr.to.Jun', 'Oct.to.Dec']);
  });
});

describe('LWP\'s data checks (§5), on hand-made lists', () => {
  const d = (...values: number[]) => values.map((value) => ({ value, censored: false }));
  const c = (value: number) => ({ value, censored: true });

  it('first tier: distinct detected values, then detected values', () => {
    expect(firstTier([...d(1, 1, 2), c(3), c(4)])).toBe('< 3 unique values');
    expect(firstTier([...d(1, 2, 3, 3), c(0.5), c(0.5)])).toBe('< 5 Non-censored values');
    expect(firstTier(d(1, 2, 3, 3, 3))).toBe('ok');
  });

  it('measures runs of equal consecutive differences, compared exactly', () => {
    expect(longestRunOfDifferences([2, 2, 2, 5])).toBe(2);
    expect(longestRunOfDifferences([1, 2, 3, 4])).toBe(3);
    expect(longestRunOfDifferences([0.1, 0.2, 0.3])).toBe(1); // 0.2 − 0.1 ≠ 0.3 − 0.2 in doubles
    expect(longestRunOfDifferences([7])).toBe(0);
  });

  it('non-seasonal: a run over half the values fails', () => {
    expect(nonSeasonalChecks(d(1, 2, 3, 4, 5, 9, 7, 8))).toBe('ok'); // r = 4 of 8
    expect(nonSeasonalChecks(d(1, 2, 3, 4, 5, 6, 9, 8))).toBe('Long run of single value'); // r = 5 of 8
  });

  const s = (season: string, ...values: number[]) => values.map((value) => ({ value, censored: false, season }));
  it('seasonal: an empty season level, a season of one value repeated, a long run within a season, in that order', () => {
    const levels = ['A', 'B', 'C'];
    expect(seasonalChecks([...s('A', 1, 2, 3), ...s('B', 4, 5, 6)], levels)).toBe('< 3non-NA values in Season');
    expect(seasonalChecks([...s('A', 1, 2, 3), ...s('B', 4, 5, 6), ...s('C', 7, 7, 7)], levels)).toBe('< 3 unique values in Season');
    expect(seasonalChecks([...s('A', 1, 2, 3, 4, 5), ...s('B', 4, 6, 5), ...s('C', 7, 8, 7)], levels)).toBe('Long run of single value in a Season');
    expect(seasonalChecks([...s('A', 1, 2, 3, 5), ...s('B', 4, 6, 5), ...s('C', 7, 8, 7)], levels)).toBe('ok'); // r 2 of 4 = 0.5
    expect(seasonalChecks([...s('A', 1, 2, 3, 5), ...s('B', 4, 6, 5)], ['A', 'B'])).toBe('ok');
  });
});

const SCIPY = `
import sys, json
from scipy import stats
kw, ts = json.load(sys.stdin)
out = {"kw": [], "theil": []}
for groups in kw:
    r = stats.kruskal(*groups)
    out["kw"].append([float(r.statistic), float(r.pvalue)])
for x, y in ts:
    out["theil"].append(float(stats.theilslopes(y, x).slope))
print(json.dumps(out))`;

describe('against scipy', () => {
  const random = createRandom(54);
  const kwSets = Array.from({ length: 200 }, () => Array.from({ length: 2 + random.int(5) }, () =>
    Array.from({ length: 3 + random.int(12) }, () => random.int(15) / 2)));
  const theilSets = Array.from({ length: 100 }, () => {
    const n = 5 + random.int(40);
    const days = [...new Set(Array.from({ length: n }, () => random.int(3650)))].sort((a, b) => a - b);
    return { days, values: days.map(() => Math.round(random.range(0, 100)) / 10) };
  });
  const reference = JSON.parse(execFileSync('python3', ['-c', SCIPY], {
    input: JSON.stringify([kwSets, theilSets.map((t) => [t.days.map((d) => d / 365.25), t.values])]), encoding: 'utf8',
  })) as { kw: [number, number][]; theil: number[] };

  it('Kruskal–Wallis H and p agree with scipy.stats.kruskal on 200 random samples with ties', () => {
    kwSets.forEach((groups, i) => {
      const { H, p } = kruskalWallis(groups.flat(), groups.flatMap((g, k) => g.map(() => `g${k}`)));
      expect(relative(H, reference.kw[i]![0]), `H of set ${i}`).toBeLessThan(1e-12);
      expect(relative(p, reference.kw[i]![1]), `p of set ${i}`).toBeLessThan(1e-10);
    });
  });

  it('the uncensored Sen slope is scipy.stats.theilslopes\' slope with time in days/365.25', () => {
    theilSets.forEach(({ days, values }, i) => {
      const increments: SenIncrement[] = days.map((day, k) => ({ value: values[k]!, censoring: null, day, year: 0, season: null, text: String(k) }));
      expect(relative(senSlope(increments).SenSlope, reference.theil[i]!), `set ${i}`).toBeLessThan(1e-9);
    });
  });
});

describe('Mann–Kendall S and VarS (§7)', () => {
  const random = createRandom(7);

  it('S without censoring is the brute-force sum of signs over pairs of different times', () => {
    for (let t = 0; t < 50; t++) {
      const values = Array.from({ length: 3 + random.int(60) }, () => random.int(8));
      const keys = values.map((_, i) => String(Math.floor(i / (1 + random.int(2)))));
      let S = 0;
      values.forEach((a, i) => values.forEach((b, j) => { if (j > i && keys[i] !== keys[j]) S += Math.sign(b - a); }));
      expect(kendall(values.map((value, i) => ({ value, censoring: null, timeKey: keys[i]! }))).S).toBe(S);
    }
  });

  it('VarS without censoring is the exact variance of S over every permutation, ties in value and time included', () => {
    for (let t = 0; t < 25; t++) {
      const n = 4 + random.int(4);
      const values = Array.from({ length: n }, () => random.int(3));
      // Times in order, neighbours sharing a key now and then (several increments of one season and year).
      let key = 0;
      const keys = values.map((_, i) => String(i > 0 && random.next() < 0.3 ? key : ++key));
      let sumSquares = 0;
      let count = 0;
      for (const perm of permutations(values)) {
        const S = kendall(perm.map((value, i) => ({ value, censoring: null, timeKey: keys[i]! }))).S;
        sumSquares += S * S;
        count++;
      }
      const VarS = kendall(values.map((value, i) => ({ value, censoring: null, timeKey: keys[i]! }))).VarS;
      expect(relative(VarS, sumSquares / count), `${values} at ${keys}`).toBeLessThan(1e-12);
    }
  });

  // Worked by hand from §7's rules (and checked once against LWP's GetKendal).
  it.each([
    ['<1, 2, <1, 3: `<1` before 2 is an increase, 2 before `<1` a decrease, two `<1` a tie', [['<', 1], [null, 2], ['<', 1], [null, 3]], null, 3, 23 / 3],
    ['0.5, <1, 2, <1, <1, 3: 0.5 before `<1` is a tie; B with k = 1 value below the limit', [[null, 0.5], ['<', 1], [null, 2], ['<', 1], ['<', 1], [null, 3]], null, 5, 62 / 3],
    ['1, >5, 3, >4: both `>` become 5.1, one tie in value', [[null, 1], ['>', 5], [null, 3], ['>', 4]], null, 3, 23 / 3],
    ['5.05, >5, >4: the `>` values become 5.1, above a detected 5.05', [[null, 5.05], ['>', 5], ['>', 4]], null, 2, 8 / 3],
    ['1 | 2, <1 | 3 with the middle two tied in time', [[null, 1], [null, 2], ['<', 1], [null, 3]], ['a', 'b', 'b', 'c'], 3, 23 / 3],
  ] as const)('%s', (_, values, keys, S, VarS) => {
    const k = kendall(values.map(([censoring, value], i) => ({ value, censoring, timeKey: keys?.[i] ?? String(i) })));
    expect(k.S).toBe(S);
    expect(relative(k.VarS, VarS)).toBeLessThan(1e-12);
  });

  it('Z takes the continuity correction, P is two-sided, Cd is P/2 for an increase and C otherwise', () => {
    expect(kendallTest(0, 10)).toEqual({ Z: 0, P: 1, C: 0.5, Cd: 0.5 });
    const up = kendallTest(5, 16);
    expect(up.Z).toBe(1);
    expect(up.Cd).toBe(up.P / 2);
    const down = kendallTest(-5, 16);
    expect(down.Z).toBe(-1);
    expect(down.Cd).toBe(1 - down.P / 2);
  });
});

describe('Sen slopes with censoring (§8)', () => {
  const inc = (day: number, value: number, censoring: '<' | '>' | null = null, season: string | null = null, year = 2000 + Math.floor(day / 365)) =>
    ({ value, censoring, day, year, season, text: `${season}-${year}` });

  it('zeroes what censoring cannot tell, by (later, earlier)', () => {
    const slopes = (a: SenIncrement, b: SenIncrement) => pairSlopes([a, b])[0]!.slope;
    expect(slopes(inc(0, 1, '<'), inc(365.25, 0.5, '<'))).toBe(0);
    expect(slopes(inc(0, 1), inc(365.25, 3, '<'))).toBe(0); // (<, detected) rising
    expect(slopes(inc(0, 3), inc(365.25, 1, '<'))).toBe(-2); // (<, detected) falling: as computed
    expect(slopes(inc(0, 3, '<'), inc(365.25, 1))).toBe(0); // (detected, <) falling
    expect(slopes(inc(0, 3, '>'), inc(365.25, 5))).toBe(0); // (detected, >) rising
    expect(slopes(inc(0, 5), inc(365.25, 3, '>'))).toBe(0); // (>, detected) falling
    expect(slopes(inc(0, 1, '<'), inc(365.25, 5, '>'))).toBe(4); // (>, <): as computed
  });

  it('in a seasonal slope drops pairs of one season and year, except two `<` or two `>`, which count as 0', () => {
    const season = [inc(0, 1, '<', 'Q1', 2000), inc(30, 2, '<', 'Q1', 2000), inc(60, 3, null, 'Q1', 2000), inc(400, 4, null, 'Q1', 2001), inc(500, 9, null, 'Q2', 2001)];
    expect(pairSlopes(season).map((s) => [s.later, s.earlier, s.slope === 0])).toEqual([
      ['<', '<', true], [null, '<', false], [null, '<', false], [null, null, false],
    ]);
  });

  it('notes the slopes nearest the median', () => {
    const s = (slope: number, later: '<' | '>' | null = null, earlier: '<' | '>' | null = null) => ({ slope, later, earlier });
    expect(senNote([s(1), s(2), s(3)], 2)).toBe('ok');
    expect(senNote([s(0), s(0), s(3)], 0)).toBe('WARNING: Sen slope based on tied non-censored values');
    expect(senNote([s(1), s(2, '<', '<'), s(3)], 2)).toBe('WARNING: Sen slope based on two censored values');
    expect(senNote([s(1), s(2, '<', '>'), s(2, '>', '>'), s(3)], 2)).toBe('WARNING: Sen slope based on two censored values');
    expect(senNote([s(1), s(2, '<', null), s(2), s(3)], 2)).toBe('WARNING: Sen slope influenced by censored values');
    expect(senNote([s(1), s(1.5, '<', '<'), s(2.5), s(3)], 2)).toBe('WARNING: Sen slope influenced by censored values');
  });

  it('interpolates the interval\'s ranks and clamps them to the smallest and largest slope', () => {
    // Five increments a year apart, values 0, 1, 3, 6, 10: ten slopes; no ties, so VarS′ = 5·4·15/18 = 50/3, and
    // R = (10 ∓ z√VarS′)/2 = 1.64… and 8.36…, each between two ranks.
    const r = senSlope([0, 1, 3, 6, 10].map((v, k) => inc(k * 365.25, v)));
    const sorted = r.slopes.map((x) => x.slope).sort((a, b) => a - b);
    const spread = 1.6448536269514722 * Math.sqrt(50 / 3);
    const atRank = (rank: number) => sorted[Math.floor(rank) - 1]! + (rank % 1) * (sorted[Math.floor(rank)]! - sorted[Math.floor(rank) - 1]!);
    expect(r.VarSPrime).toBeCloseTo(50 / 3, 12);
    expect(r.SenSlopeLower90).toBeCloseTo(atRank((10 - spread) / 2), 12);
    expect(r.SenSlopeUpper90).toBeCloseTo(atRank((10 + spread) / 2), 12);
    // Three increments: R = (3 ∓ 3.15)/2 fall outside 1 … 3.
    const few = senSlope([0, 2, 1].map((v, k) => inc(k * 365.25, v)));
    expect([few.SenSlopeLower90, few.SenSlopeUpper90]).toEqual([-1, 2]);
  });
});

describe('direction, polarity and categories (§9)', () => {
  it('reads the direction from Cd', () => {
    expect([0.7, 0.3, 0.5, null].map(direction)).toEqual(['Decreasing', 'Increasing', 'Indeterminate', 'Not Analysed']);
  });

  it('uses LAWA\'s right-closed boundaries on the probability of degradation', () => {
    expect([0.1, 0.10000001, 0.33, 0.67, 0.9, 0.90000001].map((cd) => category(cd, 'increasing'))).toEqual([
      'Very likely improving', 'Likely improving', 'Likely improving', 'Indeterminate', 'Likely degrading', 'Very likely degrading',
    ]);
    expect(category(0.99, 'decreasing')).toBe('Very likely improving');
    expect([category(null, 'decreasing'), category(0.99, null), category(null, null)]).toEqual(['Not Analysed', null, null]);
  });

  it('takes polarity from §9\'s lists', () => {
    expect(['Dissolved oxygen (DO)', 'pH', 'Temperature, water', 'Escherichia coli', 'Light, underwater extinction coefficient (K)'].map(improvesWhen))
      .toEqual(['increasing', null, null, 'decreasing', 'decreasing']);
    expect([reason(true, null, 'decreasing'), reason(false, null, null), reason(false, 0.4, null), reason(false, 0.4, 'decreasing')])
      .toEqual(['unassessed', 'not analysed', 'no polarity', null]);
  });
});

function* permutations<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) { yield [...items]; return; }
  for (let i = 0; i < items.length; i++) {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) yield [items[i]!, ...rest];
  }
}
