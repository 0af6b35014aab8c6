/**
 * The tables a query reads, each under its fixed alias. Table names are the storage tables' own (schemas/storage.ts),
 * typed, and reach SQL only through `ident`; a condition compiled against a list of sources reads the first one
 * that holds each dimension.
 */
import { locationIdColumns, ownTables, storageKeys, type DimensionDef, type OwnTable, type ResourceDef, type StorageTable, type TableName } from '../../../schemas/index.js';
import { column, ident } from './sql.js';

/** A storage table under its alias: what a compiler reads whole (the extent, the downloads). */
export interface TableSource {
  readonly alias: string;
  readonly table: StorageTable;
}

/** A table a query's dimensions are read from. */
export interface Source extends TableSource {
  readonly table: TableName;
  /** The table whose column names the dimensions list for this one, when it has none of its own. */
  readonly columnsOf?: TableName;
}

/** The resource's own table is always `t`: its key, cursor position and Id windows are written against it. */
export const RESOURCE_ALIAS = 't';
export const RESOURCE: { readonly [T in ResourceDef['table']]: Source } = {
  observations: { alias: RESOURCE_ALIAS, table: 'observations' },
  locations: { alias: RESOURCE_ALIAS, table: 'locations' },
  datasets: { alias: RESOURCE_ALIAS, table: 'datasets' },
  ...(Object.fromEntries(ownTables.map((table) => [table, { alias: RESOURCE_ALIAS, table }])) as { readonly [T in OwnTable]: Source }),
};
export const STATS: Source = { alias: 's', table: 'observation_stats' };
/** The statistics split by ResultUnit, with the values' count, sum, min and max: observation_stats' keys plus its own. */
export const VALUE_STATS: Source = { alias: 's', table: 'observation_value_stats', columnsOf: 'observation_stats' };
export const LOCATIONS: Source = { alias: 'l', table: 'locations' };
/** The observations as a finer table than the resource's, or as the fact a count scans. */
export const OBSERVATIONS: Source = { alias: 'o', table: 'observations' };
export const ROLLUP: Source = { alias: 'r', table: 'observation_rollup' };
/** The rollup once per region of each location: the rollup's columns plus RegionId, a plain column here. */
export const REGION_ROLLUP: Source = { alias: 'r', table: 'observation_region_rollup', columnsOf: 'observation_rollup' };
/**
 * The guideline comparisons counted per location, observation key, guideline and Verdict: its columns are named as
 * the comparisons' (the dimensions list those), and it holds only its keys (count-sources.ts, `ownCountSources`).
 */
export const COMPARISON_STATS: Source = { alias: 's', table: 'guideline_comparison_stats', columnsOf: 'guideline_comparisons' };
/** The same over every year, medium and group: a fraction of its rows. */
export const COMPARISON_TOTALS: Source = { alias: 's', table: 'guideline_comparison_totals', columnsOf: 'guideline_comparisons' };
/** The datasets joined to what else lists a DOI (their files). */
export const DATASETS: Source = { alias: 'd', table: 'datasets' };
/** What a publication serves for download and where it came from (schemas/publication-files.ts). */
export const DATASET_FILES: TableSource = { alias: 'f', table: 'dataset_files' };
export const PUBLICATION_HISTORY: TableSource = { alias: 'h', table: 'publication_history' };
export const PUBLICATION_CHANGES: TableSource = { alias: 'c', table: 'publication_changes' };
/** search_datasets' index (one row per dataset), joined to the datasets `t` it ranks. */
export const DATASET_SEARCH: TableSource = { alias: 'q', table: 'dataset_search' };
/** Region memberships joined to group by region; the table is the dimension's `membership`. */
export const MEMBERSHIP_ALIAS = 'm';
/** UCUM's factor of each (limit unit → ResultUnit) pair, joined to the observations by the km methods (compile-apply-km.ts). */
export const UNIT_CONVERSIONS: TableSource = { alias: 'u', table: 'unit_conversions' };

/** Where each dimension is read from, in order of preference; `t` is always the resource's own table. */
export const PAGE_SOURCES: { readonly [T in ResourceDef['table']]: readonly Source[] } = {
  observations: [RESOURCE.observations],
  locations: [RESOURCE.locations, STATS],
  datasets: [RESOURCE.datasets, LOCATIONS, STATS],
  // A table of its own reads its location's fields (type, coordinates) from its location, one row per row.
  ...(Object.fromEntries(ownTables.map((table) => [table, [RESOURCE[table], LOCATIONS] as readonly Source[]])) as { readonly [T in OwnTable]: readonly Source[] }),
};

/**
 * With a row-level dimension (ResultValue, ActivityStartDate) the statistics cannot answer: the observations
 * themselves take their place, the resource's own table still first.
 */
export const ROW_PAGE_SOURCES: { readonly [T in 'locations' | 'datasets']: readonly Source[] } = {
  locations: [RESOURCE.locations, OBSERVATIONS],
  datasets: [RESOURCE.datasets, OBSERVATIONS, LOCATIONS],
};

/** Observation counts come from the statistics table joined to its locations, or from the rollup. */
export const STATS_SOURCES: readonly Source[] = [STATS, LOCATIONS];
/** `$apply`'s sums, minima, maxima and means of ResultValue, and anything grouped or filtered by ResultUnit. */
export const VALUE_STATS_SOURCES: readonly Source[] = [VALUE_STATS, LOCATIONS];

/** The column holding `dim` in `s`, if it has one: its own, else the one of the table whose columns it shares. */
export function columnOf(dim: DimensionDef, s: Source): string | undefined {
  return dim.columns[s.table] ?? (s.columnsOf ? dim.columns[s.columnsOf] : undefined);
}

/** `alias."column"` of a storage column of `s`. */
export function sourceColumn(s: TableSource, name: string): string {
  return column(s.alias, name);
}

/** The column of `s` holding a location's Id, if it has one. */
export function locationIdIn(s: Source): string | undefined {
  const name = (locationIdColumns as Partial<Record<TableName, string>>)[s.table];
  return name === undefined ? undefined : sourceColumn(s, name);
}

/** `a.x = b.y`: rows of `a` and `b` of one location. */
export function sameLocation(a: Source, b: Source): string {
  const [x, y] = [locationIdIn(a), locationIdIn(b)];
  if (!x || !y) throw new Error(`${a.table} and ${b.table} are not both keyed by location`);
  return `${x} = ${y}`;
}

/** `a."DOI" = b."DOI"`: rows of `a` and `b` of one dataset. */
export function sameDataset(a: TableSource, b: TableSource): string {
  return `${sourceColumn(a, storageKeys.doi)} = ${sourceColumn(b, storageKeys.doi)}`;
}

/** `"table" alias`, for FROM. */
export function sourceTable(s: TableSource): string {
  return `${ident(s.table)} ${s.alias}`;
}

/** ` JOIN "table" alias ON on`. */
export function joinSource(s: TableSource, on: string): string {
  return ` JOIN ${sourceTable(s)} ON ${on}`;
}
