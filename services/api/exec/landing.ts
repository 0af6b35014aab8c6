/**
 * What the landing pages and the catalogues say, read from the publication: every dataset with its metadata, its
 * files (exec/downloads.ts), its locations' count and extent and its characteristics with exact counts. A snapshot
 * never changes, so that is read once per snapshot and kept with it, as the downloads are; a location, a dataset's
 * locations and the windows the dump and the sitemaps walk are read per request, by key.
 */
import type { DatasetFile } from '../../../schemas/publication-files.js';
import type { Snapshot } from '../db/snapshot.js';
import type { Columns } from '../db/query-runner.js';
import {
  compileDatasetCharacteristics, compileDatasetLocations, compileLandingDatasets, compileLocation, compileLocationCharacteristics,
  compileLocationDates, compileLocationSlice, compileLocationSummaries, compileLocationWindow, SUMMARY_DATES, SUMMARY_VALUES,
} from '../query/compile-landing.js';
import { readPublicationFiles } from './downloads.js';

export interface Characteristic {
  readonly name: string;
  /** Observations of it, exact. */
  readonly count: number;
}

export interface DatasetSummary {
  readonly doi: string;
  /** The dataset's UUID in /Metadata. */
  readonly id: string;
  readonly name: string;
  readonly version: string | null;
  readonly abstract: string | null;
  readonly collectedBy: string | null;
  readonly uploadedBy: string | null;
  readonly stewardEmail: string | null;
  readonly licence: string | null;
  readonly citation: string | null;
  readonly sourceUrl: string | null;
  readonly funding: string | null;
  readonly progress: string | null;
  readonly maintenance: string | null;
  readonly keywords: readonly string[];
  readonly topics: readonly string[];
  /** First and last ActivityStartDate, `YYYY-MM-DD`. */
  readonly temporal: readonly [string, string] | null;
  readonly created: string | null;
  readonly published: string | null;
  readonly locations: number;
  /** [west, south, east, north] of its locations, WGS 84 degrees. */
  readonly bbox: readonly [number, number, number, number] | null;
  readonly characteristics: readonly Characteristic[];
  readonly observations: number;
  readonly files: readonly DatasetFile[];
  /** When the publication that wrote its files was made: when the dataset last changed. */
  readonly modified: string | null;
}

export interface Catalogue {
  /** In DOI order. */
  readonly datasets: readonly DatasetSummary[];
  readonly byDoi: ReadonlyMap<string, DatasetSummary>;
  readonly locations: number;
  /** The publication served and when it was made, when the file names one. */
  readonly publication: { readonly id: string; readonly createdAt: string } | undefined;
}

export interface LocationRow {
  readonly id: bigint;
  readonly doi: string;
  readonly monitoringLocationId: string;
  readonly name: string;
  readonly latitude: number;
  readonly longitude: number;
  readonly crs: string;
  readonly type: string;
  readonly firstObsId: bigint;
  readonly lastObsId: bigint;
}

export interface LocationDetail extends LocationRow {
  readonly characteristics: readonly Characteristic[];
  /** First and last ActivityStartDate; read for a location's page, not for the dump. */
  readonly temporal?: readonly [string, string] | null;
}

const cache = new WeakMap<Snapshot, Promise<Catalogue>>();

export function readCatalogue(snapshot: Snapshot): Promise<Catalogue> {
  let read = cache.get(snapshot);
  if (!read) {
    read = loadCatalogue(snapshot);
    // A failed read (interrupted at shutdown) is tried again by the next request.
    read.catch(() => cache.delete(snapshot));
    cache.set(snapshot, read);
  }
  return read;
}

const text = (cols: Columns, name: string, i: number): string | null => {
  const v = cols[name]?.[i];
  return v === null || v === undefined || v === '' ? null : String(v);
};
const num = (cols: Columns, name: string, i: number): number | null => {
  const v = cols[name]?.[i];
  return v === null || v === undefined ? null : Number(v);
};
const json = <T>(cols: Columns, name: string, i: number, empty: T): T => {
  const v = text(cols, name, i);
  return v === null ? empty : ((JSON.parse(v) as T | null) ?? empty);
};

async function loadCatalogue(snapshot: Snapshot): Promise<Catalogue> {
  const [cols, chars, files] = await Promise.all([snapshot.columns(compileLandingDatasets()), snapshot.columns(compileDatasetCharacteristics()), readPublicationFiles(snapshot)]);
  const characteristics = new Map<string, Characteristic[]>();
  for (let i = 0; i < (chars['DOI']?.length ?? 0); i++) {
    const doi = text(chars, 'DOI', i)!;
    const characteristic = { name: text(chars, 'CharacteristicName', i)!, count: num(chars, 'n', i)! };
    characteristics.get(doi)?.push(characteristic) ?? characteristics.set(doi, [characteristic]);
  }
  const filesOf = new Map(files.datasets.map((d) => [d.doi, Object.values(d.files)]));
  const createdAt = new Map(files.history.map((p) => [p.id, p.createdAt]));
  const datasets: DatasetSummary[] = [];
  for (let i = 0; i < (cols['DOI']?.length ?? 0); i++) {
    const doi = text(cols, 'DOI', i)!;
    const dates = json<(string | null)[]>(cols, 'TemporalExtent', i, []);
    const box = ['west', 'south', 'east', 'north'].map((k) => num(cols, k, i));
    const own = characteristics.get(doi) ?? [];
    const datasetFiles = filesOf.get(doi) ?? [];
    const modified = datasetFiles.map((f) => createdAt.get(f.publication)).find((t) => t !== undefined) ?? null;
    datasets.push({
      doi, id: text(cols, 'Id', i)!, name: text(cols, 'DatasetName', i) ?? doi, version: text(cols, 'Version', i), abstract: text(cols, 'Abstract', i),
      collectedBy: text(cols, 'DataCollectionOrganization', i), uploadedBy: text(cols, 'DataUploadOrganization', i), stewardEmail: text(cols, 'DataStewardEmail', i),
      licence: text(cols, 'Licence', i), citation: text(cols, 'Citation', i), sourceUrl: text(cols, 'DataSourceURL', i), funding: text(cols, 'FundingSources', i),
      progress: text(cols, 'ProgressCode', i), maintenance: text(cols, 'MaintenanceFrequencyCode', i),
      keywords: json<string[]>(cols, 'Keywords', i, []), topics: json<string[]>(cols, 'TopicCategoryCode', i, []),
      temporal: dates[0] && dates[1] ? [dates[0], dates[1]] : null,
      created: text(cols, 'CreateTimestamp', i), published: text(cols, 'PublishedTimestamp', i),
      locations: num(cols, 'locations', i) ?? 0,
      bbox: box.every((v) => v !== null) ? (box as [number, number, number, number]) : null,
      characteristics: own, observations: own.reduce((n, c) => n + c.count, 0),
      files: datasetFiles, modified,
    });
  }
  const current = files.history.find((p) => p.id === snapshot.publication) ?? files.history.at(-1);
  return {
    datasets,
    byDoi: new Map(datasets.map((d) => [d.doi, d])),
    locations: datasets.reduce((n, d) => n + d.locations, 0),
    publication: current ? { id: current.id, createdAt: current.createdAt } : undefined,
  };
}

function locationRows(cols: Columns): LocationRow[] {
  return (cols['Id'] ?? []).map((id, i) => ({
    id: BigInt(id as bigint), doi: text(cols, 'DOI', i)!, monitoringLocationId: String(cols['MonitoringLocationID']![i]), name: String(cols['Name']![i]),
    latitude: num(cols, 'Latitude', i)!, longitude: num(cols, 'Longitude', i)!, crs: String(cols['HorizontalCoordinateReferenceSystem']![i]),
    type: String(cols['MonitoringLocationType']![i]), firstObsId: BigInt(cols['first_obs_id']![i] as bigint), lastObsId: BigInt(cols['last_obs_id']![i] as bigint),
  }));
}

/** Each location with the characteristics measured there: one statistics query for the whole window. */
async function withCharacteristics(snapshot: Snapshot, rows: readonly LocationRow[], signal?: AbortSignal): Promise<LocationDetail[]> {
  if (rows.length === 0) return [];
  const cols = await snapshot.columns(compileLocationCharacteristics(rows[0]!.id, rows.at(-1)!.id), signal);
  const of = new Map<bigint, Characteristic[]>();
  for (let i = 0; i < (cols['LocationId']?.length ?? 0); i++) {
    const id = BigInt(cols['LocationId']![i] as bigint);
    const characteristic = { name: text(cols, 'CharacteristicName', i)!, count: num(cols, 'n', i)! };
    of.get(id)?.push(characteristic) ?? of.set(id, [characteristic]);
  }
  return rows.map((r) => ({ ...r, characteristics: of.get(r.id) ?? [] }));
}

/** One location with its characteristics and first and last dates; undefined when no location has the Id. */
export async function readLocation(snapshot: Snapshot, id: bigint, signal?: AbortSignal): Promise<LocationDetail | undefined> {
  const [row] = locationRows(await snapshot.columns(compileLocation(id), signal));
  if (!row) return undefined;
  const [[detail], dates] = await Promise.all([withCharacteristics(snapshot, [row], signal), snapshot.columns(compileLocationDates(row.firstObsId, row.lastObsId), signal)]);
  const [first, last] = [text(dates, 'first_date', 0), text(dates, 'last_date', 0)];
  return { ...detail!, temporal: first && last ? [first, last] : null };
}

/** A dataset's first `limit` locations in Id order. */
export async function readDatasetLocations(snapshot: Snapshot, doi: string, limit: number, signal?: AbortSignal): Promise<LocationRow[]> {
  return locationRows(await snapshot.columns(compileDatasetLocations(doi, limit), signal));
}

/** Every location in Id order with its characteristics, a window at a time: what the dump streams. */
export async function* locationWindows(snapshot: Snapshot, size: number, signal?: AbortSignal): AsyncGenerator<LocationDetail[]> {
  let after = 0n;
  for (;;) {
    const rows = locationRows(await snapshot.columns(compileLocationWindow(after, size), signal));
    if (rows.length === 0) return;
    yield await withCharacteristics(snapshot, rows, signal);
    if (rows.length < size) return;
    after = rows.at(-1)!.id;
  }
}

/** The Id and dataset of the locations `offset` … `offset + limit - 1` in Id order. */
export async function readLocationSlice(snapshot: Snapshot, offset: number, limit: number, signal?: AbortSignal): Promise<{ id: bigint; doi: string }[]> {
  const cols = await snapshot.columns(compileLocationSlice(offset, limit), signal);
  return (cols['Id'] ?? []).map((id, i) => ({ id: BigInt(id as bigint), doi: text(cols, 'DOI', i)! }));
}

/** A row of LocationSummaries as a location's page shows it (query/compile-landing.ts names the fields). */
export type LocationSummary = { readonly [K in (typeof SUMMARY_VALUES)[number] | (typeof SUMMARY_DATES)[number]]: string | number | null };

/** One location's summaries per characteristic, fraction, speciation and unit, in Id order. */
export async function readLocationSummaries(snapshot: Snapshot, id: bigint, signal?: AbortSignal): Promise<LocationSummary[]> {
  const cols = await snapshot.columns(compileLocationSummaries(id), signal);
  return Array.from({ length: cols['CharacteristicName']?.length ?? 0 }, (_, i) =>
    Object.fromEntries(
      [...SUMMARY_VALUES, ...SUMMARY_DATES].map((name) => {
        const v = cols[name]![i];
        return [name, v === null || v === undefined ? null : typeof v === 'bigint' ? Number(v) : (v as string | number)];
      }),
    ) as LocationSummary,
  );
}
