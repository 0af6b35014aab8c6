import activityMediaName from './vocabularies/ActivityMediaName.json' with { type: 'json' };
import activityType from './vocabularies/ActivityType.json' with { type: 'json' };
import characteristicName from './vocabularies/CharacteristicName.json' with { type: 'json' };
import measurementUnit from './vocabularies/MeasurementUnit.json' with { type: 'json' };
import methodSpeciation from './vocabularies/MethodSpeciation.json' with { type: 'json' };
import crs from './vocabularies/MonitoringLocationHorizontalCoordinateReferenceSystem.json' with { type: 'json' };
import monitoringLocationType from './vocabularies/MonitoringLocationType.json' with { type: 'json' };
import resultAnalyticalMethodContext from './vocabularies/ResultAnalyticalMethodContext.json' with { type: 'json' };
import resultDetectionCondition from './vocabularies/ResultDetectionCondition.json' with { type: 'json' };
import resultDetectionQuantitationLimitType from './vocabularies/ResultDetectionQuantitationLimitType.json' with { type: 'json' };
import resultSampleFraction from './vocabularies/ResultSampleFraction.json' with { type: 'json' };
import resultStatusID from './vocabularies/ResultStatusID.json' with { type: 'json' };
import resultValueType from './vocabularies/ResultValueType.json' with { type: 'json' };
import sampleCollectionEquipmentName from './vocabularies/SampleCollectionEquipmentName.json' with { type: 'json' };

/** The controlled vocabularies of the DataStream upload schema (sources: schemas/vocabularies/README.md). */
export type VocabularyName =
  | 'ActivityType'
  | 'ActivityMediaName'
  | 'CharacteristicName'
  | 'MonitoringLocationType'
  | 'MonitoringLocationHorizontalCoordinateReferenceSystem'
  | 'MeasurementUnit'
  | 'ResultValueType'
  | 'ResultDetectionCondition'
  | 'ResultDetectionQuantitationLimitType'
  | 'ResultStatusID'
  | 'ResultSampleFraction'
  | 'MethodSpeciation'
  | 'ResultAnalyticalMethodContext'
  | 'SampleCollectionEquipmentName';

export const vocabularies: Readonly<Record<VocabularyName, readonly string[]>> = Object.freeze({
  ActivityType: activityType,
  ActivityMediaName: activityMediaName,
  CharacteristicName: characteristicName,
  MonitoringLocationType: monitoringLocationType,
  MonitoringLocationHorizontalCoordinateReferenceSystem: crs,
  MeasurementUnit: measurementUnit,
  ResultValueType: resultValueType,
  ResultDetectionCondition: resultDetectionCondition,
  ResultDetectionQuantitationLimitType: resultDetectionQuantitationLimitType,
  ResultStatusID: resultStatusID,
  ResultSampleFraction: resultSampleFraction,
  MethodSpeciation: methodSpeciation,
  ResultAnalyticalMethodContext: resultAnalyticalMethodContext,
  SampleCollectionEquipmentName: sampleCollectionEquipmentName,
});

/**
 * Every upload column whose non-empty values must belong to a vocabulary. The units share DataStream's one
 * MeasurementUnit list. Columns not listed here are free text or typed (numbers, dates, times).
 */
export const vocabularyOfColumn: Readonly<Record<string, VocabularyName>> = Object.freeze({
  MonitoringLocationHorizontalCoordinateReferenceSystem: 'MonitoringLocationHorizontalCoordinateReferenceSystem',
  MonitoringLocationHorizontalAccuracyUnit: 'MeasurementUnit',
  MonitoringLocationVerticalUnit: 'MeasurementUnit',
  MonitoringLocationType: 'MonitoringLocationType',
  ActivityType: 'ActivityType',
  ActivityMediaName: 'ActivityMediaName',
  ActivityDepthHeightUnit: 'MeasurementUnit',
  SampleCollectionEquipmentName: 'SampleCollectionEquipmentName',
  CharacteristicName: 'CharacteristicName',
  MethodSpeciation: 'MethodSpeciation',
  ResultSampleFraction: 'ResultSampleFraction',
  ResultUnit: 'MeasurementUnit',
  ResultValueType: 'ResultValueType',
  ResultDetectionCondition: 'ResultDetectionCondition',
  ResultDetectionQuantitationLimitUnit: 'MeasurementUnit',
  ResultDetectionQuantitationLimitType: 'ResultDetectionQuantitationLimitType',
  ResultStatusID: 'ResultStatusID',
  ResultAnalyticalMethodContext: 'ResultAnalyticalMethodContext',
} satisfies Record<string, VocabularyName>);

const sets = new Map<VocabularyName, ReadonlySet<string>>();

/** Whether `value` belongs to the vocabulary (exact, case-sensitive match). Sets are built on first use. */
export function inVocabulary(name: VocabularyName, value: string): boolean {
  let set = sets.get(name);
  if (!set) {
    set = new Set(vocabularies[name]);
    sets.set(name, set);
  }
  return set.has(value);
}
