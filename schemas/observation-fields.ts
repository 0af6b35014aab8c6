import { servedField as field, type FieldDef } from './field.js';

/**
 * The observation columns of the DataStream schema, ActivityType … LaboratorySampleID, in the order the public
 * API serves them. Observations and Records both end with exactly these; the upload CSV carries them too.
 */
export const activityFields: readonly FieldDef[] = [
  field('ActivityType', 'string', false, 'Kind of activity, e.g. Field Msr/Obs, Sample-Routine (controlled vocabulary).'),
  field('ActivityMediaName', 'string', false, 'Medium sampled, e.g. Surface Water.'),
  field('ActivityStartDate', 'date', false, 'Date the activity started (YYYY-MM-DD).'),
  field('ActivityStartTime', 'time', true, 'Local time the activity started (HH:MM:SS).'),
  field('ActivityStartTimeZone', 'string', true, 'UTC offset of ActivityStartTime, e.g. -07:00.'),
  field('ActivityEndDate', 'date', true, 'Date the activity ended.'),
  field('ActivityEndTime', 'time', true, 'Local time the activity ended.'),
  field('ActivityEndTimeZone', 'string', true, 'UTC offset of ActivityEndTime.'),
  field('ActivityDepthHeightMeasure', 'number', true, 'Depth (negative) or height of the activity.'),
  field('ActivityDepthHeightUnit', 'string', true, 'Unit of ActivityDepthHeightMeasure.'),
  field('SampleCollectionEquipmentName', 'string', true, 'Equipment used to collect the sample.'),
  field('CharacteristicName', 'string', false, 'What was measured, e.g. pH, Temperature, water.'),
  field('MethodSpeciation', 'string', true, 'Chemical form the result is reported as, e.g. as N.'),
  field('ResultSampleFraction', 'string', true, 'Fraction of the sample, e.g. Dissolved, Total.'),
  field('ResultValue', 'number', true, 'Measured value; null when ResultDetectionCondition is given.'),
  field('ResultUnit', 'string', true, 'Unit of ResultValue.'),
  field('ResultValueType', 'string', true, 'Actual, Calculated, Estimated, …'),
  field('ResultDetectionCondition', 'string', true, 'Why there is no value, e.g. Not Detected.'),
  field('ResultDetectionQuantitationLimitMeasure', 'number', true, 'Detection or quantitation limit.'),
  field('ResultDetectionQuantitationLimitUnit', 'string', true, 'Unit of the detection limit.'),
  field('ResultDetectionQuantitationLimitType', 'string', true, 'Kind of limit, e.g. Method Detection Level.'),
  field('ResultStatusID', 'string', true, 'Accepted, Preliminary, Rejected, …'),
  field('ResultComment', 'string', true, 'Free comment on the result.'),
  field('ResultAnalyticalMethodID', 'string', true, 'Identifier of the analytical method.'),
  field('ResultAnalyticalMethodContext', 'string', true, 'Organization that defines the method ID, e.g. APHA.'),
  field('ResultAnalyticalMethodName', 'string', true, 'Name of the analytical method.'),
  field('AnalysisStartDate', 'date', true, 'Date the lab analysis started.'),
  field('AnalysisStartTime', 'time', true, 'Time the lab analysis started.'),
  field('AnalysisStartTimeZone', 'string', true, 'UTC offset of AnalysisStartTime.'),
  field('LaboratoryName', 'string', true, 'Laboratory that analysed the sample.'),
  field('LaboratorySampleID', 'string', true, "Laboratory's sample identifier."),
];

/** Observations: Id, DOI, LocationId, then the activity fields (34 in all). Table `observations`. */
export const observationFields: readonly FieldDef[] = [
  { name: 'Id', column: 'Id', type: 'integer', nullable: false, selectable: true, description: 'Observation identifier; ascending, each location contiguous.' },
  { name: 'DOI', column: 'DOI', type: 'string', nullable: false, selectable: true, description: 'DOI of the dataset.' },
  { name: 'LocationId', column: 'LocationId', type: 'integer', nullable: false, selectable: true, description: 'Id of the location (see /Locations).' },
  ...activityFields,
];
