import { storedUploadColumns } from '../../schemas/record-fields.js';
import type { Profile } from './characteristics.js';
import { csvField } from './csv.js';
import type { DatasetSpec } from './datasets.js';
import type { LocationPlan } from './plan.js';

/**
 * A row is the fixed text of its series (location × characteristic) with per-row values spliced in. The
 * variable columns are the same for every series; their values are pre-escaped strings written to `values`.
 */
export const variableColumns = [
  'ActivityType', 'ActivityStartDate', 'ActivityStartTime', 'ResultValue', 'ResultUnit', 'ResultDetectionCondition',
  'ResultDetectionQuantitationLimitMeasure', 'ResultDetectionQuantitationLimitUnit', 'ResultDetectionQuantitationLimitType',
  'ResultComment', 'AnalysisStartDate', 'LaboratorySampleID',
] as const;

export const V = Object.fromEntries(variableColumns.map((c, i) => [c, i])) as Record<(typeof variableColumns)[number], number>;

export interface RowTemplate {
  /** Fixed text between variable values: segments.length = slots.length + 1; the last ends with '\n'. */
  readonly segments: readonly string[];
  /** Index into the values array for each gap. */
  readonly slots: readonly number[];
}

export const uploadColumnNames: readonly string[] = storedUploadColumns.map((f) => f.name);

/** The fixed columns of one series. Nulls stay empty cells, as in real exports. */
function fixedValues(spec: DatasetSpec, location: LocationPlan, profile: Profile, laboratory: string): Record<string, string | null> {
  const lab = spec.kind === 'lab';
  const lake = location.type !== 'River/Stream';
  const secchi = profile.name === 'Depth, Secchi disk depth';
  // A depth is the water's: none for the Secchi disk's own reading, nor for what is measured in the air.
  const depth = lake && !lab && !secchi && profile.media === undefined;
  return {
    DatasetName: spec.name,
    MonitoringLocationID: location.id,
    MonitoringLocationName: location.name,
    MonitoringLocationLatitude: location.latitude,
    MonitoringLocationLongitude: location.longitude,
    MonitoringLocationHorizontalCoordinateReferenceSystem: spec.crs,
    MonitoringLocationHorizontalAccuracyMeasure: spec.crs === 'WGS84' ? '5' : null,
    MonitoringLocationHorizontalAccuracyUnit: spec.crs === 'WGS84' ? 'm' : null,
    // Schema 3.0.0 asks an elevation for its collection method and vertical datum, fields it allows with
    // groundwater only (rules dependencies-MonitoringLocationVerticalMeasure, GroundwaterFields-…): surface-water
    // sites carry none.
    MonitoringLocationVerticalMeasure: null,
    MonitoringLocationVerticalUnit: null,
    MonitoringLocationType: location.type,
    ActivityMediaName: profile.media ?? 'Surface Water',
    ActivityStartTimeZone: spec.timeZone,
    ActivityDepthHeightMeasure: depth ? (spec.kind === 'continuous' ? '-1.0' : '-0.5') : null,
    ActivityDepthHeightUnit: depth ? 'm' : null,
    SampleCollectionEquipmentName: lab ? 'Water Bottle' : secchi ? 'Secchi Disk' : profile.methodName === 'ELISA' ? 'Test strip' : 'Probe/Sensor',
    CharacteristicName: profile.name,
    MethodSpeciation: profile.speciation ?? null,
    ResultSampleFraction: profile.fraction ?? null,
    ResultValueType: 'Actual',
    // Schema 3.0.0 deprecates 'Accepted' and 'Final' (rule ResultStatusID-Deprecated).
    ResultStatusID: spec.kind === 'continuous' ? 'Provisional' : 'Validated',
    ResultAnalyticalMethodID: profile.methodId ?? null,
    ResultAnalyticalMethodContext: profile.methodContext ?? null,
    ResultAnalyticalMethodName: profile.methodName ?? (spec.kind === 'continuous' ? 'Temperature/DO logger, 15-minute interval' : 'Multiparameter meter'),
    LaboratoryName: lab ? laboratory : null,
  };
}

/** Splits the row of a series into fixed segments and variable slots, in the dataset's column order. */
export function buildTemplate(columns: readonly string[], spec: DatasetSpec, location: LocationPlan, profile: Profile, laboratory: string): RowTemplate {
  const fixed = fixedValues(spec, location, profile, laboratory);
  const segments: string[] = [];
  const slots: number[] = [];
  let current = '';
  columns.forEach((column, i) => {
    if (i > 0) current += ',';
    const slot = (V as Record<string, number>)[column];
    if (slot === undefined) {
      current += csvField(fixed[column] ?? null);
    } else {
      segments.push(current);
      slots.push(slot);
      current = '';
    }
  });
  segments.push(`${current}\n`);
  return { segments, slots };
}
