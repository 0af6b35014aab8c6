/**
 * CQL2-JSON (OGC 21-065 §8.2, `filter-lang=cql2-json`, and the body of a POSTed items query) into the same
 * expression tree as CQL2-Text and `$filter`: the same subset, the same limits, geometry as GeoJSON checked by the
 * one geometry check (odata/geometry.ts). JSON has no positions a client could read, so errors name the member
 * instead, as a JSON Pointer (`/args/1/coordinates`), and carry offset 0.
 */
import type { CompareOp, Expr, Geometry, Literal, Position, Property, SpatialRelation, StringLiteral } from '../odata/ast.js';
import { FILTER_LIMITS } from '../odata/boolean-parser.js';
import { GeometryBudget, geometryProblem } from '../odata/geometry.js';
import { ODataError, type ODataErrorCode } from '../odata/odata-error.js';
import { Cursor } from './cursor.js';
import { likeExpr } from './like-expr.js';
import { DISTANCE_UNITS, GEOMETRY_PROPERTY, spatialExpr } from './spatial-expr.js';

const COMPARE: Readonly<Record<string, CompareOp>> = { '=': 'eq', '<>': 'ne', '<': 'lt', '>': 'gt', '<=': 'le', '>=': 'ge' };
const FLIPPED: Readonly<Record<CompareOp, CompareOp>> = { eq: 'eq', ne: 'ne', lt: 'gt', gt: 'lt', le: 'ge', ge: 'le' };
const SPATIAL: Readonly<Record<string, { relation: SpatialRelation; swapped: SpatialRelation; negated?: true }>> = {
  s_intersects: { relation: 'intersects', swapped: 'intersects' },
  s_disjoint: { relation: 'intersects', swapped: 'intersects', negated: true },
  s_within: { relation: 'within', swapped: 'contains' },
  s_contains: { relation: 'contains', swapped: 'within' },
  s_equals: { relation: 'equals', swapped: 'equals' },
  s_touches: { relation: 'touches', swapped: 'touches' },
  s_overlaps: { relation: 'overlaps', swapped: 'overlaps' },
  s_crosses: { relation: 'crosses', swapped: 'crosses' },
};
const GEOJSON_TYPES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection']);
const EXAMPLE = '{"op": "s_intersects", "args": [{"property": "geometry"}, {"type": "Polygon", "coordinates": [[[-120, 49], [-110, 49], [-110, 60], [-120, 49]]]}]}';

/**
 * Parse CQL2-JSON text (or an already parsed value). Throws `ODataError` naming `parameter` and the member.
 *
 * @example
 * parseCql2Json('{"op": "=", "args": [{"property": "CharacteristicName"}, "pH"]}')
 * // → { kind: 'compare', op: 'eq', property: { name: 'CharacteristicName' }, value: { kind: 'string', value: 'pH' } }
 */
export function parseCql2Json(input: string | unknown, parameter = 'filter'): Expr {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw new ODataError('invalid_filter', `${parameter} is not JSON (${(err as Error).message}): send a CQL2-JSON expression, e.g. ${EXAMPLE}`, { parameter, offset: 0 });
    }
  }
  return new JsonParser(parameter).expression(value, '', 0);
}

class JsonParser {
  private terms = 0;
  /** Every literal of the filter draws from one budget (GEOMETRY_LIMITS). */
  private readonly geometryBudget = new GeometryBudget();

  constructor(private readonly parameter: string) {}

  expression(node: unknown, at: string, depth: number): Expr {
    if (depth > FILTER_LIMITS.maxDepth) throw this.error('too_deep', at, `nests expressions more than ${FILTER_LIMITS.maxDepth} deep: flatten it`);
    if (typeof node !== 'object' || node === null || Array.isArray(node) || typeof (node as { op?: unknown }).op !== 'string') {
      throw this.error('invalid_filter', at, `is not an expression: an expression is an object {"op": …, "args": […]}, e.g. ${EXAMPLE}`);
    }
    const op = ((node as { op: string }).op).toLowerCase();
    const args = (node as { args?: unknown }).args;
    if (!Array.isArray(args)) throw this.error('invalid_filter', `${at}/args`, `must be an array of the ${op} operator's arguments`);
    this.count(at);
    if (op === 'and' || op === 'or') {
      if (args.length < 2) throw this.error('invalid_filter', `${at}/args`, `of ${op} needs at least two expressions`);
      return args.map((a, i) => this.expression(a, `${at}/args/${i}`, depth + 1)).reduce((left, right) => ({ kind: op, left, right }));
    }
    if (op === 'not') return { kind: 'not', operand: this.expression(this.only(args, 1, at, op)[0], `${at}/args/0`, depth + 1) };
    // Own members only: `in` also finds Object.prototype's, and {"op": "constructor"} was a 500 (issue 47 item 10).
    if (Object.hasOwn(COMPARE, op)) return this.comparison(COMPARE[op]!, this.only(args, 2, at, op), at);
    if (op === 'like') return this.like(this.only(args, 2, at, op), at);
    if (op === 'between') return this.between(this.only(args, 3, at, op), at);
    if (op === 'in') return this.inList(this.only(args, 2, at, op), at);
    if (op === 'isnull') return { kind: 'compare', op: 'eq', property: this.property(this.only(args, 1, at, op)[0], `${at}/args/0`, op), value: { kind: 'null', offset: 0 }, offset: 0 };
    if (Object.hasOwn(SPATIAL, op)) return this.spatial(SPATIAL[op]!, this.only(args, 2, at, op), at);
    if (op === 's_dwithin' || op === 'dwithin' || op === 'beyond') return this.distance(op === 'beyond' ? 'gt' : 'le', this.only(args, 4, at, op), at);
    throw this.error('unsupported_function', `${at}/op`, `'${op}' is not supported: the operators are and, or, not, = <> < <= > >=, like, between, in, isNull, s_intersects, s_within, s_contains, s_disjoint, s_equals, s_touches, s_overlaps, s_crosses and s_dwithin`);
  }

  private comparison(op: CompareOp, [a, b]: unknown[], at: string): Expr {
    const left = this.scalar(a, `${at}/args/0`);
    const right = this.scalar(b, `${at}/args/1`);
    if (left.kind === 'property' && right.kind !== 'property') return { kind: 'compare', op, property: left, value: right, offset: 0 };
    if (left.kind !== 'property' && right.kind === 'property') return { kind: 'compare', op: FLIPPED[op], property: right, value: left, offset: 0 };
    throw this.error('unsupported_expression', `${at}/args`, 'must compare one property with one value');
  }

  private like([a, b]: unknown[], at: string): Expr {
    const property = this.property(a, `${at}/args/0`, 'like');
    if (typeof b !== 'string') throw this.error('invalid_filter', `${at}/args/1`, 'of like must be a text pattern, e.g. "pH%"');
    const pattern: StringLiteral = { kind: 'string', value: b, offset: 0 };
    return likeExpr(new Cursor([{ kind: 'end', offset: 0 }], this.parameter), property, pattern);
  }

  private between([a, b, c]: unknown[], at: string): Expr {
    const property = this.property(a, `${at}/args/0`, 'between');
    const [low, high] = [this.value(b, `${at}/args/1`), this.value(c, `${at}/args/2`)];
    return { kind: 'and', left: { kind: 'compare', op: 'ge', property, value: low, offset: 0 }, right: { kind: 'compare', op: 'le', property, value: high, offset: 0 } };
  }

  private inList([a, b]: unknown[], at: string): Expr {
    const property = this.property(a, `${at}/args/0`, 'in');
    if (!Array.isArray(b) || b.length === 0) throw this.error('invalid_filter', `${at}/args/1`, 'of in must be a non-empty array of values');
    if (b.length > FILTER_LIMITS.maxInValues) throw this.error('too_many_values', `${at}/args/1`, `has ${b.length} values; the limit is ${FILTER_LIMITS.maxInValues}: split the request`);
    return { kind: 'in', property, values: b.map((v, i) => this.value(v, `${at}/args/1/${i}`)), offset: 0 };
  }

  private spatial(fn: { relation: SpatialRelation; swapped: SpatialRelation; negated?: true }, [a, b]: unknown[], at: string): Expr {
    const [first, second] = [this.spatialArgument(a, `${at}/args/0`), this.spatialArgument(b, `${at}/args/1`)];
    if ((first === undefined) === (second === undefined)) throw this.error('unsupported_expression', `${at}/args`, `must be {"property": "${GEOMETRY_PROPERTY}"} and one geometry`);
    const geometry = (first ?? second)!;
    const expr = spatialExpr(first === undefined ? fn.relation : fn.swapped, geometry, 0);
    return fn.negated ? { kind: 'not', operand: expr } : expr;
  }

  private distance(op: 'le' | 'gt', [a, b, c, d]: unknown[], at: string): Expr {
    const [first, second] = [this.spatialArgument(a, `${at}/args/0`), this.spatialArgument(b, `${at}/args/1`)];
    const center = first ?? second;
    if ((first === undefined) === (second === undefined) || center?.type !== 'Point') {
      throw this.error('unsupported_expression', `${at}/args`, `must be {"property": "${GEOMETRY_PROPERTY}"}, a Point, a distance and its units, e.g. [{"property": "geometry"}, {"type": "Point", "coordinates": [-114, 51]}, 10, "kilometers"]`);
    }
    const perUnit = typeof d === 'string' ? DISTANCE_UNITS.get(d.toLowerCase()) : undefined;
    if (perUnit === undefined) throw this.error('invalid_filter', `${at}/args/3`, `must be a unit: ${[...DISTANCE_UNITS.keys()].join(', ')}`);
    if (typeof c !== 'number' || !(c >= 0)) throw this.error('invalid_filter', `${at}/args/2`, 'must be a distance, a number zero or more');
    return { kind: 'distance', center: center.coordinates, op, metres: c * perUnit, offset: 0 };
  }

  /** `{"property": "geometry"}` (undefined) or a geometry literal. */
  private spatialArgument(node: unknown, at: string): Geometry | undefined {
    const object = node as Record<string, unknown> | null;
    if (object && typeof object === 'object' && 'property' in object) {
      if (object['property'] !== GEOMETRY_PROPERTY) throw this.error('unsupported_expression', at, `is not a geometry: the one spatial property is "${GEOMETRY_PROPERTY}" (the location's point)`);
      return undefined;
    }
    const geometry = this.geometry(node, at, 0);
    const problem = geometryProblem(geometry, this.geometryBudget);
    if (problem) throw this.error('invalid_geometry', at, problem);
    return geometry;
  }

  private geometry(node: unknown, at: string, depth: number): Geometry {
    const object = node as Record<string, unknown> | null;
    if (object && typeof object === 'object' && Array.isArray(object['bbox']) && object['type'] === undefined) {
      const box = object['bbox'] as unknown[];
      if (box.length !== 4 || !box.every((n) => typeof n === 'number')) throw this.error('invalid_geometry', `${at}/bbox`, 'must be four numbers: west, south, east, north (locations have no elevation)');
      return { type: 'BBox', bbox: box as [number, number, number, number] };
    }
    const type = object && typeof object === 'object' ? object['type'] : undefined;
    if (typeof type !== 'string' || !GEOJSON_TYPES.has(type)) {
      throw this.error('invalid_geometry', at, `is not a geometry: give GeoJSON (${[...GEOJSON_TYPES].join(', ')}) or {"bbox": [west, south, east, north]}`);
    }
    if (type === 'GeometryCollection') {
      const members = object!['geometries'];
      if (!Array.isArray(members)) throw this.error('invalid_geometry', `${at}/geometries`, 'must be an array of geometries');
      if (depth >= 4) throw this.error('invalid_geometry', at, 'nests collections too deep');
      return { type, geometries: members.map((m, i) => this.geometry(m, `${at}/geometries/${i}`, depth + 1)) };
    }
    const levels = { Point: 0, MultiPoint: 1, LineString: 1, MultiLineString: 2, Polygon: 2, MultiPolygon: 3 }[type as 'Point']!;
    const coordinates = this.coordinates(object!['coordinates'], `${at}/coordinates`, levels);
    return { type, coordinates } as Geometry;
  }

  /** Nested arrays `levels` deep above positions of exactly two numbers. */
  private coordinates(node: unknown, at: string, levels: number): unknown {
    if (!Array.isArray(node)) throw this.error('invalid_geometry', at, levels === 0 ? 'must be a position [longitude, latitude]' : 'must be an array');
    if (levels > 0) return node.map((n, i) => this.coordinates(n, `${at}/${i}`, levels - 1));
    if (node.length !== 2 || !node.every((n) => typeof n === 'number')) throw this.error('invalid_geometry', at, 'must be a position of two numbers, [longitude, latitude] (locations have no elevation)');
    return node as unknown as Position;
  }

  private property(node: unknown, at: string, op: string): Property {
    const scalar = this.scalar(node, at);
    if (scalar.kind !== 'property') throw this.error('unsupported_expression', at, `must be a property, {"property": "Name"}, as the first argument of ${op}`);
    return scalar;
  }

  private value(node: unknown, at: string): Literal {
    const scalar = this.scalar(node, at);
    if (scalar.kind === 'property') throw this.error('unsupported_expression', at, 'must be a value, not a property');
    return scalar;
  }

  private scalar(node: unknown, at: string): Property | Literal {
    if (typeof node === 'string') return { kind: 'string', value: node, offset: 0 };
    if (typeof node === 'number' && Number.isFinite(node)) return { kind: 'number', text: String(node), value: node, integer: Number.isInteger(node), offset: 0 };
    if (typeof node === 'boolean') return { kind: 'boolean', value: node, offset: 0 };
    if (node === null) return { kind: 'null', offset: 0 };
    const object = node as Record<string, unknown>;
    if (typeof object === 'object' && !Array.isArray(object)) {
      if (typeof object['property'] === 'string') {
        if (object['property'] === GEOMETRY_PROPERTY) throw this.error('unsupported_expression', at, `"${GEOMETRY_PROPERTY}" can only be tested with a spatial operator, e.g. ${EXAMPLE}`);
        return { kind: 'property', name: object['property'], offset: 0 };
      }
      if (typeof object['date'] === 'string') return { kind: 'date', value: object['date'], offset: 0 };
      if (typeof object['timestamp'] === 'string') return { kind: 'datetime', value: object['timestamp'], offset: 0 };
    }
    throw this.error('invalid_filter', at, 'is not a property or a value: write {"property": "Name"}, "text", a number, true/false, {"date": "2020-01-31"} or {"timestamp": "2020-01-31T10:00:00Z"}');
  }

  private only(args: unknown[], n: number, at: string, op: string): unknown[] {
    if (args.length !== n) throw this.error('invalid_filter', `${at}/args`, `of ${op} must hold ${n} argument${n === 1 ? '' : 's'}, found ${args.length}`);
    return args;
  }

  private count(at: string): void {
    if (++this.terms > FILTER_LIMITS.maxTerms) throw this.error('too_many_terms', at, `brings the filter past ${FILTER_LIMITS.maxTerms} expressions: split the request`);
  }

  private error(code: ODataErrorCode, at: string, what: string): ODataError {
    return new ODataError(code, `The member ${at || '/'} ${what} (CQL2-JSON in ${this.parameter}).`, { parameter: this.parameter, offset: 0 });
  }
}
