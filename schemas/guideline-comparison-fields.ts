import { servedField as field, type FieldDef } from './field.js';

/**
 * GuidelineComparisons (issue 45): one row per observation × applicable guideline, computed at publish for the changed
 * datasets only; one of a result's comparisons per publisher and term governs its verdict (issue 52). Table `guideline_comparisons`, in observation order (`Id` = ObservationId · 2^12 + GuidelineId, so
 * keyset pages and a location's rows are contiguous as they are for observations).
 */
export const guidelineComparisonFields: readonly FieldDef[] = [
  field('Id', 'integer', false, 'Comparison identifier: ObservationId × 4096 + GuidelineId.'),
  field('ObservationId', 'integer', false, 'Id of the observation compared (see /Observations).'),
  field('GuidelineId', 'integer', false, 'Id of the guideline (see /Guidelines).'),
  field('DOI', 'string', false, 'DOI of the dataset.'),
  field('LocationId', 'integer', false, 'Id of the location.'),
  field('ActivityStartDate', 'date', false, 'Date of the observation.'),
  field('ActivityStartYear', 'integer', false, 'Year of ActivityStartDate.'),
  field('CharacteristicName', 'string', false, 'What was measured.'),
  field('ResultSampleFraction', 'string', true, 'Fraction of the sample.'),
  field('MethodSpeciation', 'string', true, 'Speciation of the result.'),
  field('ResultValue', 'number', true, 'Measured value, in ResultUnit; null for a non-detect.'),
  field('ResultUnit', 'string', true, 'Unit of ResultValue (and of GuidelineLower/Upper).'),
  field('ResultDetectionCondition', 'string', true, 'Why there is no value, e.g. Not Detected.'),
  field('Publisher', 'string', false, "The guideline's publisher."),
  field('ProtectionLevel', 'string', false, "The guideline's protection level (Acute, Chronic, …)."),
  field('Term', 'string', false, "The guideline's term: short-term (ProtectionLevel Acute…), long-term (Chronic…), or the ProtectionLevel itself (a sediment level)."),
  field('GuidelineLower', 'number', true, "The guideline's lower bound in ResultUnit (a minimum, or a range's low end)."),
  field('GuidelineUpper', 'number', true, "The guideline's upper bound in ResultUnit (a maximum, or a range's high end)."),
  field('Verdict', 'string', false, 'exceeds (outside the guideline in either direction), meets, or indeterminate.'),
  field(
    'Governing', 'boolean', false,
    "True on the one comparison per result, publisher and Term that decides the result's verdict: the most protective guideline among those with a verdict of meets or exceeds (else among all). Filter Governing eq true to count each result once.",
  ),
  field('Reason', 'string', true, 'Why the verdict is not a plain comparison: a missing input, a clamped input, a detection limit above the guideline, a unit that does not convert.'),
  field(
    'Alternatives', 'string', true,
    'The other guidelines of the same Publisher and Term that apply to this result (e.g. dissolved oxygen\'s life stages), in Id order, each as its Id and ProtectionLevel; null when it stands alone.',
  ),
  field('Inputs', 'string', true, 'JSON array of the inputs used: name, value, unit and the Ids of the observations it came from.'),
];
