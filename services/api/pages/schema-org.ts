/**
 * The JSON-LD a landing page embeds: schema.org `Dataset` on a dataset's page (what Google Dataset Search reads),
 * and on a location's page the Geoconnex location-oriented shape: a `Place` typed as a HY_Features hydrometric
 * feature and hydro location, with `geo`, a GeoSPARQL point, `variableMeasured` and `subjectOf` its dataset
 * (docs.geoconnex.us, "Location-oriented"). The context is inline (`@vocab` schema.org plus the prefixes used),
 * so a harvester needs no remote context. A dataset's node is named by its DOI's https://doi.org/ IRI everywhere,
 * so a location's `subjectOf`, the page and the DCAT catalogue describe one resource.
 */
import { DOWNLOAD_FILE_TYPE } from '../../../schemas/publication-files.js';
import { EXPORT_FORMATS } from '../export-formats.js';
import type { Characteristic, DatasetSummary, LocationDetail } from '../exec/landing.js';
import { doiUrl } from '../http/links.js';
import { PATHS } from '../http/paths.js';
import { licenceUrl } from '../citation/licence-url.js';
import { datasetFiles, datasetPagePath, locationPagePath } from './page-links.js';

export const HYF = 'https://www.opengis.net/def/schema/hy_features/hyf/';
const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

/** Terms whose string values are IRIs, as schema.org's own context declares them: without it they would be text. */
const iriTerm = (term: string) => ({ '@id': `https://schema.org/${term}`, '@type': '@id' });

export const SCHEMA_ORG_CONTEXT = {
  '@vocab': 'https://schema.org/',
  url: iriTerm('url'),
  sameAs: iriTerm('sameAs'),
  license: iriTerm('license'),
  contentUrl: iriTerm('contentUrl'),
  hyf: HYF,
  gsp: 'http://www.opengis.net/ont/geosparql#',
  sf: 'http://www.opengis.net/ont/sf#',
} as const;

type Json = Record<string, unknown>;

const organisation = (name: string | null): Json | undefined => (name ? { '@type': 'Organization', name } : undefined);
const compact = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0)));

function licence(text: string | null): unknown {
  const url = licenceUrl(text);
  return url ?? (text ? { '@type': 'CreativeWork', name: text } : undefined);
}

const variables = (chars: readonly Characteristic[]) =>
  chars.map((c) => ({ '@type': 'PropertyValue', name: c.name, description: `${c.name}: ${c.count} observation${c.count === 1 ? '' : 's'}` }));

/** A dataset as schema.org describes it; `withDetail` adds what only its own page carries (coverage, files). */
export function datasetNode(base: string, d: DatasetSummary): Json {
  const box = d.bbox;
  return compact({
    '@type': 'Dataset',
    '@id': doiUrl(d.doi),
    url: `${base}${datasetPagePath(d.doi)}`,
    sameAs: doiUrl(d.doi),
    identifier: { '@type': 'PropertyValue', propertyID: 'https://registry.identifiers.org/registry/doi', value: `doi:${d.doi}`, url: doiUrl(d.doi) },
    name: d.name,
    // Google asks for a description; a dataset without an abstract is described by its name and provider.
    description: d.abstract ?? `${d.name}${d.collectedBy ? `, collected by ${d.collectedBy}` : ''}.`,
    version: d.version ?? undefined,
    keywords: d.keywords,
    license: licence(d.licence),
    isAccessibleForFree: true,
    creditText: d.citation ?? undefined,
    creator: organisation(d.collectedBy),
    publisher: organisation(d.uploadedBy ?? d.collectedBy),
    datePublished: d.published ?? undefined,
    dateModified: d.modified ?? undefined,
    temporalCoverage: d.temporal ? `${d.temporal[0]}/${d.temporal[1]}` : undefined,
    // schema.org's box is "south west north east".
    spatialCoverage: box ? { '@type': 'Place', geo: box[0] === box[2] && box[1] === box[3] ? { '@type': 'GeoCoordinates', latitude: box[1], longitude: box[0] } : { '@type': 'GeoShape', box: `${box[1]} ${box[0]} ${box[3]} ${box[2]}` } } : undefined,
    variableMeasured: variables(d.characteristics),
    distribution: datasetFiles(base, d.doi, d.files).map((f) =>
      compact({ '@type': 'DataDownload', name: `${d.name} (${f.format})`, contentUrl: f.url, encodingFormat: EXPORT_FORMATS[DOWNLOAD_FILE_TYPE[f.format]].mediaType, contentSize: `${f.bytes} B`, sha256: f.sha256 })),
    includedInDataCatalog: { '@type': 'DataCatalog', name: 'Tributary', url: `${base}${PATHS.catalogue}` },
  });
}

/** The JSON-LD of a dataset's page. */
export function datasetJsonLd(base: string, d: DatasetSummary): Json {
  return { '@context': SCHEMA_ORG_CONTEXT, ...datasetNode(base, d) };
}

/** What a location says of its dataset: enough to cite it and fetch it, the rest is on the dataset's page. */
function datasetReference(base: string, d: DatasetSummary): Json {
  const { variableMeasured: _v, spatialCoverage: _s, keywords: _k, includedInDataCatalog: _c, ...rest } = datasetNode(base, d);
  return rest;
}

/** A location as Geoconnex reads one; `dataset` is the one it belongs to, when the publication still lists it. */
export function locationJsonLd(base: string, loc: LocationDetail, dataset: DatasetSummary | undefined): Json {
  return {
    '@context': SCHEMA_ORG_CONTEXT,
    ...compact({
      '@id': `${base}${locationPagePath(loc.id)}`,
      '@type': ['Place', 'hyf:HY_HydrometricFeature', 'hyf:HY_HydroLocation'],
      'hyf:HydroLocationType': 'hydrometric station',
      url: `${base}${locationPagePath(loc.id)}`,
      identifier: { '@type': 'PropertyValue', propertyID: 'MonitoringLocationID', value: loc.monitoringLocationId },
      name: loc.name,
      description: `${loc.type} monitoring location ${loc.monitoringLocationId}${dataset ? ` of ${dataset.name}` : ''}.`,
      provider: organisation(dataset?.collectedBy ?? null),
      geo: { '@type': 'GeoCoordinates', latitude: loc.latitude, longitude: loc.longitude },
      'gsp:hasGeometry': {
        '@type': 'sf:Point',
        'gsp:asWKT': { '@type': 'gsp:wktLiteral', '@value': `POINT (${loc.longitude} ${loc.latitude})` },
        'gsp:crs': { '@id': CRS84 },
      },
      variableMeasured: variables(loc.characteristics),
      temporalCoverage: loc.temporal ? `${loc.temporal[0]}/${loc.temporal[1]}` : undefined,
      subjectOf: dataset ? [datasetReference(base, dataset)] : undefined,
    }),
  };
}
