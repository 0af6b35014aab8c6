import { servedField as field, type FieldDef } from './field.js';

/**
 * Trends (issue 54): one row per series (location × CharacteristicName × ResultSampleFraction × MethodSpeciation ×
 * unit) × period, the method LWP-Trends 2502 as LAWA runs it, every convention pinned by ../shared/trends/README.md (the
 * section numbers below are its). Built at publish for the changed datasets' series. Table `trends`.
 */
export const TREND_METHOD = 'LWP-Trends 2502 (LAWA rules)';

export const trendFields: readonly FieldDef[] = [
  field('Id', 'integer', false, 'Row identifier, ascending by LocationId: LocationId × 65536 + the rank of the row within its location by the series and the period.'),
  field('LocationId', 'integer', false, 'Id of the location.'),
  field('DOI', 'string', false, 'DOI of the dataset of the location.'),
  field('CharacteristicName', 'string', false, 'What was measured.'),
  field('ResultSampleFraction', 'string', true, 'Fraction of the sample.'),
  field('MethodSpeciation', 'string', true, 'Speciation of the result.'),
  field('ResultUnit', 'string', true, "Unit of the series' values and detection limits (a non-detect's limit unit; units are never converted)."),
  field('Period', 'integer', false, 'Length of the period in calendar years (EndYear − StartYear + 1).'),
  field('StartYear', 'integer', false, 'First calendar year of the period.'),
  field('EndYear', 'integer', false, 'Last calendar year of the period: TRENDS_END_YEAR, or the latest year of the published hub.'),
  field('Observations', 'integer', false, 'Usable observations in the period: results and non-detects or over-range values with a limit, quality-control samples left out.'),
  field('Months', 'integer', false, 'Distinct year × month with an observation in the period.'),
  field('Quarters', 'integer', false, 'Distinct year × quarter with an observation in the period.'),
  field('Years', 'integer', false, 'Distinct calendar years with an observation in the period.'),
  field('TimeIncrement', 'string', false, 'monthly (90 % of months and years covered), quarterly (90 % of quarters and years), or unassessed.'),
  field('N', 'integer', true, 'Increments analysed: one observation per month or quarter, the one closest to its middle.'),
  field('NCensored', 'integer', true, 'Increments whose value is censored (< or >).'),
  field('Seasonal', 'boolean', true, 'Whether the Kruskal–Wallis test found a season with p < 0.05, so that the Seasonal Kendall test was used.'),
  field('Season', 'string', true, 'The season of a seasonal test: month, bi-month, quarter or half-year.'),
  field('SeasonalityP', 'number', true, "Kruskal–Wallis p of the season used, or of the increment's own season for a non-seasonal test."),
  field('S', 'number', true, "Kendall's S (a whole number): concordant minus discordant pairs, censored values as ties where their order is unknown."),
  field('VarS', 'number', true, 'Variance of S, corrected for ties and censoring.'),
  field('Tau', 'number', true, "Kendall's tau, S divided by the number of pairs."),
  field('Z', 'number', true, 'Normal score of S with the continuity correction.'),
  field('P', 'number', true, 'Two-sided p of the trend test.'),
  field('C', 'number', true, 'Confidence in the direction of the trend: 1 − P/2 (0.5 … 1).'),
  field('Cd', 'number', true, 'Probability that the trend is decreasing.'),
  field('Median', 'number', true, 'Median of the increment values, non-detects at half their limit and over-range values at 1.1 times it.'),
  field('SenSlope', 'number', true, 'Sen slope: the median of the pairwise slopes, in ResultUnit per year.'),
  field('SenSlopeLower90', 'number', true, 'Lower bound of the 90 % interval of the Sen slope, per year.'),
  field('SenSlopeUpper90', 'number', true, 'Upper bound of the 90 % interval of the Sen slope, per year.'),
  field('PercentAnnualChange', 'number', true, 'SenSlope as a percentage of |Median| per year.'),
  field('AnalysisNote', 'string', true, "LWP-Trends' note, verbatim: ok, why the analysis stopped, or a warning about the Sen slope."),
  field('Direction', 'string', false, 'Increasing, Decreasing, Indeterminate, or Not Analysed.'),
  field('ImprovesWhen', 'string', true, 'Whether the characteristic improves when it is decreasing or increasing; null when it has no improving direction (pH, temperature).'),
  field('Category', 'string', true, "LAWA's category from the probability of degradation: Very likely improving, Likely improving, Indeterminate, Likely degrading, Very likely degrading, or Not Analysed; null without an improving direction."),
  field('Reason', 'string', true, 'Why there is no category: unassessed (not enough months or quarters and years), not analysed (see AnalysisNote), no polarity.'),
  field('Method', 'string', false, `The method and its rules: ${TREND_METHOD}.`),
  // Beyond the README's fields, so returned only on request: what the stage kept, for a chart of the trend to mark
  // without re-implementing §4's choice (the explorer's; docs/trends.md, "The kept increments").
  {
    ...field('IncrementObservationIds', 'integer[]', true, 'Ids of the observations the analysis kept, one per month or quarter (the one closest to its middle), in time order; null when unassessed. Returned when $select names it.'),
    onRequest: true,
  },
];
