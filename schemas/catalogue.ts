import type { DimensionDef, ResourceDef, ResourceName } from './field.js';
import { dimensionAliases, dimensions } from './dimensions.js';
import { locationFields } from './location-fields.js';
import { metadataFields } from './metadata-fields.js';
import { observationFields } from './observation-fields.js';
import { recordFields } from './record-fields.js';

/**
 * Every resource accepts every observation filter (on a coarser one meaning "has a matching observation"): the
 * clients' partition pattern sends the user's `$filter` to `/Locations` before `LocationId eq N and …`.
 */
const observationFilters = [
  'DOI', 'LocationId', 'ActivityMediaName', 'ActivityGroupType', 'CharacteristicName', 'MonitoringLocationType', 'ActivityStartYear', 'RegionId',
  'ResultValue', 'ActivityStartDate', 'ResultUnit',
] as const;

/** The units of the other measures an `$apply` aggregates: Observations and Records filter by them too. */
const measureUnits = ['ResultDetectionQuantitationLimitUnit', 'ActivityDepthHeightUnit'] as const;

/** The four resources of `/v1/odata/v4`, in the order the service document lists them. */
export const resources: readonly ResourceDef[] = [
  {
    name: 'Metadata', entityType: 'Dataset', table: 'datasets', key: 'Id', fields: metadataFields,
    filterable: [...observationFilters, 'DatasetName', 'CreateTimestamp', 'Latitude', 'Longitude'],
    description: 'Dataset-level metadata: citation, licence, DOI, temporal extent.',
  },
  {
    name: 'Locations', entityType: 'Location', table: 'locations', key: 'Id', fields: locationFields,
    filterable: [...observationFilters, 'Name', 'Latitude', 'Longitude'],
    description: 'Monitoring locations. Filters on observation fields select locations with at least one matching observation.',
  },
  {
    name: 'Observations', entityType: 'Observation', table: 'observations', key: 'Id', fields: observationFields,
    filterable: [...observationFilters, ...measureUnits],
    description: 'Observations, one row per measured value.',
  },
  {
    name: 'Records', entityType: 'Record', table: 'observations', key: 'Id', fields: recordFields,
    filterable: [...observationFilters, ...measureUnits],
    description: 'Observations with their dataset and location columns, in the DataStream upload schema: the extract format.',
  },
];

const byName = new Map(resources.map((r) => [r.name, r]));
const dimensionByName = new Map(dimensions.map((d) => [d.name, d]));

export function getResource(name: string): ResourceDef | undefined {
  return byName.get(name as ResourceName);
}

/** A dimension by its name or an accepted alias. */
export function getDimension(name: string): DimensionDef | undefined {
  return dimensionByName.get(Object.hasOwn(dimensionAliases, name) ? dimensionAliases[name]! : name);
}

/** The filter names a resource accepts, aliases included, for error messages and documentation. */
export function filterNames(resource: ResourceDef): string[] {
  const aliases = Object.entries(dimensionAliases)
    .filter(([, target]) => resource.filterable.includes(target))
    .map(([alias]) => alias);
  return [...resource.filterable, ...aliases];
}
