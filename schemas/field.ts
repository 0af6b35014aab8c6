import type { DownloadFormat } from './publication-files.js';

/**
 * The shape of the field catalogue: every resource's fields and every filter dimension are declared once, as
 * data, and the ingest DDL, the API planner, `$metadata`, OpenAPI and the docs derive from them.
 */

/** Logical types. Storage (DuckDB) and wire (JSON, CSDL, OpenAPI) types are derived in one place each. */
export type FieldType =
  | 'uuid'
  | 'string'
  | 'integer' // JSON number; BIGINT in DuckDB
  | 'number' // JSON number; DOUBLE in DuckDB
  | 'boolean' // JSON true/false; BOOLEAN in DuckDB
  | 'date' // YYYY-MM-DD
  | 'time' // HH:MM:SS
  | 'timestamp' // ISO 8601 UTC with milliseconds
  | 'string[]'
  | 'date[]'
  | 'integer[]'; // BIGINT[] in DuckDB

/** One field of a resource, as served. */
export interface FieldDef {
  /** Name on the wire (`$select`, JSON keys, CSV header). Case-sensitive: Locations has both `Id` and `ID`. */
  readonly name: string;
  /** Column of the table that serves the resource (see docs/storage.md). */
  readonly column: string;
  readonly type: FieldType;
  readonly nullable: boolean;
  /** Offered by `$select` and, unless `onRequest`, in the default projection. */
  readonly selectable: boolean;
  /**
   * Returned only when `$select` names it (OData's "default set of properties" leaves it out): a field of this
   * service's own that DataStream's shape has not, so clients built for that shape see it unchanged.
   */
  readonly onRequest?: boolean;
  /**
   * Served as '' when not given, never null: DataStream's contract types the field as a string that may be empty
   * (its Metadata sample writes `"OtherDataSources": ""`), and clients built on it read it as text. Stored as null,
   * like every blank (schemas/metadata-schema.ts), so only the wire differs.
   */
  readonly emptyWhenAbsent?: true;
  readonly description: string;
}

/** A selectable field stored in a column of its own name: how most of the catalogue's files declare theirs. */
export function servedField(name: string, type: FieldType, nullable: boolean, description: string): FieldDef {
  return { name, column: name, type, nullable, selectable: true, description };
}

/** Whether a field's served value can be null: the wire's nullability ($metadata, OpenAPI, Arrow), not storage's. */
export function nullOnWire(f: FieldDef): boolean {
  return f.nullable && !f.emptyWhenAbsent;
}

/**
 * Tables that serve a resource of their own, one row per served row (issues 45, 48): filtered by their own columns,
 * and, when they have a LocationId, by their location's (MonitoringLocationType, RegionId) through `locations`.
 * Counted, grouped and paged over themselves: no statistics table stands for them.
 */
export const ownTables = ['location_summaries', 'guidelines', 'guideline_comparisons', 'water_quality_index', 'trends'] as const;
export type OwnTable = (typeof ownTables)[number];

/** Tables of the published DuckDB file that filters can read. */
export type TableName =
  | 'datasets'
  | 'locations'
  | 'observations'
  | 'observation_stats'
  | 'observation_value_stats'
  | 'observation_rollup'
  | 'observation_region_rollup'
  | 'guideline_comparison_stats'
  | 'guideline_comparison_totals'
  | OwnTable;

/**
 * A filter dimension: a name usable in `$filter`, with the column that holds it in each table that has it.
 * The planner reads it from the resource's own table when present, otherwise from the nearest finer table
 * ("has at least one matching observation"). `membership` dimensions are sets per location (RegionId).
 */
export interface DimensionDef {
  readonly name: string;
  readonly type: FieldType;
  readonly columns: Partial<Record<TableName, string>>;
  readonly membership?: 'location_regions';
  /** True when some rows have no value (comparisons then treat null as OData does: `ne` matches it). */
  readonly nullable?: boolean;
  readonly description: string;
}

export type ResourceName = 'Metadata' | 'Locations' | 'Observations' | 'Records' | 'LocationSummaries' | 'Guidelines' | 'GuidelineComparisons' | 'WaterQualityIndex' | 'Trends';

/**
 * What a resource's rows are, which decides how a filter on a finer field reaches them and what counts them; every
 * switch on it ends in `assertNever`:
 * - `datasets`, `locations`: one row per dataset or location; a filter on an observation's field means "has a matching
 *   observation", answered from the statistics tables (or the observations for a value or a date);
 * - `observations`: one row per observation (Observations and Records share the table); counted and grouped from
 *   the statistics tables;
 * - `own-table`: a table of its own (`ownTables`), one stored row per served row, filtered by its own columns and
 *   its location's; counted and grouped over itself, or over statistics tables of its own.
 */
export type ResourceKind = 'datasets' | 'locations' | 'observations' | 'own-table';

/** How a resource's pages are found (services/api/exec/page-window.ts); pages are always in Id order. */
export interface PagesDoor {
  /**
   * `stored`: the table is written in Id order (checked when a file opens), so a page is a LIMIT in stored order;
   * `sorted`: ORDER BY Id, for the small tables.
   */
  readonly order: 'stored' | 'sorted';
  /** A region filter is walked as its regions' Id ranges (rows numbered by location): else it is a semi-join, sorted. */
  readonly regionRanges: boolean;
  /** A text page may continue the extract cursor of the page before (the one large table). */
  readonly cursors: boolean;
  /** Ids one apart (`dense`), with gaps (`sparse`: e.g. LocationId × 65536 + rank) or UUIDs: how a sample window is cut. */
  readonly ids: 'dense' | 'sparse' | 'uuid';
}

/** `$count` (and `/$count`): the statistics tables that may answer it, smallest first; the rows are counted otherwise. */
export interface CountDoor {
  readonly statistics: readonly TableName[];
}

/** A measure `aggregate(Field with method as Alias)` reads: a number or a date field, with the field naming its unit. */
export interface MeasureDecl {
  readonly field: string;
  /** The field holding the value's unit: values of two units are never aggregated together. None for a date or a pure number. */
  readonly unit?: string;
}

/** Methods over a measure a statistics table answers without reading the rows. */
export interface StatisticsAnswer {
  readonly table: TableName;
  readonly measure: string;
  /** Aggregation methods as `$apply` names them (services/api/query/measures.ts). */
  readonly methods: readonly string[];
}

/** `$apply` (OData Data Aggregation): what groups, what aggregates and what statistics answer. */
export interface ApplyDoor {
  /**
   * The dimensions `groupby` accepts: a vocabulary, a year, an identifier of a bounded set (a location, a dataset, a
   * guideline). Never a key of the rows, a measure, a coordinate or free text: each group is a row of the answer.
   */
  readonly groupBy: readonly string[];
  readonly measures: readonly MeasureDecl[];
  /** What `countdistinct` counts besides the measures: identifiers and dimensions (`LocationId with countdistinct as Sites`). */
  readonly distinct: readonly string[];
  /** Counts (and `countdistinct` of a dimension) come from the `$count` door's statistics; these answer methods of measures. */
  readonly statistics: readonly StatisticsAnswer[];
}

/** An OGC API – Features collection over the resource (services/api/ogc/). */
export interface OgcDoor {
  /** Its id in `/v1/features/collections/{id}`: a contract once published. */
  readonly id: string;
  readonly title: string;
  readonly description: string;
  /** The dimensions of the feature's point: what `Latitude` and `Longitude` of an envelope (bbox) mean here. */
  readonly point: { readonly latitude: string; readonly longitude: string };
  /** The date `datetime` filters on, when not ActivityStartDate. */
  readonly datetime?: string;
  /** Filter names the collection accepts besides the resource's (the observations' coordinates, for bbox). */
  readonly filterable?: readonly string[];
}

/** What a citation of the resource's rows credits (services/api/routes/citation.ts). */
export interface CitationDoor {
  /** The datasets the rows come from, by their DOI column. */
  readonly datasets: boolean;
  /** The guidelines the rows rest on: the rows are guidelines (`row`), or name one in a column; `none`. */
  readonly guidelines: 'none' | 'row' | { readonly column: string };
}

/**
 * Every door a resource offers, declared beside its fields: the planner, the compilers, `$metadata`, OpenAPI, OGC,
 * MCP and llms.txt read these, never the resource's table name. A door left out (`none`, `false`, `[]`) answers a
 * 400 or a 404 that says where the door is.
 */
export interface ResourceDoors {
  readonly pages: PagesDoor;
  readonly count: CountDoor;
  readonly apply: ApplyDoor | 'none';
  /** `/v1/export/{resource}`: every matching row in one file. */
  readonly export: boolean;
  readonly ogc: OgcDoor | 'none';
  readonly citation: CitationDoor;
  /** Offered to assistants by the MCP tools (describe, count, query, cite; aggregate and list_values with `apply`). */
  readonly mcp: boolean;
  /** Each dataset's bulk files of this resource (schemas/publication-files.ts), listed by `/v1/downloads`. */
  readonly files: readonly DownloadFormat[];
}

interface ResourceBase extends ResourceDoors {
  readonly name: ResourceName;
  /** Entity type name in `$metadata`. */
  readonly entityType: string;
  /** Key field; `$skiptoken=Id:<key>` pages by it (UUID text order on Metadata). */
  readonly key: 'Id';
  readonly fields: readonly FieldDef[];
  /** Names of the dimensions (see `dimensions`, then `ownDimensions`) `$filter` accepts on this resource. */
  readonly filterable: readonly string[];
  /**
   * A resource on a table of its own: a dimension for each of its fields that no shared dimension names (the shared
   * ones list this table's column themselves), looked up before the shared ones.
   */
  readonly ownDimensions?: readonly DimensionDef[];
  readonly description: string;
}

/** A resource: its kind with the table that serves it, its fields and filters, and every door it offers. */
export type ResourceDef = ResourceBase &
  (
    | { readonly kind: 'datasets'; readonly table: 'datasets' }
    | { readonly kind: 'locations'; readonly table: 'locations' }
    | { readonly kind: 'observations'; readonly table: 'observations' }
    | { readonly kind: 'own-table'; readonly table: OwnTable }
  );

/** The table of a resource. */
export type ResourceTable = ResourceDef['table'];
