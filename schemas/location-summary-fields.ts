import { servedField as field, type FieldDef } from './field.js';

/**
 * LocationSummaries (issue 48; non-detects, issue 52): one row per location × CharacteristicName ×
 * ResultSampleFraction × MethodSpeciation × unit, built at publish for the changed datasets only. Table
 * `location_summaries`. Quality-control results enter no row; the statistics follow ../shared/statistics/README.md
 * (docs/statistics.md): Kaplan–Meier where results are censored, each bound with its qualifier.
 */
const qualifier = (of: string, meaning: string) => field(`${of}Qualifier`, 'string', true, `Qualifier of ${of}: '<' (${meaning} is below the number), '>' (above it) or null (the number is ${meaning}).`);

export const locationSummaryFields: readonly FieldDef[] = [
  field('Id', 'integer', false, 'Row identifier, ascending by LocationId.'),
  field('LocationId', 'integer', false, 'Id of the location.'),
  field('DOI', 'string', false, 'DOI of the dataset.'),
  field('CharacteristicName', 'string', false, 'What was measured.'),
  field('ResultSampleFraction', 'string', true, 'Fraction of the sample.'),
  field('MethodSpeciation', 'string', true, 'Speciation of the result.'),
  field('ResultUnit', 'string', true, "Unit of the values and limits summarised: a result's ResultUnit, or for a non-detect without one its limit's unit."),
  field('Count', 'integer', false, 'Observations (quality-control results left out).'),
  field('NonDetects', 'integer', false, 'Observations without a ResultValue.'),
  field('LeftCensored', 'integer', false, 'Non-detects below a usable limit (Below Detection/Quantification Limit or Not Detected, with a limit in or convertible to the unit).'),
  field('RightCensored', 'integer', false, 'Results above a usable limit (Above Detection/Quantification Limit).'),
  field('Unusable', 'integer', false, 'Observations without a value that enter no statistic: NonDetects − LeftCensored − RightCensored.'),
  field('FirstDate', 'date', false, 'First ActivityStartDate.'),
  field('LastDate', 'date', false, 'Last ActivityStartDate.'),
  field('Method', 'string', false, "How the statistics were computed: 'exact' (no censored results), 'km' (Kaplan–Meier over the censored results) or 'none' (not estimated)."),
  field('MethodReason', 'string', false, "Why that Method: 'no usable results', 'more than 80 % of results censored', 'no censored results', 'left- and right-censored results overlap', 'left-censored results', 'right-censored results' or 'left- and right-censored results'."),
  qualifier('Min', 'the smallest result'),
  field('Min', 'number', true, 'Smallest result as reported: a detected value or a limit.'),
  qualifier('Max', 'the largest result'),
  field('Max', 'number', true, 'Largest result as reported: a detected value or a limit.'),
  field('Mean', 'number', true, 'Mean: arithmetic over the values (exact), the Kaplan–Meier mean (km; null when results above a limit leave it unbounded), null for none.'),
  qualifier('Median', 'the median'),
  field('Median', 'number', true, 'Median: continuous quantile of the values (exact), Kaplan–Meier (km, a detected value or a bound), null for none.'),
  qualifier('P10', 'the 10th percentile'),
  field('P10', 'number', true, '10th percentile, as Median.'),
  qualifier('P90', 'the 90th percentile'),
  field('P90', 'number', true, '90th percentile, as Median.'),
  field('LatestObservationId', 'integer', false, 'Id of the most recent observation (by date, time, then Id).'),
  field('LatestDate', 'date', false, 'Its ActivityStartDate.'),
  field('LatestTime', 'time', true, 'Its ActivityStartTime.'),
  field('LatestValue', 'number', true, 'Its ResultValue.'),
  field('LatestDetectionCondition', 'string', true, 'Its ResultDetectionCondition.'),
];
