import { describe, expect, it } from 'vitest';
import { senLine, trendOverlay, type ChartTrendRow, type KeptRow } from './trend-chart.js';

const DAY = 86_400;
const days = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000 / DAY;

describe('the trend over the chart', () => {
  it('draws the Sen slope as LWP-Trends does (GGPlotTrend): Intercept = Ymed − slope·Tmed at the first date, Intercept + span·slope at the last', () => {
    // §12.3's ammonia: Median 0.01, SenSlope −0.00039810596361774115 mg/L a year, kept from 2020-01-09 to 2024-12-14.
    const [Ymed, slope] = [0.01, -0.00039810596361774115];
    const span = (days('2024-12-14') - days('2020-01-09')) / 365.25;
    const Tmed = span / 2;
    const intercept = Ymed - slope * Tmed;
    const [[t0, y0], [t1, y1]] = senLine('2020-01-09', '2024-12-14', Ymed, slope);
    expect(y0).toBeCloseTo(intercept, 15);
    expect(y1).toBeCloseTo(intercept + span * slope, 15);
    // At noon of each date, as the chart places a day.
    expect([t0, t1]).toEqual([days('2020-01-09') * DAY + DAY / 2, days('2024-12-14') * DAY + DAY / 2]);
  });

  const kept = (Id: number, date: string, ResultValue: number | null, limit: number | null = null): KeptRow =>
    ({ Id, LocationId: 3, ActivityStartDate: date, ActivityStartTime: null, ResultValue, ResultDetectionQuantitationLimitMeasure: limit });
  const trendRow = (over: Partial<ChartTrendRow>): ChartTrendRow => ({
    Id: 7, LocationId: 3, ResultSampleFraction: null, MethodSpeciation: null, ResultUnit: 'mg/L', StartYear: 2020, EndYear: 2024, Observations: 5,
    TimeIncrement: 'monthly', N: 4, NCensored: 1, Season: null, Cd: 0.9, Median: 2, SenSlope: 0.5, SenSlopeLower90: 0.1, SenSlopeUpper90: 0.9,
    PercentAnnualChange: 25, AnalysisNote: 'ok', Direction: 'Decreasing', ImprovesWhen: 'decreasing', Category: 'Likely improving', Reason: null,
    IncrementObservationIds: [1, 2, 3, 4], ...over,
  });

  it('marks exactly the stored kept observations, a censored one at its limit apart; lines only for a row with a slope', () => {
    const observations = new Map([[1, kept(1, '2020-01-15', 1)], [2, kept(2, '2021-02-15', null, 0.5)], [3, kept(3, '2022-03-15', 3)], [5, kept(5, '2022-03-20', 9)]]);
    const at = (r: KeptRow) => days(r.ActivityStartDate) * DAY;
    const overlay = trendOverlay([trendRow({}), trendRow({ Id: 8, LocationId: 4, SenSlope: null, IncrementObservationIds: null })], observations, new Map([[3, 'Bow']]), at);
    expect(overlay.keptIds).toEqual([1, 3]);
    expect(overlay.censoredIds).toEqual([2]);
    expect(overlay.keptCensored).toEqual([[days('2021-02-15') * DAY, 0.5]]);
    // Id 4 was kept but is not among the observations: said, never guessed.
    expect(overlay.unplaced).toBe(1);
    expect(overlay.lines.map((l) => [l.row.Id, l.label])).toEqual([[7, 'Bow: Sen slope, 5 years']]);
    expect(overlay.lines[0]!.sen).toEqual(senLine('2020-01-15', '2022-03-15', 2, 0.5));
    expect(overlay.lines[0]!.lower).toEqual(senLine('2020-01-15', '2022-03-15', 2, 0.1));
  });
});
