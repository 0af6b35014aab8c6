/**
 * The collections OGC API – Features serves, each a view of an OData resource: the same fields, the same planner,
 * compiler and statistics. `observations` are Records (the upload schema's fields, the location's among them);
 * they filter by the location's coordinates as the Records name them (MonitoringLocationLatitude, …Longitude), which
 * is what their bbox becomes.
 */
import { getDimension, getResource, type DimensionDef, type ResourceDef } from '../../../schemas/index.js';

export type FeatureCollectionId = 'locations' | 'observations' | 'location-summaries' | 'guideline-comparisons' | 'water-quality-index' | 'trends';

export interface FeatureCollectionDef {
  readonly id: FeatureCollectionId;
  readonly title: string;
  readonly description: string;
  /** What the planner plans the items against. */
  readonly resource: ResourceDef;
  /** The OData resource that serves the same rows (an `alternate` link, the docs). */
  readonly odataResource: ResourceDef;
  /** The dimensions of the feature's point: what `Latitude` and `Longitude` of an envelope (bbox) mean here. */
  readonly point: { readonly latitude: string; readonly longitude: string };
  /** The date `datetime` filters on, when not ActivityStartDate (a summary's is its latest result's). */
  readonly datetime?: string;
}

const resource = (name: string): ResourceDef => {
  const r = getResource(name);
  if (!r) throw new Error(`no resource ${name}`);
  return r;
};

const records = resource('Records');

export const FEATURE_COLLECTIONS: readonly FeatureCollectionDef[] = [
  {
    id: 'locations',
    title: 'Monitoring locations',
    description: 'A point per monitoring location, with its dataset (DOI) and the Location fields of /v1/odata/v4/Locations. Filters on observation fields select the locations with at least one matching observation.',
    resource: resource('Locations'),
    odataResource: resource('Locations'),
    point: { latitude: 'Latitude', longitude: 'Longitude' },
  },
  {
    id: 'observations',
    title: 'Observations',
    description: "A point per observation at its location's coordinates, with the Records fields of /v1/odata/v4/Records (the DataStream upload schema).",
    resource: { ...records, filterable: [...records.filterable, 'MonitoringLocationLatitude', 'MonitoringLocationLongitude'] },
    odataResource: records,
    point: { latitude: 'MonitoringLocationLatitude', longitude: 'MonitoringLocationLongitude' },
  },
  // USGS's latest-continuous as one collection: `CharacteristicName=pH` is the latest pH (and its range) at every site.
  {
    id: 'location-summaries',
    title: 'Location summaries',
    description:
      "A point per location and CharacteristicName (with ResultSampleFraction, MethodSpeciation and ResultUnit) at the location's coordinates, " +
      'with the fields of /v1/odata/v4/LocationSummaries: counts (the censored among them), dates, how the statistics were computed (Method: exact, km or none), ' +
      "min, max, mean, median, P10 and P90 (each but the mean beside its qualifier: '<' below the number, '>' above it) and the latest result.",
    resource: resource('LocationSummaries'),
    odataResource: resource('LocationSummaries'),
    point: { latitude: 'Latitude', longitude: 'Longitude' },
    // "Sites measured since June": the latest result's date, as USGS's latest-continuous filters by its time.
    datetime: 'LatestDate',
  },
  {
    id: 'guideline-comparisons',
    title: 'Guideline comparisons',
    description:
      "A point per observation and applicable guideline at the location's coordinates, with the fields of /v1/odata/v4/GuidelineComparisons: " +
      'the bounds in the result\'s unit, the Verdict (exceeds, meets, indeterminate) and its Reason. Verdict=exceeds maps the exceedances.',
    resource: resource('GuidelineComparisons'),
    odataResource: resource('GuidelineComparisons'),
    point: { latitude: 'Latitude', longitude: 'Longitude' },
  },
  {
    id: 'water-quality-index',
    title: 'Water quality index',
    description:
      "A point per location, year and publisher at the location's coordinates, with the fields of /v1/odata/v4/WaterQualityIndex: " +
      'the CCME Water Quality Index, its factors and its Category, so a map of categories is one request (Year=2020).',
    resource: resource('WaterQualityIndex'),
    odataResource: resource('WaterQualityIndex'),
    point: { latitude: 'Latitude', longitude: 'Longitude' },
  },
  // A map of trend categories is one request (CharacteristicName=…&Period=10), and QGIS styles the layer by Category.
  {
    id: 'trends',
    title: 'Trends',
    description:
      "A point per location, series (CharacteristicName, ResultSampleFraction, MethodSpeciation, ResultUnit) and period at the location's coordinates, " +
      'with the fields of /v1/odata/v4/Trends: the Mann–Kendall or Seasonal Kendall test, the Sen slope, the Direction and its Category.',
    resource: resource('Trends'),
    odataResource: resource('Trends'),
    point: { latitude: 'Latitude', longitude: 'Longitude' },
  },
];

export function featureCollection(id: string): FeatureCollectionDef | undefined {
  return FEATURE_COLLECTIONS.find((c) => c.id === id);
}

/** The dimensions a collection filters by: its queryables and its field query parameters. */
export function queryableDimensions(collection: FeatureCollectionDef): DimensionDef[] {
  return collection.resource.filterable.map((name) => {
    const dim = getDimension(name, collection.resource);
    if (!dim) throw new Error(`no dimension ${name}`);
    return dim;
  });
}
