import type { ApplyDoor, CitationDoor, CountDoor, DimensionDef, FieldDef, OgcDoor, OwnTable, PagesDoor, ResourceDef, ResourceName } from './field.js';
import type { DownloadFormat } from './publication-files.js';
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

/** The counts of the observations' rows: the smallest table holding every dimension answers (services/api/query/count-sources.ts). */
const observationCounts: CountDoor = { statistics: ['observation_rollup', 'observation_region_rollup', 'observation_stats'] };

/**
 * `$apply` on the observations: grouped by the dimensions the statistics tables hold and the measures' units; counts
 * from the `$count` door's tables, ResultValue's sums, extremes, means and non-detects from the statistics per unit,
 * every other method by a scan of the rows.
 */
const observationApply: ApplyDoor = {
  groupBy: [
    'CharacteristicName', 'ActivityStartYear', 'ActivityMediaName', 'ActivityGroupType', 'MonitoringLocationType', 'DOI', 'LocationId', 'RegionId',
    'ResultUnit', 'ResultDetectionQuantitationLimitUnit', 'ActivityDepthHeightUnit',
  ],
  measures: [
    { field: 'ResultValue', unit: 'ResultUnit' },
    { field: 'ResultDetectionQuantitationLimitMeasure', unit: 'ResultDetectionQuantitationLimitUnit' },
    { field: 'ActivityDepthHeightMeasure', unit: 'ActivityDepthHeightUnit' },
    // First and last dates: min and max; countdistinct counts the days sampled.
    { field: 'ActivityStartDate' },
  ],
  distinct: ['LocationId', 'DOI', 'CharacteristicName', 'ActivityStartYear', 'ActivityMediaName', 'ActivityGroupType', 'MonitoringLocationType', 'ResultUnit'],
  statistics: [{ table: 'observation_value_stats', measure: 'ResultValue', methods: ['sum', 'min', 'max', 'average', 'Tributary.countnull'] }],
};

/** The one large table: stored in Id order, a region filter walked as Id ranges, text pages continued by cursors. */
const observationPages: PagesDoor = { order: 'stored', regionRanges: true, cursors: true, ids: 'dense' };

/** A row per dataset or location: small tables, sorted per page. */
const smallPages = (ids: PagesDoor['ids']): PagesDoor => ({ order: 'sorted', regionRanges: false, cursors: false, ids });

/** What a table of its own must decide; the rest follows from its kind (`ownResource`). */
interface OwnResourceDecl {
  readonly name: ResourceName;
  readonly entityType: string;
  readonly table: OwnTable;
  readonly fields: readonly FieldDef[];
  readonly description: string;
  /** Shared dimensions the table stores beside its fields (filter-only columns, e.g. the observation's medium). */
  readonly stored?: readonly string[];
  readonly apply: ApplyDoor | 'none';
  readonly ogc: OgcDoor | 'none';
  /** Its statistics tables, smallest first; none by default (counted over itself). */
  readonly count?: CountDoor;
  /** The guidelines its rows rest on, for its citation; none by default. */
  readonly guidelines?: CitationDoor['guidelines'];
  readonly files?: readonly DownloadFormat[];
}

/**
 * A resource on a table of its own (`ownTables`): every comparable field is filterable, under the shared dimension
 * of its name (which must list this table's column: schemas/catalogue.test.ts) or a dimension of its own; with a
 * LocationId, also its location's fields (type, coordinates, regions), read from `locations` by that Id. Its pages
 * scan it in stored Id order (its Ids have gaps), it is exported, cited by the datasets of its DOI column when it has
 * one, and offered to assistants.
 */
function ownResource(def: OwnResourceDecl): ResourceDef {
  const { stored = [], count = { statistics: [] }, guidelines = 'none', files = [], ...rest } = def;
  const fields = def.fields.filter((f) => f.selectable && comparable(f));
  const ownDimensions = fields
    .filter((f) => !sharedDimension.has(f.name))
    .map((f): DimensionDef => ({ name: f.name, type: f.type, columns: { [def.table]: f.column }, ...(f.nullable ? { nullable: true } : {}), description: f.description }));
  const located = def.fields.some((f) => f.name === 'LocationId');
  const ofLocation = located ? LOCATION_OF_ROW : [];
  return {
    ...rest,
    kind: 'own-table',
    key: 'Id',
    filterable: [...fields.map((f) => f.name), ...stored, ...ofLocation],
    ownDimensions,
    pages: { order: 'stored', regionRanges: false, cursors: false, ids: 'sparse' },
    count,
    export: true,
    citation: { datasets: def.fields.some((f) => f.name === 'DOI'), guidelines },
    mcp: true,
    files,
  };
}

/** The location's fields a row with a LocationId filters by (read from `locations` by that Id). */
const LOCATION_OF_ROW = ['MonitoringLocationType', 'RegionId', 'Latitude', 'Longitude'];
/** The location's dimensions a row with a LocationId groups by. */
const GROUPS_OF_LOCATION = ['MonitoringLocationType', 'RegionId'];

/** The resources of `/v1/odata/v4`, in the order the service document lists them. */
export const resources: readonly ResourceDef[] = [
  {
    name: 'Metadata', kind: 'datasets', entityType: 'Dataset', table: 'datasets', key: 'Id', fields: metadataFields,
    filterable: [...observationFilters, 'DatasetName', 'CreateTimestamp', 'Latitude', 'Longitude'],
    description: 'Dataset-level metadata: citation, licence, DOI, temporal extent.',
    pages: smallPages('uuid'), count: { statistics: [] }, apply: 'none', export: false, ogc: 'none',
    citation: { datasets: true, guidelines: 'none' }, mcp: true, files: [],
  },
  {
    name: 'Locations', kind: 'locations', entityType: 'Location', table: 'locations', key: 'Id', fields: locationFields,
    filterable: [...observationFilters, 'Name', 'Latitude', 'Longitude'],
    description: 'Monitoring locations. Filters on observation fields select locations with at least one matching observation.',
    // A filter held by the statistics alone counts their distinct locations (services/api/query/compile-count.ts).
    pages: smallPages('dense'), count: { statistics: ['observation_stats'] }, apply: 'none', export: false,
    ogc: {
      id: 'locations',
      title: 'Monitoring locations',
      description: 'A point per monitoring location, with its dataset (DOI) and the Location fields of /v1/odata/v4/Locations. Filters on observation fields select the locations with at least one matching observation.',
      point: { latitude: 'Latitude', longitude: 'Longitude' },
    },
    citation: { datasets: true, guidelines: 'none' }, mcp: true, files: [],
  },
  {
    name: 'Observations', kind: 'observations', entityType: 'Observation', table: 'observations', key: 'Id', fields: observationFields,
    filterable: [...observationFilters, ...measureUnits],
    description: 'Observations, one row per measured value.',
    pages: observationPages, count: observationCounts, apply: observationApply, export: true, ogc: 'none',
    citation: { datasets: true, guidelines: 'none' }, mcp: true, files: [],
  },
  {
    name: 'Records', kind: 'observations', entityType: 'Record', table: 'observations', key: 'Id', fields: recordFields,
    filterable: [...observationFilters, ...measureUnits],
    description: 'Observations with their dataset and location columns, in the DataStream upload schema: the extract format.',
    pages: observationPages, count: observationCounts, apply: observationApply, export: true,
    ogc: {
      id: 'observations',
      title: 'Observations',
      description: "A point per observation at its location's coordinates, with the Records fields of /v1/odata/v4/Records (the DataStream upload schema).",
      // The location's coordinates as each observation carries them: what the collection's bbox becomes.
      point: { latitude: 'MonitoringLocationLatitude', longitude: 'MonitoringLocationLongitude' },
      filterable: ['MonitoringLocationLatitude', 'MonitoringLocationLongitude'],
    },
    citation: { datasets: true, guidelines: 'none' }, mcp: true, files: ['parquet', 'csv'],
  },
  ownResource({
    name: 'LocationSummaries', entityType: 'LocationSummary', table: 'location_summaries', fields: locationSummaryFields,
    description:
      'One row per location, CharacteristicName, ResultSampleFraction, MethodSpeciation and unit (a non-detect without ResultUnit in its limit\'s unit): ' +
      'counts (the censored and unusable among them), first and last dates, min, max, mean, median, P10 and P90 with non-detects counted ' +
      "(Kaplan–Meier where results are censored; each but the mean beside its qualifier: '<' below the number, '>' above it; Method and MethodReason say how), " +
      'and the latest result; quality-control results left out. Filters on the location (MonitoringLocationType, RegionId) select the rows of matching locations.',
    apply: {
      groupBy: ['DOI', 'LocationId', 'CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultUnit', 'Method', 'LatestDetectionCondition', ...GROUPS_OF_LOCATION],
      // The summaries' own counts add up; their extremes bound; dates are first and last.
      measures: [
        { field: 'Count' }, { field: 'NonDetects' }, { field: 'LeftCensored' }, { field: 'RightCensored' }, { field: 'Unusable' },
        { field: 'Min', unit: 'ResultUnit' }, { field: 'Max', unit: 'ResultUnit' }, { field: 'FirstDate' }, { field: 'LastDate' }, { field: 'LatestDate' },
      ],
      distinct: ['DOI', 'LocationId', 'CharacteristicName', 'ResultUnit'],
      statistics: [],
    },
    // USGS's latest-continuous as one collection: `CharacteristicName=pH` is the latest pH (and its range) at every site.
    ogc: {
      id: 'location-summaries',
      title: 'Location summaries',
      description:
        "A point per location and CharacteristicName (with ResultSampleFraction, MethodSpeciation and ResultUnit) at the location's coordinates, " +
        'with the fields of /v1/odata/v4/LocationSummaries: counts (the censored among them), dates, how the statistics were computed (Method: exact, km or none), ' +
        "min, max, mean, median, P10 and P90 (each but the mean beside its qualifier: '<' below the number, '>' above it) and the latest result.",
      point: { latitude: 'Latitude', longitude: 'Longitude' },
      // "Sites measured since June": the latest result's date, as USGS's latest-continuous filters by its time.
      datetime: 'LatestDate',
    },
  }),
  ownResource({
    name: 'Guidelines', entityType: 'Guideline', table: 'guidelines', fields: guidelineFields,
    description:
      "Water-quality guidelines as data: DataStream's guideline summary (gordonfn/guidelines, MIT), one row per guideline with its publisher, " +
      'jurisdictions, media, ecosystem, protection level, expression as published, unit, inputs, source and any reviewed correction.',
    apply: {
      groupBy: ['CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'Publisher', 'MediaName', 'Ecosystem', 'ProtectionLevel', 'Status', 'Bound', 'Unit'],
      measures: [],
      distinct: ['CharacteristicName', 'Publisher'],
      statistics: [],
    },
    ogc: 'none',
    guidelines: 'row',
  }),
  ownResource({
    name: 'GuidelineComparisons', entityType: 'GuidelineComparison', table: 'guideline_comparisons', fields: guidelineComparisonFields,
    stored: ['ActivityMediaName', 'ActivityGroupType'],
    description:
      'One row per observation and applicable guideline: the bounds in the result\'s unit, the Verdict (exceeds, meets, indeterminate), ' +
      'the Reason when it is not a plain comparison and the Inputs used. Governing marks the one comparison per result, publisher and Term that decides its verdict ' +
      '(the others it stands among are named in Alternatives): filter Governing eq true to count each result once. ' +
      'Filterable by every field and by the location\'s (MonitoringLocationType, RegionId).',
    count: { statistics: ['guideline_comparison_totals', 'guideline_comparison_stats'] },
    apply: {
      groupBy: [
        'DOI', 'LocationId', 'GuidelineId', 'ActivityStartYear', 'CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultUnit',
        'ResultDetectionCondition', 'Publisher', 'ProtectionLevel', 'Term', 'Governing', 'Verdict', 'ActivityMediaName', 'ActivityGroupType', ...GROUPS_OF_LOCATION,
      ],
      measures: [{ field: 'ResultValue', unit: 'ResultUnit' }, { field: 'GuidelineLower', unit: 'ResultUnit' }, { field: 'GuidelineUpper', unit: 'ResultUnit' }, { field: 'ActivityStartDate' }],
      // "Observations that exceed a guideline": a comparison per guideline, so the observations are counted distinctly.
      distinct: ['ObservationId', 'GuidelineId', 'DOI', 'LocationId', 'CharacteristicName', 'ActivityStartYear'],
      statistics: [],
    },
    ogc: {
      id: 'guideline-comparisons',
      title: 'Guideline comparisons',
      description:
        "A point per observation and applicable guideline at the location's coordinates, with the fields of /v1/odata/v4/GuidelineComparisons: " +
        'the bounds in the result\'s unit, the Verdict (exceeds, meets, indeterminate) and its Reason. Verdict=exceeds maps the exceedances.',
      point: { latitude: 'Latitude', longitude: 'Longitude' },
    },
    guidelines: { column: 'GuidelineId' },
    files: ['comparisons-parquet'],
  }),
  ownResource({
    name: 'WaterQualityIndex', entityType: 'WaterQualityIndexRow', table: 'water_quality_index', fields: waterQualityIndexFields,
    description:
      'The CCME Water Quality Index (CCME 2001, calculator 1.0) per location, calendar year and publisher, from the long-term comparisons: ' +
      'F1 scope, F2 frequency, F3 amplitude, the index and its category, or the Reason there is none.',
    apply: {
      groupBy: ['DOI', 'LocationId', 'Year', 'Publisher', 'Category', ...GROUPS_OF_LOCATION],
      measures: [{ field: 'WQI' }, { field: 'F1' }, { field: 'F2' }, { field: 'F3' }, { field: 'Variables' }, { field: 'Tests' }, { field: 'FailedTests' }],
      distinct: ['DOI', 'LocationId', 'Year', 'Publisher'],
      statistics: [],
    },
    ogc: {
      id: 'water-quality-index',
      title: 'Water quality index',
      description:
        "A point per location, year and publisher at the location's coordinates, with the fields of /v1/odata/v4/WaterQualityIndex: " +
        'the CCME Water Quality Index, its factors and its Category, so a map of categories is one request (Year=2020).',
      point: { latitude: 'Latitude', longitude: 'Longitude' },
    },
  }),
  ownResource({
    name: 'Trends', entityType: 'Trend', table: 'trends', fields: trendFields,
    description:
      'Is it getting better or worse? One row per location, CharacteristicName, ResultSampleFraction, MethodSpeciation, ResultUnit and period ' +
      '(5, 10 and 15 years to the end year): coverage, Mann–Kendall or Seasonal Kendall test with censored values, Sen slope with its 90 % interval, ' +
      "direction and LAWA's category (LWP-Trends 2502), or the Reason there is none. Filters on the location (MonitoringLocationType, RegionId) select the rows of matching locations.",
    // A region's picture: groupby((Category),aggregate($count as Sites)), by period and characteristic.
    apply: {
      groupBy: [
        'DOI', 'LocationId', 'CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultUnit', 'Period', 'StartYear', 'EndYear',
        'TimeIncrement', 'Seasonal', 'Season', 'AnalysisNote', 'Direction', 'ImprovesWhen', 'Category', 'Reason', ...GROUPS_OF_LOCATION,
      ],
      measures: [
        { field: 'SenSlope', unit: 'ResultUnit' }, { field: 'PercentAnnualChange' }, { field: 'Median', unit: 'ResultUnit' },
        { field: 'Observations' }, { field: 'N' }, { field: 'NCensored' }, { field: 'Years' }, { field: 'C' }, { field: 'Cd' }, { field: 'P' },
      ],
      distinct: ['DOI', 'LocationId', 'CharacteristicName'],
      statistics: [],
    },
    // A map of trend categories is one request (CharacteristicName=…&Period=10), and QGIS styles the layer by Category.
    ogc: {
      id: 'trends',
      title: 'Trends',
      description:
        "A point per location, series (CharacteristicName, ResultSampleFraction, MethodSpeciation, ResultUnit) and period at the location's coordinates, " +
        'with the fields of /v1/odata/v4/Trends: the Mann–Kendall or Seasonal Kendall test, the Sen slope, the Direction and its Category.',
      point: { latitude: 'Latitude', longitude: 'Longitude' },
    },
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
