/**
 * One result as the published file stores it (the Observations columns the statistics and trends oracles read),
 * and the facts about stored rows both oracles share. Written from the specifications alone
 * (../shared/statistics/README.md §2, ../shared/trends/README.md §1), not from the production code: independence is
 * what makes them oracles.
 */
export interface StoredResult {
  readonly Id?: number;
  readonly LocationId?: number;
  readonly CharacteristicName: string;
  readonly ResultSampleFraction: string | null;
  readonly MethodSpeciation: string | null;
  readonly ResultValue: number | null;
  readonly ResultUnit: string | null;
  readonly ResultDetectionCondition: string | null;
  readonly ResultDetectionQuantitationLimitMeasure: number | null;
  readonly ResultDetectionQuantitationLimitUnit: string | null;
  readonly ActivityGroupType: string;
  readonly ActivityStartDate?: string;
  readonly ActivityStartTime?: string | null;
}

export const BELOW = 'Below Detection/Quantification Limit';
export const ABOVE = 'Above Detection/Quantification Limit';
export const NOT_DETECTED = 'Not Detected';

/**
 * Quality-control results describe the sampling and the laboratory, not the water (statistics §2.4, trends §1).
 * Upstream's lookup maps every `Quality Control…` ActivityType and `Sample-Positive Control` to these two groups,
 * and the group is what is stored.
 */
const QUALITY_CONTROL_GROUPS: ReadonlySet<string> = new Set(['Quality Control - Field Measure', 'Quality Control - Lab Sample']);

export function isQualityControl(row: Pick<StoredResult, 'ActivityGroupType'>): boolean {
  return QUALITY_CONTROL_GROUPS.has(row.ActivityGroupType);
}

/** A convenient way to write a test row: the fields a test does not care about take plain defaults. */
export function storedResult(fields: Partial<StoredResult>): StoredResult {
  return {
    CharacteristicName: 'Lead',
    ResultSampleFraction: null,
    MethodSpeciation: null,
    ResultValue: null,
    ResultUnit: null,
    ResultDetectionCondition: null,
    ResultDetectionQuantitationLimitMeasure: null,
    ResultDetectionQuantitationLimitUnit: null,
    ActivityGroupType: 'Lab Sample',
    ...fields,
  };
}
