/**
 * The DCAT catalogue of every dataset (DCAT-AP 3): each dataset with its title, description, publisher and creator,
 * contact, keywords, licence, temporal and spatial coverage, landing page, and its distributions: the files, with
 * media type, size and SHA-256 checksum, and the API filtered to it. Built once per publication as one RDF tree
 * (pages/rdf-graph.ts) and written as JSON-LD and as Turtle from it, so the two say the same triples.
 */
import { DOWNLOAD_FILE_TYPE, type DownloadFormat } from '../../../schemas/publication-files.js';
import { EXPORT_FORMATS } from '../export-formats.js';
import type { Catalogue, DatasetSummary } from '../exec/landing.js';
import { doiUrl } from '../http/links.js';
import { PATHS } from '../http/paths.js';
import { licenceUrl } from '../citation/licence-url.js';
import { datasetFiles, datasetLinks, datasetPagePath } from './page-links.js';
import { iri, lit, toJsonLd, toTurtle, type RdfNode, type Term } from './rdf-graph.js';

export const DCAT_PREFIXES = {
  dcat: 'http://www.w3.org/ns/dcat#',
  dct: 'http://purl.org/dc/terms/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  vcard: 'http://www.w3.org/2006/vcard/ns#',
  adms: 'http://www.w3.org/ns/adms#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  spdx: 'http://spdx.org/rdf/terms#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  gsp: 'http://www.opengis.net/ont/geosparql#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
} as const;

const IANA = 'http://www.iana.org/assignments/media-types/';
/** The EU file-type vocabulary DCAT-AP names formats with. */
const FILE_TYPE: Readonly<Record<DownloadFormat, string>> = {
  parquet: 'http://publications.europa.eu/resource/authority/file-type/PARQUET',
  csv: 'http://publications.europa.eu/resource/authority/file-type/CSV',
  'comparisons-parquet': 'http://publications.europa.eu/resource/authority/file-type/PARQUET',
};

const agent = (name: string | null): RdfNode | undefined => (name ? { type: ['foaf:Agent'], props: [['foaf:name', lit(name)]] } : undefined);
const text = (v: string | null | undefined): Term | undefined => (v ? lit(v) : undefined);

function licence(d: DatasetSummary): Term | undefined {
  const url = licenceUrl(d.licence);
  if (url) return iri(url);
  return d.licence ? { type: ['dct:LicenseDocument'], props: [['rdfs:label', lit(d.licence)]] } : undefined;
}

/** A closed ring round the box, as GeoSPARQL's WKT. */
const wkt = ([w, s, e, n]: readonly number[]) => `POLYGON((${w} ${s}, ${e} ${s}, ${e} ${n}, ${w} ${n}, ${w} ${s}))`;

function dataset(base: string, d: DatasetSummary, services: { odata: string }): RdfNode {
  const page = `${base}${datasetPagePath(d.doi)}`;
  const lic = licence(d);
  const files: RdfNode[] = datasetFiles(base, d.doi, d.files).map((f) => ({
    id: `${page}#${f.format}`,
    type: ['dcat:Distribution'],
    props: [
      ['dct:title', lit(`${d.name} (${f.format})`)],
      ['dcat:accessURL', iri(f.url)],
      ['dcat:downloadURL', iri(f.url)],
      ['dcat:mediaType', iri(`${IANA}${EXPORT_FORMATS[DOWNLOAD_FILE_TYPE[f.format]].mediaType}`)],
      ['dct:format', iri(FILE_TYPE[f.format])],
      ['dcat:byteSize', lit(f.bytes, 'xsd:nonNegativeInteger')],
      ['spdx:checksum', { type: ['spdx:Checksum'], props: [['spdx:algorithm', iri(`${DCAT_PREFIXES.spdx}checksumAlgorithm_sha256`)], ['spdx:checksumValue', lit(f.sha256, 'xsd:hexBinary')]] }],
      ['dct:license', lic],
    ],
  }));
  const api: RdfNode = {
    id: `${page}#api`,
    type: ['dcat:Distribution'],
    props: [
      ['dct:title', lit(`${d.name} in the OData API`)],
      ['dcat:accessURL', iri(datasetLinks(base, d.doi).observations)],
      ['dcat:accessService', iri(services.odata)],
      ['dcat:mediaType', iri(`${IANA}application/json`)],
      ['dct:license', lic],
    ],
  };
  return {
    id: doiUrl(d.doi),
    type: ['dcat:Dataset'],
    props: [
      ['dct:identifier', lit(d.doi)],
      ['adms:identifier', { type: ['adms:Identifier'], props: [['skos:notation', lit(doiUrl(d.doi), 'xsd:anyURI')], ['adms:schemaAgency', lit('DOI')]] }],
      ['dct:title', lit(d.name)],
      ['dct:description', lit(d.abstract ?? d.name)],
      ['dcat:keyword', d.keywords.map((k) => lit(k))],
      ['dcat:version', text(d.version)],
      ['dct:publisher', agent(d.uploadedBy ?? d.collectedBy)],
      ['dct:creator', agent(d.collectedBy)],
      ['dcat:contactPoint', d.stewardEmail ? { type: ['vcard:Kind'], props: [['vcard:fn', lit(d.collectedBy ?? d.stewardEmail)], ['vcard:hasEmail', iri(`mailto:${d.stewardEmail}`)]] } : undefined],
      ['dct:bibliographicCitation', text(d.citation)],
      ['dct:license', lic],
      ['dct:issued', d.published ? lit(d.published, 'xsd:dateTime') : undefined],
      ['dct:modified', d.modified ? lit(d.modified, 'xsd:dateTime') : undefined],
      ['dct:temporal', d.temporal ? { type: ['dct:PeriodOfTime'], props: [['dcat:startDate', lit(d.temporal[0], 'xsd:date')], ['dcat:endDate', lit(d.temporal[1], 'xsd:date')]] } : undefined],
      ['dct:spatial', d.bbox ? { type: ['dct:Location'], props: [['dcat:bbox', lit(wkt(d.bbox), 'gsp:wktLiteral')]] } : undefined],
      ['dcat:landingPage', iri(page)],
      ['dcat:distribution', [...files, api]],
    ],
  };
}

/** The catalogue as an RDF tree: the catalogue, its services, then every dataset. */
export function dcatCatalogue(base: string, catalogue: Catalogue): RdfNode {
  const services = { odata: `${base}${PATHS.odata}/`, features: `${base}${PATHS.features}` };
  const served = catalogue.datasets.map((d) => iri(doiUrl(d.doi)));
  const service = (id: string, title: string, description: string): RdfNode => ({
    id,
    type: ['dcat:DataService'],
    props: [['dct:title', lit(title)], ['dcat:endpointURL', iri(id)], ['dcat:endpointDescription', iri(description)], ['dcat:servesDataset', served]],
  });
  return {
    id: `${base}${PATHS.catalogue}`,
    type: ['dcat:Catalog'],
    props: [
      ['dct:title', lit('Tributary: open water-quality monitoring data')],
      ['dct:description', lit('Water-quality monitoring datasets in the DataStream schema, each with its DOI, licence, files and API access.')],
      ['dct:publisher', agent('Tributary')],
      ['foaf:homepage', iri(`${base}/`)],
      ['dct:modified', catalogue.publication ? lit(catalogue.publication.createdAt, 'xsd:dateTime') : undefined],
      ['dcat:service', [service(services.odata, 'Tributary OData API', `${base}${PATHS.openapi}`), service(services.features, 'Tributary OGC API – Features', `${base}${PATHS.features}/api`)]],
      ['dcat:dataset', catalogue.datasets.map((d) => dataset(base, d, services))],
    ],
  };
}

export const catalogueJsonLd = (base: string, catalogue: Catalogue) => toJsonLd(DCAT_PREFIXES, dcatCatalogue(base, catalogue));
export const catalogueTurtle = (base: string, catalogue: Catalogue) => toTurtle(DCAT_PREFIXES, dcatCatalogue(base, catalogue));

/** The formats a catalogue request may ask for, by media type. */
export const CATALOGUE_MEDIA = { jsonld: 'application/ld+json', turtle: 'text/turtle' } as const;
