import type { DimensionDef } from './field.js';

/**
 * Every name `$filter` understands, with the column holding it in each table. The statistics table
 * (`observation_stats`) holds the observation-level dimensions it groups by, so a filter over them is answerable
 * from it; location-level ones join `locations`; the row-level ones (a value, a date) only the observations hold.
 */
export const dimensions: readonly DimensionDef[] = [
  { name: 'DOI', type: 'string', columns: { datasets: 'DOI', locations: 'DOI', observations: 'DOI', observation_rollup: 'DOI', location_summaries: 'DOI', guideline_comparisons: 'DOI', water_quality_index: 'DOI', trends: 'DOI' }, description: 'Dataset DOI, e.g. 10.25976/abcd-ef12.' },
  { name: 'LocationId', type: 'integer', columns: { locations: 'Id', observations: 'LocationId', observation_stats: 'LocationId', location_summaries: 'LocationId', guideline_comparisons: 'LocationId', water_quality_index: 'LocationId', trends: 'LocationId' }, description: 'Location Id.' },
  { name: 'ActivityMediaName', type: 'string', columns: { observations: 'ActivityMediaName', observation_stats: 'ActivityMediaName', observation_rollup: 'ActivityMediaName', guideline_comparisons: 'ActivityMediaName' }, description: 'Medium sampled, e.g. Surface Water.' },
  { name: 'ActivityGroupType', type: 'string', columns: { observations: 'ActivityGroupType', observation_stats: 'ActivityGroupType', observation_rollup: 'ActivityGroupType', guideline_comparisons: 'ActivityGroupType' }, description: 'Group of the ActivityType: Continuous Data, Field Measure, Lab Sample, Quality Control - Field Measure, Quality Control - Lab Sample, Other, Unspecified.' },
  { name: 'CharacteristicName', type: 'string', columns: { observations: 'CharacteristicName', observation_stats: 'CharacteristicName', observation_rollup: 'CharacteristicName', location_summaries: 'CharacteristicName', guidelines: 'CharacteristicName', guideline_comparisons: 'CharacteristicName', trends: 'CharacteristicName' }, description: 'What was measured, e.g. pH.' },
  { name: 'MonitoringLocationType', type: 'string', columns: { locations: 'MonitoringLocationType', observations: 'MonitoringLocationType', observation_rollup: 'MonitoringLocationType', guideline_comparisons: 'MonitoringLocationType' }, description: 'Kind of water body, e.g. River/Stream.' },
  { name: 'ActivityStartYear', type: 'integer', columns: { observations: 'ActivityStartYear', observation_stats: 'ActivityStartYear', observation_rollup: 'ActivityStartYear', guideline_comparisons: 'ActivityStartYear' }, description: 'Year of ActivityStartDate.' },
  // Row-level: no statistics table holds them, so a page, a count or an $apply with one reads the observations.
  { name: 'ResultValue', type: 'number', nullable: true, columns: { observations: 'ResultValue', guideline_comparisons: 'ResultValue' }, description: "Measured value, for exceedances: CharacteristicName eq 'pH' and ResultValue gt 9 (null when ResultDetectionCondition is given: ResultValue ne x matches those)." },
  { name: 'ActivityStartDate', type: 'date', columns: { observations: 'ActivityStartDate', guideline_comparisons: 'ActivityStartDate' }, description: 'Date the activity started, for date ranges: ActivityStartDate ge 2020-06-01 and ActivityStartDate lt 2020-09-01.' },
  // Units, so that an aggregate of values can be grouped or filtered to one unit (services/api/query/measures.ts).
  // ResultUnit is also a key of the statistics per unit (observation_value_stats); the other two only the rows hold.
  { name: 'ResultUnit', type: 'string', nullable: true, columns: { observations: 'ResultUnit', observation_value_stats: 'ResultUnit', location_summaries: 'ResultUnit', guideline_comparisons: 'ResultUnit', trends: 'ResultUnit' }, description: "Unit of ResultValue, e.g. mg/L (null on a non-detect); group by it to aggregate values of several units." },
  { name: 'ResultDetectionQuantitationLimitUnit', type: 'string', nullable: true, columns: { observations: 'ResultDetectionQuantitationLimitUnit' }, description: 'Unit of ResultDetectionQuantitationLimitMeasure.' },
  { name: 'ActivityDepthHeightUnit', type: 'string', nullable: true, columns: { observations: 'ActivityDepthHeightUnit' }, description: 'Unit of ActivityDepthHeightMeasure.' },
  { name: 'RegionId', type: 'string', columns: {}, membership: 'location_regions', description: "Region containing the location: admin.2.ca, admin.4.ca.<province>, hub.<name>. 'eq' means the location lies in the region, 'ne' that it does not." },
  { name: 'DatasetName', type: 'string', columns: { datasets: 'DatasetName' }, description: 'Name of the dataset.' },
  { name: 'CreateTimestamp', type: 'timestamp', nullable: true, columns: { datasets: 'CreateTimestamp' }, description: 'When the dataset was created; dates and date-times, quoted or not.' },
  { name: 'Latitude', type: 'number', columns: { locations: 'Latitude' }, description: 'Location latitude (bounding boxes with gt/lt).' },
  { name: 'Longitude', type: 'number', columns: { locations: 'Longitude' }, description: 'Location longitude (bounding boxes with gt/lt).' },
  { name: 'Name', type: 'string', columns: { locations: 'Name' }, description: 'Location name.' },
  // The location's coordinates as each observation carries them: OGC API – Features' observations filter by them
  // (its bbox), counted from the statistics joined to the locations. No OData resource lists them.
  { name: 'MonitoringLocationLatitude', type: 'number', columns: { locations: 'Latitude', observations: 'MonitoringLocationLatitude' }, description: "Latitude of the observation's location, in decimal degrees." },
  { name: 'MonitoringLocationLongitude', type: 'number', columns: { locations: 'Longitude', observations: 'MonitoringLocationLongitude' }, description: "Longitude of the observation's location, in decimal degrees." },
];

/**
 * Other spellings the public DataStream API accepts. Its OpenAPI names `ActivityStartDateYear`; its docs'
 * bounding-box example uses the `*Normalized` coordinates, which are ours as given (one reference system).
 */
export const dimensionAliases: Readonly<Record<string, string>> = {
  ActivityStartDateYear: 'ActivityStartYear',
  LatitudeNormalized: 'Latitude',
  LongitudeNormalized: 'Longitude',
};
