import { upstreamActivityGroups } from './upstream.js';

/**
 * ActivityType → ActivityGroupType, upstream's lookup (`lookup/ActivityType-ActivityGroupType.json` of the
 * DataStream schema, at the commit in `schemas/upstream/source.json`). The group is derived at ingest and stored;
 * a change of this table is a new storage schema version (schemas/storage.ts), so no file with old groups is served.
 */
export const activityGroupTypes: readonly string[] = Object.freeze([...upstreamActivityGroups.groups]);

/** The group of each ActivityType of the lookup. */
export const activityGroupOf: Readonly<Record<string, string>> = Object.freeze({ ...upstreamActivityGroups.byActivityType });

/** The ActivityGroupType of an ActivityType; types outside the lookup (legacy WQX values) are 'Other'. */
export function activityGroupFor(activityType: string): string {
  return Object.hasOwn(activityGroupOf, activityType) ? (activityGroupOf[activityType] as string) : 'Other';
}

/**
 * The groups of quality-control results: field and trip blanks, replicates, duplicates, spikes, calibration checks
 * (upstream's lookup puts every `Quality Control…` ActivityType and `Sample-Positive Control` in them). They tell how
 * good the sampling and the analysis were, not what the water holds: no guideline comparison, water quality index
 * or statistic of the water is computed from them; they stay in Observations and Records.
 */
export const qualityControlGroups: readonly string[] = Object.freeze(['Quality Control - Field Measure', 'Quality Control - Lab Sample']);

/** Whether a result of this ActivityType is a quality-control result, not an environmental one. */
export function isQualityControl(activityType: string): boolean {
  return qualityControlGroups.includes(activityGroupFor(activityType));
}

/** SQL: true when the stored ActivityGroupType in `groupColumn` is a quality-control group (upstream's names hold no quote). */
export function qualityControlSql(groupColumn: string): string {
  return `${groupColumn} IN (${qualityControlGroups.map((g) => `'${g}'`).join(', ')})`;
}
