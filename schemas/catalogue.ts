import type { DimensionDef, FieldDef, OwnTable, ResourceDef, ResourceName } from './field.js';
import { dimensionAliases, dimensions } from './dimensions.js';
import { locationFields } from './location-fields.js';
import { guidelineComparisonFields } from './guideline-comparison-fields.js';
import { guidelineFields } from './guideline-fields.js';
import { locationSummaryFields } from './location-summary-fields.js';
import { waterQualityIndexFields } from './water-quality-index-fields.js';
import { metadataFields } from './metadata-fields.js';
import { observationFields } from './observation-fields.js';
import { recordFields } from './record-fields.js';
import { trendFields } from './trend-fields.js';

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

const sharedDimension = new Map(dimensions.map((d) => [d.name, d]));

/** What `$filter` cannot compare (coerce in the planner refuses them): lists and times of day. */
const comparable = (f: FieldDef) => f.type !== 'string[]' && f.type !== 'date[]' && f.type !== 'integer[]' && f.type !== 'time';

/**
 * A resource on a table of its own (`ownTables`): every comparable field is filterable, under the shared dimension
 * of its name (which must list this table's column: schemas/catalogue.test.ts) or a dimension of its own; with a
 * LocationId, also its location's fields (type, coordinates, regions), read from `locations` by that Id.
 */
function ownResource(
  def: Omit<ResourceDef, 'key' | 'filterable' | 'ownDimensions'> & {
    readonly table: OwnTable;
    /** Shared dimensions the table stores beside its fields (filter-only columns, e.g. the observation's medium). */
    readonly stored?: readonly string[];
  },
): ResourceDef {
  const { stored = [], ...rest } = def;
  const fields = def.fields.filter((f) => f.selectable && comparable(f));
  const ownDimensions = fields
    .filter((f) => !sharedDimension.has(f.name))
    .map((f): DimensionDef => ({ name: f.name, type: f.type, columns: { [def.table]: f.column }, ...(f.nullable ? { nullable: true } : {}), description: f.description }));
  const located = def.fields.some((f) => f.name === 'LocationId');
  const ofLocation = located ? ['MonitoringLocationType', 'RegionId', 'Latitude', 'Longitude'] : [];
  return { ...rest, key: 'Id', filterable: [...fields.map((f) => f.name), ...stored, ...ofLocation], ownDimensions };
}

/** The resources of `/v1/odata/v4`, in the order the service document lists them. */
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
  ownResource({
    name: 'LocationSummaries', entityType: 'LocationSummary', table: 'location_summaries', fields: locationSummaryFields,
    description:
      'One row per location, CharacteristicName, ResultSampleFraction, MethodSpeciation and ResultUnit: counts, first and last dates, ' +
      'min, max, mean, exact median, P10 and P90 of ResultValue, and the latest result. Filters on the location (MonitoringLocationType, RegionId) select the rows of matching locations.',
  }),
  ownResource({
    name: 'Guidelines', entityType: 'Guideline', table: 'guidelines', fields: guidelineFields,
    description:
      "Water-quality guidelines as data: DataStream's guideline summary (gordonfn/guidelines, MIT), one row per guideline with its publisher, " +
      'jurisdictions, media, ecosystem, protection level, expression as published, unit, inputs, source and any reviewed correction.',
  }),
  ownResource({
    name: 'GuidelineComparisons', entityType: 'GuidelineComparison', table: 'guideline_comparisons', fields: guidelineComparisonFields,
    stored: ['ActivityMediaName', 'ActivityGroupType'],
    description:
      'One row per observation and applicable guideline: the bounds in the result\'s unit, the Verdict (exceeds, meets, indeterminate), ' +
      'the Reason when it is not a plain comparison and the Inputs used. Filterable by every field and by the location\'s (MonitoringLocationType, RegionId).',
  }),
  ownResource({
    name: 'WaterQualityIndex', entityType: 'WaterQualityIndexRow', table: 'water_quality_index', fields: waterQualityIndexFields,
    description:
      'The CCME Water Quality Index (CCME 2001, calculator 1.0) per location, calendar year and publisher, from the long-term comparisons: ' +
      'F1 scope, F2 frequency, F3 amplitude, the index and its category, or the Reason there is none.',
  }),
  ownResource({
    name: 'Trends', entityType: 'Trend', table: 'trends', fields: trendFields,
    description:
      'Is it getting better or worse? One row per location, CharacteristicName, ResultSampleFraction, MethodSpeciation, ResultUnit and period ' +
      '(5, 10 and 15 years to the end year): coverage, Mann–Kendall or Seasonal Kendall test with censored values, Sen slope with its 90 % interval, ' +
      "direction and LAWA's category (LWP-Trends 2502), or the Reason there is none. Filters on the location (MonitoringLocationType, RegionId) select the rows of matching locations.",
  }),
];

const byName = new Map(resources.map((r) => [r.name, r]));
const dimensionByName = new Map(dimensions.map((d) => [d.name, d]));

export function getResource(name: string): ResourceDef | undefined {
  return byName.get(name as ResourceName);
}

/** A dimension by its name or an accepted alias; the resource's own dimensions first, when given one. */
export function getDimension(name: string, resource?: ResourceDef): DimensionDef | undefined {
  const own = resource?.ownDimensions?.find((d) => d.name === name);
  return own ?? dimensionByName.get(Object.hasOwn(dimensionAliases, name) ? dimensionAliases[name]! : name);
}

/** The filter names a resource accepts, aliases included, for error messages and documentation. */
export function filterNames(resource: ResourceDef): string[] {
  const aliases = Object.entries(dimensionAliases)
    .filter(([, target]) => resource.filterable.includes(target))
    .map(([alias]) => alias);
  return [...resource.filterable, ...aliases];
}
