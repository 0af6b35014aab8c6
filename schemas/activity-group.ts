/**
 * ActivityType → ActivityGroupType, as data. DataStream schema v3 replaced the WQX activity groups with its own
 * seven and publishes the mapping as `lookup/ActivityType-ActivityGroupType.json` (CHANGELOG, v3 "Breaking").
 * That file is not in our reference copy, so the table below assigns the 35 v3 ActivityTypes
 * (`subset/ActivityType.json`) by their documented meaning: loggers and continuous time series are Continuous
 * Data; other `Field Msr/Obs*` are Field Measure; `Sample-*` are Lab Sample; QC of field readings is
 * Quality Control - Field Measure; QC samples (and positive controls) are Quality Control - Lab Sample.
 * Check it against the upstream lookup when that file is available.
 */
export const activityGroupTypes: readonly string[] = Object.freeze([
  'Continuous Data',
  'Field Measure',
  'Lab Sample',
  'Quality Control - Field Measure',
  'Quality Control - Lab Sample',
  'Other',
  'Unspecified',
]);

const groups: Readonly<Record<string, readonly string[]>> = {
  'Continuous Data': ['Field Msr/Obs-Continuous Time Series', 'Field Msr/Obs-Portable Data Logger'],
  'Field Measure': [
    'Field Msr/Obs',
    'Field Msr/Obs-Integrated Flow Proportioned',
    'Field Msr/Obs-Integrated Time Series',
    'Field Msr/Obs-Integrated Vertical Profile',
  ],
  'Lab Sample': [
    'Sample-Composite With Parents',
    'Sample-Composite Without Parents',
    'Sample-Field Split',
    'Sample-Integrated Flow Proportioned',
    'Sample-Integrated Horizontal and Vertical Composite Profile',
    'Sample-Integrated Horizontal Profile',
    'Sample-Integrated Time Series',
    'Sample-Integrated Vertical Profile',
    'Sample-Routine',
  ],
  'Quality Control - Field Measure': [
    'Quality Control Field Replicate Msr/Obs',
    'Quality Control Field Replicate Portable Data Logger',
    'Quality Control-Calibration Check',
  ],
  'Quality Control - Lab Sample': [
    'Quality Control Field Sample Equipment Rinsate Blank',
    'Quality Control Sample-Blind Duplicate',
    'Quality Control Sample-Field Blank',
    'Quality Control Sample-Field Replicate',
    'Quality Control Sample-Lab Blank',
    'Quality Control Sample-Lab Duplicate',
    'Quality Control Sample-Lab Matrix Spike',
    'Quality Control Sample-Lab Re-Analysis',
    'Quality Control Sample-Lab Spike',
    'Quality Control Sample-Lab Split',
    'Quality Control Sample-Lab Surrogate Control Standard',
    'Quality Control Sample-Lab Surrogate Control Standard Duplicate',
    'Quality Control Sample-Reference Sample',
    'Quality Control Sample-Trip Blank',
    'Sample-Positive Control',
  ],
  Other: ['Sample-Other'],
  Unspecified: ['Unspecified'],
};

/** The group of each known ActivityType (35 entries). */
export const activityGroupOf: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(groups).flatMap(([group, types]) => types.map((t) => [t, group]))),
);

/** The ActivityGroupType of an ActivityType; types outside the lookup (legacy WQX values) are 'Other'. */
export function activityGroupFor(activityType: string): string {
  return Object.hasOwn(activityGroupOf, activityType) ? (activityGroupOf[activityType] as string) : 'Other';
}
