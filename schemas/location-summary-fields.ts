import { servedField as field, type FieldDef } from './field.js';

/**
 * LocationSummaries (issue 48): one row per location × CharacteristicName × ResultSampleFraction × MethodSpeciation ×
 * ResultUnit, built at publish for the changed datasets only. Table `location_summaries`.
 */
export const locationSummaryFields: readonly FieldDef[] = [
  field('Id', 'integer', false, 'Row identifier, ascending by LocationId.'),
  field('LocationId', 'integer', false, 'Id of the location.'),
  field('DOI', 'string', false, 'DOI of the dataset.'),
  field('CharacteristicName', 'string', false, 'What was measured.'),
  field('ResultSampleFraction', 'string', true, 'Fraction of the sample.'),
  field('MethodSpeciation', 'string', true, 'Speciation of the result.'),
  field('ResultUnit', 'string', true, 'Unit of the values summarised.'),
  field('Count', 'integer', false, 'Observations.'),
  field('NonDetects', 'integer', false, 'Observations without a ResultValue.'),
  field('FirstDate', 'date', false, 'First ActivityStartDate.'),
  field('LastDate', 'date', false, 'Last ActivityStartDate.'),
  field('Min', 'number', true, 'Smallest ResultValue.'),
  field('Max', 'number', true, 'Largest ResultValue.'),
  field('Mean', 'number', true, 'Arithmetic mean of ResultValue.'),
  field('Median', 'number', true, 'Exact median of ResultValue (continuous quantile).'),
  field('P10', 'number', true, 'Exact 10th percentile of ResultValue (continuous quantile).'),
  field('P90', 'number', true, 'Exact 90th percentile of ResultValue (continuous quantile).'),
  field('LatestObservationId', 'integer', false, 'Id of the most recent observation (by date, time, then Id).'),
  field('LatestDate', 'date', false, 'Its ActivityStartDate.'),
  field('LatestTime', 'time', true, 'Its ActivityStartTime.'),
  field('LatestValue', 'number', true, 'Its ResultValue.'),
  field('LatestDetectionCondition', 'string', true, 'Its ResultDetectionCondition.'),
];
