import { servedField as field, type FieldDef } from './field.js';

/**
 * WaterQualityIndex (issue 45): the CCME Water Quality Index (CCME 2001, calculator 1.0) per location, calendar year
 * and publisher, from the long-term (Chronic) comparisons. Table `water_quality_index`.
 */
export const waterQualityIndexFields: readonly FieldDef[] = [
  field('Id', 'integer', false, 'Row identifier (ordered by LocationId, Year, Publisher).'),
  field('DOI', 'string', false, 'DOI of the dataset of the location.'),
  field('LocationId', 'integer', false, 'Id of the location.'),
  field('Year', 'integer', false, 'Calendar year of ActivityStartDate.'),
  field('Publisher', 'string', false, 'Publisher whose long-term guidelines were used (CCME by default).'),
  field('Variables', 'integer', false, 'Variables with at least 4 tests in the year.'),
  field('Tests', 'integer', false, 'Tests (comparisons that meet or exceed) of those variables.'),
  field('FailedVariables', 'integer', false, 'Variables with at least one failed test.'),
  field('FailedTests', 'integer', false, 'Tests that exceed.'),
  field('F1', 'number', true, 'Scope: 100 × failed variables / variables.'),
  field('F2', 'number', true, 'Frequency: 100 × failed tests / tests.'),
  field('F3', 'number', true, 'Amplitude: nse / (0.01·nse + 0.01).'),
  field('WQI', 'number', true, 'Index: 100 − √(F1² + F2² + F3²) / 1.732.'),
  field('Category', 'string', true, 'Excellent, Good, Fair, Marginal or Poor.'),
  field('Reason', 'string', true, 'Why there is no index: fewer than 4 variables with 4 tests each.'),
];
