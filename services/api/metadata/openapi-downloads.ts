/**
 * OpenAPI for the bulk downloads (issue 29, downloads/downloads.ts): the index, the Parquet manifest, one dataset file
 * and the change feed. The paths and formats are the routes' own constants.
 */
import { CHANGE_KINDS, DOWNLOAD_FILE_TYPE, DOWNLOAD_FORMATS, DOWNLOAD_NAME_SUFFIXES } from '../../../schemas/publication-files.js';
import { EXPORT_FORMATS } from '../export-formats.js';
import { IMMUTABLE, PATHS, PIN_PARAMETER_DOC } from '../http/paths.js';

type Schema = Record<string, unknown>;
const JSON_MEDIA = 'application/json';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const str = (description: string, extra: Schema = {}) => ({ type: 'string', description, ...extra });
const int = (description: string) => ({ type: 'integer', minimum: 0, description });
const obj = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({ type: 'object', required, properties });

export const DOWNLOAD_SCHEMAS: Record<string, Schema> = {
  DatasetFile: obj({
    url: str('Absolute URL of the file; it names the content\'s SHA-256, so it never changes content.', { format: 'uri' }),
    mediaType: str('Media type of the file.'),
    bytes: int('Size in bytes.'),
    rows: int('Rows in the file: Records, or guideline comparisons for comparisons-parquet.'),
    sha256: str('SHA-256 of the bytes, hex.', { pattern: '^[0-9a-f]{64}$' }),
    publication: str('The publication that wrote the file (an unchanged dataset keeps its file across publications).'),
  }),
  DownloadIndex: obj({
    publication: str('The publication served now.'),
    createdAt: str('When it was published (UTC).', { format: 'date-time' }),
    manifest: str(`${PATHS.manifest}, absolute.`, { format: 'uri' }),
    publications: str(`${PATHS.publications}, absolute.`, { format: 'uri' }),
    catalogue: str(`${PATHS.catalogue}, absolute: the DCAT catalogue (JSON-LD, or Turtle by Accept).`, { format: 'uri' }),
    sitemap: str(`${PATHS.sitemap}, absolute: the datasets' and locations' landing pages.`, { format: 'uri' }),
    datasets: {
      type: 'array',
      items: obj({
        DOI: str('The dataset\'s DOI; cite it as https://doi.org/<DOI>.'),
        DatasetName: { type: ['string', 'null'] },
        Licence: { type: ['string', 'null'], description: 'As /Metadata names it.' },
        Citation: { type: ['string', 'null'] },
        Rows: int('Records of the dataset.'),
        files: { type: 'object', description: `One entry per format: ${DOWNLOAD_FORMATS.join(', ')}.`, properties: Object.fromEntries(DOWNLOAD_FORMATS.map((f) => [f, ref('DatasetFile')])) },
      }),
    },
  }, ['publication', 'manifest', 'publications', 'datasets']),
  ParquetManifest: obj({
    publication: str('The publication served now.'),
    format: { const: 'parquet' },
    geoparquet: obj({
      version: str('The GeoParquet version of the files\' geo metadata.'),
      primaryColumn: str('The column holding each Record\'s point, as WKB.'),
      encoding: { const: 'WKB' },
      geometryTypes: { type: 'array', items: { const: 'Point' } },
      crs: str('OGC:CRS84: WGS 84 longitude, latitude (written out in the files as PROJJSON).'),
      covering: str('The bbox covering column, a struct of xmin, ymin, xmax, ymax, for row-group pruning.'),
    }),
    rows: int('Records in all the files.'),
    bytes: int('Bytes of all the files.'),
    files: {
      type: 'array',
      items: obj({
        DOI: str('The dataset.'),
        path: str('The file\'s URL relative to this server.'),
        url: str('The file\'s absolute URL.', { format: 'uri' }),
        object: str('The file\'s name in the publication\'s files folder or the store\'s objects/ (read it from object storage).'),
        bytes: int('Size in bytes.'),
        rows: int('Records.'),
        sha256: str('SHA-256, hex.'),
      }),
    },
    duckdb: str('A DuckDB query reading every file as one table: SELECT * FROM read_parquet([...]).'),
    comparisons: obj({
      rows: int('Guideline comparisons in all the files.'),
      bytes: int('Bytes of all the files.'),
      files: { type: 'array', description: 'Each dataset\'s comparisons-parquet file, entries as in files (rows: comparisons). One schema: the GuidelineComparisons fields, then the location\'s point (GeoParquet as above).', items: { type: 'object' } },
      duckdb: str('A DuckDB query reading every comparisons file as one table.'),
    }),
  }),
  PublicationFeed: obj({
    publication: str('The publication served now.'),
    since: str('The since= given, if any.'),
    downloads: str(`${PATHS.downloads}, absolute.`, { format: 'uri' }),
    publications: {
      type: 'array',
      description: 'Oldest first; with since=, only those after it.',
      items: obj({
        id: str('Publication id.'),
        createdAt: str('UTC.', { format: 'date-time' }),
        parent: { type: ['string', 'null'], description: 'The publication it was built on.' },
        changes: {
          type: 'array',
          items: obj({
            DOI: str('The dataset.'),
            DatasetName: str('Its name.'),
            change: { type: 'string', enum: [...CHANGE_KINDS] },
            files: { type: 'object', description: 'The files this change wrote, while they are still the ones served.', properties: Object.fromEntries(DOWNLOAD_FORMATS.map((f) => [f, ref('DatasetFile')])) },
          }, ['DOI', 'DatasetName', 'change']),
        },
      }),
    },
  }, ['publication', 'downloads', 'publications']),
};

/** The four paths, with the error responses `errors(statuses)` gives for each. */
export function downloadPaths(errors: (only?: readonly number[]) => Record<string, unknown>): Record<string, Schema> {
  const json = (operationId: string, summary: string, description: string, schema: string, statuses: readonly number[], parameters: Schema[] = []) => ({
    get: {
      operationId, summary, description, tags: ['Downloads'], parameters: [...parameters, PIN_PARAMETER_DOC],
      responses: { 200: { description: summary, headers: { ETag: { description: 'W/"<publication id>": If-None-Match answers 304 until the next publication.', schema: { type: 'string' } } }, content: { [JSON_MEDIA]: { schema: ref(schema) } } }, 304: { description: 'Not modified (If-None-Match).' }, ...errors(statuses) },
    },
  });
  const formats = DOWNLOAD_FORMATS.map((f) => `.${DOWNLOAD_NAME_SUFFIXES[f]} (${f}, ${EXPORT_FORMATS[DOWNLOAD_FILE_TYPE[f]].mediaType})`).join(', ');
  const fileHeaders = {
    ETag: { description: '"sha256-<hex>": strong; If-None-Match → 304, If-Range honoured.', schema: { type: 'string' } },
    'Cache-Control': { description: `${IMMUTABLE}, no-transform`, schema: { type: 'string' } },
    'Accept-Ranges': { description: 'bytes', schema: { type: 'string' } },
    'Content-Disposition': { description: 'attachment; filename="<DOI with / as _>.<ext>" (.comparisons.parquet for the comparisons)', schema: { type: 'string' } },
  };
  return {
    [PATHS.downloads]: json('getDownloads', 'Every dataset of the current publication with its files (Records as Parquet and CSV, guideline comparisons as Parquet), sizes, hashes, DOI, licence and citation.', 'Start here: the file URLs, the manifest and the change feed are linked from it.', 'DownloadIndex', [400, 401, 403, 410, 429, 500, 503]),
    [PATHS.manifest]: json('getParquetManifest', 'Every current Parquet file, to read the whole hub as one table.', 'DuckDB, polars, pandas/pyarrow, Spark or Trino read the list as one dataset (all files share one schema: the Records fields).', 'ParquetManifest', [400, 401, 403, 410, 429, 500, 503]),
    [PATHS.publications]: json(
      'getPublications', 'The change feed: each publication and the datasets it added, replaced or removed.', 'Follow it with since=<the last id you saw> to mirror the hub without downloading it again.', 'PublicationFeed', [400, 401, 403, 410, 429, 500, 503],
      [{ name: 'since', in: 'query', description: 'A publication id from this feed: answer only the publications after it. An unknown id is 400 unknown_publication.', schema: { type: 'string' } }],
    ),
    [`${PATHS.files}/{hash}/{name}`]: {
      get: {
        operationId: 'getDatasetFile',
        summary: 'One dataset file of the current publication, as listed by /v1/downloads.',
        description: `Only files the current publication lists are served (404 naming ${PATHS.downloads} otherwise). Range: one byte range → 206; a range past the end → 416 with Content-Range: bytes */<size>; several ranges or a malformed Range → 200 with the whole file. HEAD answers the headers. Metered by the bytes sent (FILE_BYTES_PER_SECOND per key, bursts of FILE_BYTES_BURST; a request at least 16 KiB) and MAX_CONCURRENT_FILE_READS in flight, never by a request rate, so engines read ranges in parallel; a whole file (no Range) also holds one of MAX_CONCURRENT_EXPORTS, like an export.`,
        tags: ['Downloads'],
        parameters: [
          { name: 'hash', in: 'path', required: true, description: 'sha256-<hex> of the file.', schema: { type: 'string', pattern: '^sha256-[0-9a-f]{64}$' } },
          { name: 'name', in: 'path', required: true, description: `Any name; its extension chooses the format: ${formats} (other extensions: 406).`, schema: { type: 'string' } },
          { name: 'Range', in: 'header', description: 'bytes=<first>-[<last>] or bytes=-<suffix>.', schema: { type: 'string' } },
          { name: 'If-Range', in: 'header', description: 'The ETag: the range only if the file is still this one.', schema: { type: 'string' } },
          { ...PIN_PARAMETER_DOC, description: 'The publication whose listing serves the file: the index, manifest and feed put it in every file URL they give, so a reader of many files reads one publication\'s.' },
        ],
        responses: {
          200: { description: 'The whole file.', headers: fileHeaders, content: Object.fromEntries(DOWNLOAD_FORMATS.map((f) => [EXPORT_FORMATS[DOWNLOAD_FILE_TYPE[f]].mediaType, { schema: { type: 'string', format: 'binary' } }])) },
          206: { description: 'The requested range.', headers: { ...fileHeaders, 'Content-Range': { description: 'bytes <first>-<last>/<size>', schema: { type: 'string' } } } },
          304: { description: 'Not modified (If-None-Match).' },
          ...errors([401, 403, 404, 406, 410, 416, 429, 500]),
        },
      },
    },
  };
}
