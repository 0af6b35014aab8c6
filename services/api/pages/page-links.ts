/**
 * The URLs of the landing pages and what they link to. A dataset's page is named by its DOI with the slash kept, as
 * doi.org names it (`/datasets/10.25976/abcd-ef12`); a location's by its Id (`/locations/42`).
 */
import { DOWNLOAD_FORMATS, type DatasetFile } from '../../../schemas/publication-files.js';
import { encodeValue } from '../http/links.js';
import { PATHS } from '../http/paths.js';
import { filePath } from '../downloads/download-links.js';

/** A DOI in a path: percent-encoded as a query value is, its slashes kept. */
export const doiPath = (doi: string): string => encodeValue(doi).replace(/%2F/g, '/');

export const datasetPagePath = (doi: string): string => `${PATHS.datasetPages}/${doiPath(doi)}`;
export const locationPagePath = (id: bigint | number | string): string => `${PATHS.locationPages}/${id}`;

/** An OData string literal: single quotes doubled. */
const quote = (v: string) => `'${v.replaceAll("'", "''")}'`;

/** Where else the dataset's data is: the API filtered to it, its export, its OGC features and the explorer. */
export function datasetLinks(base: string, doi: string) {
  const filter = encodeValue(`DOI eq ${quote(doi)}`);
  return {
    metadata: `${base}${PATHS.odata}/Metadata?$filter=${filter}`,
    locations: `${base}${PATHS.odata}/Locations?$filter=${filter}`,
    observations: `${base}${PATHS.odata}/Observations?$filter=${filter}`,
    summaries: `${base}${PATHS.odata}/LocationSummaries?$filter=${filter}`,
    exportCsv: `${base}${PATHS.export}/Records?$filter=${filter}&$format=csv`,
    exportParquet: `${base}${PATHS.export}/Records?$filter=${filter}&$format=parquet`,
    featuresLocations: `${base}${PATHS.features}/collections/locations/items?DOI=${encodeValue(doi)}`,
    featuresObservations: `${base}${PATHS.features}/collections/observations/items?DOI=${encodeValue(doi)}`,
    explore: `${base}${PATHS.explore}?DOI=${encodeValue(doi)}`,
  };
}

/** The links of one location's data. */
export function locationLinks(base: string, id: bigint) {
  const filter = encodeValue(`LocationId eq ${id}`);
  return {
    observations: `${base}${PATHS.odata}/Observations?$filter=${filter}`,
    summaries: `${base}${PATHS.odata}/LocationSummaries?$filter=${filter}`,
    exportCsv: `${base}${PATHS.export}/Records?$filter=${filter}&$format=csv`,
    feature: `${base}${PATHS.features}/collections/locations/items/${id}`,
    explore: `${base}${PATHS.explore}?LocationId=${id}`,
  };
}

/** A dataset's files in the order of DOWNLOAD_FORMATS, each with its absolute URL. */
export function datasetFiles(base: string, doi: string, files: readonly DatasetFile[]) {
  return DOWNLOAD_FORMATS.flatMap((format) => files.filter((f) => f.format === format)).map((f) => ({ ...f, url: `${base}${filePath({ doi }, f)}` }));
}
