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
 * The groups of quality-control results (blanks, replicates, calibration checks, positive controls: upstream's lookup
 * maps every `Quality Control…` ActivityType and `Sample-Positive Control` to these two). They test the sampling and
 * the lab, not the water, so statistics and trends leave them out.
 */
export const qualityControlGroups: readonly string[] = Object.freeze(['Quality Control - Field Measure', 'Quality Control - Lab Sample']);

/** Whether a result of this ActivityType is a quality-control result rather than an environmental one. */
export function isQualityControl(activityType: string): boolean {
  return qualityControlGroups.includes(activityGroupFor(activityType));
}
