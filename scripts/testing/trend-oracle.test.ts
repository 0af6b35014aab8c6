/**
 * The trends oracle against every figure of ../shared/trends/README.md §12: through Trends, and through the core
 * functions (non-seasonal, seasonal by month) where the README gives LWP's own figures for them.
 */
import { describe, expect, it } from 'vitest';
import { nonSeasonalChecks } from './trend-checks.js';
import { agreesWithin, ammonia, ecoli, ex1410, sulfateEx176, trendExpected, trendObservations } from './trend-examples.js';
import { keepIncrements, seasonLabel, type Increment } from './trend-increments.js';
import { kendall, kendallTest } from './trend-kendall.js';
import { trendDetails, trendRows, type TrendDetail, type TrendRow } from './trend-oracle.js';
import { median, senSlope, substitute } from './trend-sen.js';

function expectFields(actual: object, expected: Readonly<Record<string, unknown>>): void {
  for (const [field, value] of Object.entries(expected)) {
    expect(agreesWithin(field, (actual as Record<string, unknown>)[field], value), `${field}: ${String((actual as Record<string, unknown>)[field])} against ${String(value)}`).toBe(true);
  }
}

function onlyDetail(details: TrendDetail[]): TrendDetail {
  expect(details).toHaveLength(1);
  return details[0]!;
}

/** LWP's core functions on increments: one Kendall per season (or one over all), Sen slope, Median (§7, §8). */
function core(increments: readonly Increment[], season: ((i: Increment) => string) | null) {
  const groups = season === null ? [increments] : [...new Set(increments.map(season))].map((s) => increments.filter((i) => season(i) === s));
  const k = groups.map((g) => kendall(g.map((i) => ({ value: i.observation.value, censoring: i.observation.censoring, timeKey: season === null ? i.text : String(i.year) }))))
    .reduce((a, b) => ({ n: a.n + b.n, S: a.S + b.S, VarS: a.VarS + b.VarS, D: a.D + b.D }));
  const sen = senSlope(increments.map((i) => ({
    value: substitute(i.observation.value, i.observation.censoring), censoring: i.observation.censoring,
    day: i.day, year: i.year, season: season === null ? null : season(i), text: i.text,
  })));
  const Median = median(increments.map((i) => substitute(i.observation.value, i.observation.censoring)));
  return { ...k, Tau: k.S / k.D, ...kendallTest(k.S, k.VarS), Median, SenSlope: sen.SenSlope, SenSlopeLower90: sen.SenSlopeLower90, SenSlopeUpper90: sen.SenSlopeUpper90, PercentAnnualChange: (sen.SenSlope / Math.abs(Median)) * 100, slopes: sen.slopes.length };
}

describe('§12.1 EPA 2009 Example 17-6 (sulfate)', () => {
  it('is unassessed through Trends over 1989–1996: 23 months of 96, 20 quarters of 32', () => {
    const row = onlyDetail(trendDetails(sulfateEx176, { endYear: 1996, periods: '1989-1996', characteristicName: 'Sulfate' })).row;
    expectFields(row, trendExpected.sulfateEx176);
    expect(row).toMatchObject({ Period: 8, N: null, Seasonal: null, S: null, AnalysisNote: null, Category: 'Not Analysed', Method: 'LWP-Trends 2502 (LAWA rules)' });
  });

  it('gives LWP\'s MannKendall and SenSlope figures on all 23 values as monthly increments', () => {
    const increments = keepIncrements(sulfateEx176, 'monthly');
    expect(increments).toHaveLength(23);
    expectFields(core(increments, null), {
      S: 194, VarS: 1428, D: 253, Tau: 0.76679841897233203, Z: 5.1073215968408938, P: 3.2675735707179567e-07,
      Cd: 1.6337867853589783e-07, Median: 560, SenSlope: 26.489974402730375, SenSlopeLower90: 20.46716639509172,
      SenSlopeUpper90: 34.140266251188997, PercentAnnualChange: 4.7303525719161383,
    });
  });
});

describe('§12.2 EPA 2009 Example 14-10 (monthly, 1983–1985)', () => {
  const detail = onlyDetail(trendDetails(ex1410, { endYear: 1985, periods: '3', characteristicName: 'Chloride' }));

  it('through Trends: seasonal by bi-month, the largest H with p < 0.05, with every figure of the README', () => {
    expectFields(detail.row, trendExpected.ex1410);
    expect(detail.row).toMatchObject({ Period: 3, StartYear: 1983, EndYear: 1985, Observations: 36, NCensored: 0, AnalysisNote: 'ok' });
  });

  it('tests each candidate season by Kruskal–Wallis as the README lists them', () => {
    const [month, biMonth, quarter, halfYear] = detail.candidates;
    expect(detail.candidates.map((c) => c.season)).toEqual(['month', 'bi-month', 'quarter', 'half-year']);
    expect(Math.abs(month!.H! - 16.468817)).toBeLessThan(5e-7);
    expect(month!.p!.toFixed(4)).toBe('0.1246');
    expect(agreesWithin('SeasonalityP', biMonth!.H, 13.289462365591392)).toBe(true);
    expect(Math.abs(quarter!.H! - 12.086165)).toBeLessThan(5e-7);
    // The README prints 0.0070938 for 0.00709374966: a double rounding of the last digit, within 1e-7.
    expect(Math.abs(quarter!.p! - 0.0070938)).toBeLessThan(1e-7);
    expect(halfYear!.p!.toFixed(3)).toBe('0.154');
  });

  it('pools 72 within-season slopes, with VarS′ = 148.8', () => {
    expect(detail.sen!.slopes).toHaveLength(72);
    expect(agreesWithin('VarS', detail.sen!.VarSPrime, 148.8)).toBe(true);
  });

  const increments = keepIncrements(ex1410, 'monthly');

  it('gives LWP\'s SeasonalKendall and SeasonalSenSlope figures by month (EnvStats\' seasonal test)', () => {
    expectFields(core(increments, (i) => seasonLabel(i.month, 'month')), {
      S: 35, VarS: 43, Tau: 0.97222222222222221, Z: 5.1849513913085588, P: 2.1607121265531671e-07,
      SenSlope: 0.060041095890411011, SenSlopeLower90: 0.059877049180327921, SenSlopeUpper90: 0.069952120383036998,
    });
  });

  it('gives LWP\'s non-seasonal figures on the same 36 values', () => {
    expectFields(core(increments, null), {
      S: 315, VarS: 5371, P: 1.8313496838488237e-05, SenSlope: 0.063664638584720601,
      SenSlopeLower90: 0.04472377059327326, SenSlopeUpper90: 0.081652054407286123,
    });
  });
});

describe('§12.3 censored example 1: ammonia, limits 0.01 → 0.005 → 0.02', () => {
  const detail = onlyDetail(trendDetails(ammonia, { endYear: 2024, periods: '2020-2024', characteristicName: 'Ammonia and ammonium' }));

  it('gives every figure of the README through Trends', () => {
    expectFields(detail.row, trendExpected.ammonia);
    expect(detail.row.S! / detail.row.Tau!).toBeCloseTo(420, 9);
    expect(detail.row).toMatchObject({ Period: 5, Quarters: 20, Years: 5, ImprovesWhen: 'decreasing', Reason: null });
  });

  it('keeps 22 May in May 2023 (5.125 days from the middle against 8.875 for 8 May)', () => {
    expect(detail.increments.find((i) => i.text === 'May-2023')!.observation.date).toBe('2023-05-22');
  });

  it('counts 372 slopes: the within-quarter pairs of different years and 12 zero slopes of two `<` in one quarter and year', () => {
    const quarter = (i: Increment) => seasonLabel(i.month, 'quarter');
    let differentYears = 0;
    let bothLessThanSameYear = 0;
    detail.increments.forEach((a, x) => detail.increments.slice(x + 1).forEach((b) => {
      if (quarter(a) !== quarter(b)) return;
      if (a.year !== b.year) differentYears++;
      else if (a.observation.censoring === '<' && b.observation.censoring === '<') bothLessThanSameYear++;
    }));
    expect(bothLessThanSameYear).toBe(12);
    expect(detail.sen!.slopes).toHaveLength(differentYears + 12);
    expect(detail.sen!.slopes).toHaveLength(372);
    expect(Math.abs(detail.sen!.VarSPrime! - 1523.0769230769)).toBeLessThan(1e-9);
  });
});

describe('§12.4 censored example 2: E. coli with `<` and `>` values, quarterly', () => {
  const rows = trendRows(ecoli, { endYear: 2024, periods: '2020-2024,2015-2024', characteristicName: 'Escherichia coli' });
  const details = trendDetails(ecoli, { endYear: 2024, periods: '5,10', characteristicName: 'Escherichia coli' });

  it.each([['2020–2024', 0, trendExpected.ecoli2020], ['2015–2024', 1, trendExpected.ecoli2015]] as const)('%s', (_, index, expected) => {
    expectFields(rows[index]!, expected);
    expect(details[index]!.row).toEqual(rows[index]);
  });

  it('counts 40 and 180 slopes with VarS′ equal to VarS, as the README\'s table says', () => {
    expect(details.map((d) => d.sen!.slopes.length)).toEqual([40, 180]);
    details.forEach((d, i) => expect(agreesWithin('VarS', d.sen!.VarSPrime, [65.666666666666671, 496.33333333333331][i])).toBe(true));
  });

  it('ties the `>2419.6` values as a detected 2419.7 in the Kendall stage and substitutes 2661.56 and 5 in the slopes', () => {
    const raised = details[1]!.increments.filter((i) => i.observation.censoring === '>');
    expect(raised.map((i) => i.text)).toEqual(['Jul.to.Sep-2016', 'Jul.to.Sep-2023', 'Jul.to.Sep-2024']);
    const julToSep = details[1]!.increments.filter((i) => seasonLabel(i.month, 'quarter') === 'Jul.to.Sep');
    const asStored = kendall(julToSep.map((i) => ({ value: i.observation.value, censoring: i.observation.censoring, timeKey: String(i.year) })));
    const asTies = kendall(julToSep.map((i) => ({ value: i.observation.censoring === '>' ? 2419.7 : i.observation.value, censoring: null, timeKey: String(i.year) })));
    expect(asStored).toEqual(asTies);
    expect(substitute(2419.6, '>')).toBeCloseTo(2661.56, 10);
    expect(substitute(10, '<')).toBe(5);
  });
});

describe('rows per period (§2)', () => {
  it('gives a row for each period that has observations and none for a period without', () => {
    const rows: TrendRow[] = trendRows(ecoli, { endYear: 2030, periods: '5,10,15', characteristicName: 'Escherichia coli' });
    expect(rows.map((r) => [r.StartYear, r.EndYear, r.Period, r.Observations])).toEqual([[2021, 2030, 10, 16], [2016, 2030, 15, 36]]);
    expect(rows.every((r) => r.TimeIncrement === 'unassessed' && r.Reason === 'unassessed')).toBe(true);
  });
});

describe('the Kendall stage\'s notes through Trends (§5, §7.4, §11)', () => {
  it('reads the run check in text order: months of one value side by side in text order fail, though time order would pass', () => {
    // Apr, Aug, Dec, Feb, Jan, Jul and Jun (the first 35 increments in text order) are all 5; the other five months vary.
    const varying = ['03', '05', '09', '10', '11'];
    let k = 0;
    const observations = [2020, 2021, 2022, 2023, 2024].flatMap((year) => Array.from({ length: 12 }, (_, m) => {
      const month = String(m + 1).padStart(2, '0');
      return [`${year}-${month}-15`, varying.includes(month) ? String(((k++ * 7) % 9) + 1) : '5'] as const;
    }));
    const detail = onlyDetail(trendDetails(trendObservations(observations), { endYear: 2024, periods: '5', characteristicName: 'Chloride' }));
    expect(detail.row).toMatchObject({ TimeIncrement: 'monthly', Seasonal: false, AnalysisNote: 'Long run of single value', S: null, Direction: 'Not Analysed', Category: 'Not Analysed', Reason: 'not analysed' });
    expect(nonSeasonalChecks(detail.increments.map((i) => ({ value: i.observation.value, censored: false })))).toBe('ok');
  });

  it('serves S, VarS and Tau without Z … Cd for a seasonal test of fewer than 10 increments', () => {
    // Two years of quarters, low in the first half-year and high in the second: seasonal by half-year, N = 8;
    // S = 4 (1, 2 → 3, 4) + 2 (10, 12 → 11, 13: three rises, one fall), D = 6 + 6.
    const values = ['1', '2', '10', '12', '3', '4', '11', '13'];
    const observations = values.map((v, i) => [`${2023 + Math.floor(i / 4)}-${String((i % 4) * 3 + 2).padStart(2, '0')}-15`, v] as const);
    const row = onlyDetail(trendDetails(trendObservations(observations), { endYear: 2024, periods: '2', characteristicName: 'pH' })).row;
    expect(row).toMatchObject({
      TimeIncrement: 'quarterly', N: 8, Seasonal: true, Season: 'half-year', AnalysisNote: 'Insufficent data to complete Seasonal Mann Kendall',
      S: 6, Z: null, P: null, Cd: null, SenSlope: null, Direction: 'Not Analysed', ImprovesWhen: null, Category: null, Reason: 'not analysed',
    });
    expect(row.Tau).toBe(row.S! / 12);
  });
});
