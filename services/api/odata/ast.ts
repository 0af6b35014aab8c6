/**
 * The typed value the query-parsing stage hands to the planner.
 *
 * Nothing here knows the catalogue: a `Property` is a name as the client
 * spelled it (case-sensitive, `Id` ≠ `ID`) plus where it was written, so the
 * planner can say "unknown field 'Foo' at position 12 of $filter". Literals
 * keep their source text because only the planner knows the field type they
 * must be coerced to (and a 19-digit id must not pass through a double).
 * Offsets are 0-based positions in the decoded value of the option they came
 * from (`$filter`, `$select` or `$apply`).
 */
import type { Format } from '../formats.js';
import type { Geometry, Position } from './geometry.js';

export type { Geometry, Position } from './geometry.js';

/** A field name as written by the client. */
export interface Property {
  readonly kind: 'property';
  readonly name: string;
  readonly offset: number;
}

/** A quoted OData string, `''` already unescaped. Quoted numbers and dates stay strings: the planner coerces. */
export interface StringLiteral {
  readonly kind: 'string';
  readonly value: string;
  readonly offset: number;
}

/** An unquoted number; `text` is exact (no precision lost), `value` is the nearest double. */
export interface NumberLiteral {
  readonly kind: 'number';
  readonly text: string;
  readonly value: number;
  /** True when `text` has no fraction and no exponent. */
  readonly integer: boolean;
  readonly offset: number;
}

export interface BooleanLiteral {
  readonly kind: 'boolean';
  readonly value: boolean;
  readonly offset: number;
}

export interface NullLiteral {
  readonly kind: 'null';
  readonly offset: number;
}

/** An unquoted `YYYY-MM-DD`; `value` is the text as written. */
export interface DateLiteral {
  readonly kind: 'date';
  readonly value: string;
  readonly offset: number;
}

/** An unquoted ISO 8601 date-time with `Z` or `±hh:mm`; `value` is the text as written. */
export interface DateTimeLiteral {
  readonly kind: 'datetime';
  readonly value: string;
  readonly offset: number;
}

export type Literal = StringLiteral | NumberLiteral | BooleanLiteral | NullLiteral | DateLiteral | DateTimeLiteral;
export type LiteralKind = Literal['kind'];

/** Comparison operators after normalisation (DataStream's `lte`/`gte` become `le`/`ge`). */
export type CompareOp = 'eq' | 'ne' | 'lt' | 'gt' | 'le' | 'ge';
export type FunctionName = 'startswith' | 'endswith' | 'contains';

/** `property op value`; a literal written first is flipped (`2020 lt Year` → `Year gt 2020`). */
export interface CompareExpr {
  readonly kind: 'compare';
  readonly op: CompareOp;
  readonly property: Property;
  readonly value: Literal;
  readonly offset: number;
}

/** `property in (v1, v2, …)`; never empty. */
export interface InExpr {
  readonly kind: 'in';
  readonly property: Property;
  readonly values: readonly Literal[];
  readonly offset: number;
}

export interface AndExpr {
  readonly kind: 'and';
  readonly left: Expr;
  readonly right: Expr;
}

export interface OrExpr {
  readonly kind: 'or';
  readonly left: Expr;
  readonly right: Expr;
}

export interface NotExpr {
  readonly kind: 'not';
  readonly operand: Expr;
}

/** `startswith(property, 'text')` and friends; the value is always a quoted string. */
export interface FunctionExpr {
  readonly kind: 'function';
  readonly name: FunctionName;
  readonly property: Property;
  readonly value: StringLiteral;
  readonly offset: number;
}

/**
 * How a location's point relates to a geometry literal, read "the location <relation> the literal": CQL2's
 * S_WITHIN(geometry, G) is `within`, S_WITHIN(G, geometry) is `contains`; S_DISJOINT is `not` of `intersects`.
 */
export type SpatialRelation = 'intersects' | 'within' | 'contains' | 'equals' | 'touches' | 'overlaps' | 'crosses';

/** A spatial predicate over the location's point: CQL2's S_… functions, OData's geo.intersects. */
export interface SpatialExpr {
  readonly kind: 'spatial';
  readonly relation: SpatialRelation;
  readonly geometry: Geometry;
  readonly offset: number;
}

/**
 * The great-circle distance from the location's point to `center` compared with `metres`: OData's
 * `geo.distance(…) le d`, CQL2's DWITHIN(geometry, POINT(…), d, unit) (`le`) and BEYOND (`gt`).
 */
export interface DistanceExpr {
  readonly kind: 'distance';
  readonly center: Position;
  readonly op: 'lt' | 'le' | 'gt' | 'ge';
  readonly metres: number;
  readonly offset: number;
}

/** A boolean `$filter` expression. */
export type Expr = CompareExpr | InExpr | AndExpr | OrExpr | NotExpr | FunctionExpr | SpatialExpr | DistanceExpr;
export type ExprKind = Expr['kind'];

/**
 * The aggregation methods of `aggregate(Field with <method> as Alias)`: the Data Aggregation Extension's standard
 * ones, and this service's custom ones (namespace `Tributary`, declared in `$metadata`).
 */
export type AggregateMethod =
  | 'sum' | 'min' | 'max' | 'average' | 'countdistinct' | 'Tributary.median' | 'Tributary.p10' | 'Tributary.p90' | 'Tributary.countnull'
  | KmAggregateMethod;

/** The statistics with non-detects (../shared/statistics/README.md §7): Kaplan–Meier where results are censored. */
export type KmAggregateMethod =
  | 'Tributary.km_median' | 'Tributary.km_p10' | 'Tributary.km_p90' | 'Tributary.km_mean'
  | 'Tributary.km_median_qualifier' | 'Tributary.km_p10_qualifier' | 'Tributary.km_p90_qualifier' | 'Tributary.km_method';

/** One item of `aggregate(…)`: `$count as Alias`, or `Field with method as Alias`. */
export type Aggregate =
  | { readonly kind: 'count'; readonly alias: string; readonly offset: number }
  | { readonly kind: 'method'; readonly property: Property; readonly method: AggregateMethod; readonly alias: string; readonly offset: number };

/**
 * `[filter(…)/]groupby((F1,…)[,aggregate(…)])` or `[filter(…)/]aggregate(…)`. No aggregates: the distinct groups
 * (Data Aggregation §3.10.1); no groups: one row over the whole input.
 */
export interface Apply {
  readonly filter?: Expr;
  readonly groupBy: readonly Property[];
  readonly aggregates: readonly Aggregate[];
  /** `/orderby(…)` after the aggregation (Data Aggregation §3.3.1): the groups' order; by the group fields when absent. */
  readonly orderBy?: readonly ApplyOrderItem[];
  /** `/top(n)` after it (§3.3.3): at most `count` groups in all, however `$top` pages them. */
  readonly top?: { readonly count: number; readonly offset: number };
}

/** One key of `$apply`'s `orderby(…)`: a grouped field or an aggregate's alias, ascending unless `desc`. */
export interface ApplyOrderItem {
  readonly name: string;
  readonly descending: boolean;
  readonly offset: number;
}

/** The keyset position of the next page, as carried in `@odata.nextLink`. */
export type SkipToken =
  | { readonly kind: 'integer'; readonly value: bigint }
  | { readonly kind: 'uuid'; readonly value: string };

/** Declared with the formats' table (formats.ts): names, media types and what each stage does with them. */
export type { Format };

/** A parsed request query string; `undefined` means the option was absent (defaults are the planner's). */
export interface Query {
  /** Absent for no `$select` and for `$select=*`. */
  readonly select?: readonly Property[];
  readonly filter?: Expr;
  readonly top?: number;
  readonly skiptoken?: SkipToken;
  readonly count: boolean;
  readonly format?: Format;
  readonly apply?: Apply;
  /** Parameters not starting with `$`, decoded, in order; ignored, kept so the link builder can drop them. */
  readonly otherParams: readonly (readonly [name: string, value: string])[];
}
