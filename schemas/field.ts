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

export function isOwnTable(table: string): table is OwnTable {
  return (ownTables as readonly string[]).includes(table);
}

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

export interface ResourceDef {
  readonly name: ResourceName;
  /** Entity type name in `$metadata`. */
  readonly entityType: string;
  readonly table: 'datasets' | 'locations' | 'observations' | OwnTable;
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
