import { describe, expect, it } from 'vitest';
import { parseFilter } from '../odata/parse-filter.js';
import { emptySelection } from './selection.js';
import { classOf, shownRows, slopeText, trendsFilter, trendText, type TrendRow } from './trend-classes.js';

const row = (over: Partial<TrendRow>): TrendRow => ({
  Id: 1, LocationId: 3, ResultSampleFraction: null, MethodSpeciation: null, ResultUnit: 'mg/L', StartYear: 2015, EndYear: 2024, Observations: 120,
  TimeIncrement: 'monthly', N: 120, NCensored: 0, Season: null, Cd: 0.97, Median: 2, SenSlope: -0.04, SenSlopeLower90: -0.06, SenSlopeUpper90: -0.02,
  PercentAnnualChange: -2, AnalysisNote: 'ok', Direction: 'Decreasing', ImprovesWhen: 'decreasing', Category: 'Very likely improving', Reason: null, ...over,
});

describe('trend classes', () => {
  it('a characteristic with an improving direction by its Category, one without by its Direction; no conclusion is Not Analysed', () => {
    expect(classOf(row({})).value).toBe('Very likely improving');
    expect(classOf(row({ ImprovesWhen: null, Category: null, Direction: 'Increasing' })).value).toBe('Increasing');
    expect(classOf(row({ Category: 'Not Analysed', Cd: null, Direction: 'Not Analysed' })).value).toBe('Not Analysed');
    expect(classOf(row({ ImprovesWhen: null, Category: null, Cd: null, Direction: 'Not Analysed' })).value).toBe('Not Analysed');
  });

  it('each location shows one row: an analysed one first, then the most increments, the most observations, the lowest Id', () => {
    const rows = [
      row({ Id: 10, LocationId: 1, Cd: null, Category: 'Not Analysed', N: 100 }),
      row({ Id: 11, LocationId: 1, N: 40 }),
      row({ Id: 20, LocationId: 2, N: 40, Observations: 50 }),
      row({ Id: 21, LocationId: 2, N: 40, Observations: 90 }),
      row({ Id: 30, LocationId: 3, N: null, Cd: null, TimeIncrement: 'unassessed' }),
      row({ Id: 31, LocationId: 3, N: null, Cd: null, TimeIncrement: 'unassessed' }),
    ];
    const shown = shownRows(rows);
    expect([...shown].map(([id, s]) => [id, s.shown.Id, s.rows.length])).toEqual([[1, 11, 2], [2, 21, 2], [3, 30, 2]]);
  });

  it('filters Trends by what it can take of the page’s filters (not medium, group or years) and by the period', () => {
    const s = { ...emptySelection(), lists: { ...emptySelection().lists, CharacteristicName: ['pH'], ActivityMediaName: ['Surface Water'], ActivityGroupType: ['Lab Sample'], MonitoringLocationType: ['Lake/Pond'] }, region: 'hub.pacific', yearFrom: 2019 };
    const text = trendsFilter(s, { startYear: 2015, endYear: 2024 });
    expect(text).toBe("CharacteristicName eq 'pH' and MonitoringLocationType eq 'Lake/Pond' and RegionId eq 'hub.pacific' and StartYear eq 2015 and EndYear eq 2024");
    expect(() => parseFilter(text)).not.toThrow();
  });

  it('says a row in words: its class, direction, slope with interval and percent; or why there is none', () => {
    expect(trendText(row({}))).toBe('Very likely improving (decreasing); Sen slope -0.04 mg/L a year (90 % interval -0.06 to -0.02), -2 % a year');
    expect(slopeText(row({ SenSlope: null }))).toBe('');
    expect(trendText(row({ TimeIncrement: 'unassessed', Cd: null, Category: 'Not Analysed', Observations: 12 }))).toBe('Not Analysed: not assessed: too few months or quarters, or years, with data (12 observations in 10 years)');
    expect(trendText(row({ Cd: null, Category: 'Not Analysed', AnalysisNote: '< 5 Non-censored values' }))).toBe('Not Analysed: not analysed: < 5 Non-censored values');
  });
});
