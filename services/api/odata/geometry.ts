/**
 * Geometry literals of the filter languages (CQL2's WKT and GeoJSON, OData's `geography'…'`), shaped as GeoJSON
 * so CQL2-JSON reads into them directly, and the one check every literal passes before it reaches the planner.
 *
 * Coordinates are WGS 84 longitude then latitude, and edges are straight lines in that plane, as OGC Simple
 * Features and CQL2 read them (and as shapely/GEOS compute). A shape crossing the antimeridian is written with
 * longitudes continuing past ±180 (`POLYGON((170 -20, 190 -20, 190 -10, 170 -10, 170 -20))`) or as a
 * MULTIPOLYGON split at 180 (RFC 7946 §3.1.9); the evaluator tries each location at λ, λ+360 and λ−360.
 */
import { assertNever } from '../assert-never.js';

export type Position = readonly [longitude: number, latitude: number];
export type Ring = readonly Position[];

export type Geometry =
  | { readonly type: 'Point'; readonly coordinates: Position }
  | { readonly type: 'MultiPoint'; readonly coordinates: readonly Position[] }
  | { readonly type: 'LineString'; readonly coordinates: readonly Position[] }
  | { readonly type: 'MultiLineString'; readonly coordinates: readonly (readonly Position[])[] }
  | { readonly type: 'Polygon'; readonly coordinates: readonly Ring[] }
  | { readonly type: 'MultiPolygon'; readonly coordinates: readonly (readonly Ring[])[] }
  | { readonly type: 'GeometryCollection'; readonly geometries: readonly Geometry[] }
  /** CQL2's BBOX(west, south, east, north); `west > east` crosses the antimeridian. */
  | { readonly type: 'BBox'; readonly bbox: readonly [west: number, south: number, east: number, north: number] };

export type GeometryType = Geometry['type'];

/** Limits against hostile or mistaken input; exported so docs and tests use the same numbers. */
export const GEOMETRY_LIMITS = {
  /**
   * Positions in one filter, every literal, ring and member together (a simplified watershed outline fits): the
   * limit is per filter, not per literal, so repeating a literal does not multiply what a request may cost.
   */
  maxVertices: 10_000,
  /**
   * Segment pairs the self-crossing check may compare for one filter. The check sweeps along whichever axis
   * compares fewer pairs, so an outline (even a long, thin or zigzag one) costs a few times its vertices; only a
   * shape whose edges overlap in both longitude and latitude by the thousand comes near this, and it is refused
   * rather than checked for longer than a page's first row takes.
   */
  maxSegmentPairs: 1_000_000,
  /** GEOMETRYCOLLECTION inside GEOMETRYCOLLECTION. */
  maxDepth: 4,
} as const;

/**
 * What the literals of one filter may still cost (GEOMETRY_LIMITS): each parse of a filter makes one and hands it
 * to every literal it reads, so seven large literals in one body cost what one may.
 */
export class GeometryBudget {
  positions: number = GEOMETRY_LIMITS.maxVertices;
  segmentPairs: number = GEOMETRY_LIMITS.maxSegmentPairs;
}

/**
 * What is wrong with a geometry, or undefined when it is valid: a polygon's rings are closed, have at least four
 * positions and an area, and neither cross themselves nor each other (rings may touch at a point, as OGC allows
 * of holes); latitudes lie in −90…90, longitudes in −360…360 and no part spans more than 360° of longitude.
 *
 * @example
 * geometryProblem({ type: 'Polygon', coordinates: [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]] })
 * // → 'ring 1 of the polygon crosses itself near (0.5 0.5): a ring must not cross or touch itself; …'
 */
export function geometryProblem(g: Geometry, budget: GeometryBudget = new GeometryBudget()): string | undefined {
  const vertices = countVertices(g);
  if (vertices > budget.positions) {
    const before = GEOMETRY_LIMITS.maxVertices - budget.positions;
    const earlier = before > 0 ? ` (after ${before} in the filter's earlier geometries)` : '';
    return `has ${vertices} positions${earlier}; the limit is ${GEOMETRY_LIMITS.maxVertices} per filter: simplify the outline (e.g. shapely's simplify, ogr2ogr -simplify) or split it into several requests`;
  }
  budget.positions -= vertices;
  return problemOf(g, 0, budget);
}

function problemOf(g: Geometry, depth: number, budget: GeometryBudget): string | undefined {
  switch (g.type) {
    case 'Point':
      return positionsProblem([g.coordinates], 'the point');
    case 'MultiPoint':
      return g.coordinates.length === 0 ? 'is empty: give at least one position' : positionsProblem(g.coordinates, 'the multipoint');
    case 'LineString':
      return lineProblem(g.coordinates, 'the line');
    case 'MultiLineString':
      if (g.coordinates.length === 0) return 'is empty: give at least one line';
      return first(g.coordinates.map((line, i) => () => lineProblem(line, `line ${i + 1}`)));
    case 'Polygon':
      return polygonProblem(g.coordinates, 'the polygon', budget);
    case 'MultiPolygon':
      if (g.coordinates.length === 0) return 'is empty: give at least one polygon';
      return first(g.coordinates.map((rings, i) => () => polygonProblem(rings, `polygon ${i + 1}`, budget)));
    case 'GeometryCollection':
      if (g.geometries.length === 0) return 'is empty: give at least one geometry';
      if (depth >= GEOMETRY_LIMITS.maxDepth) return `nests collections more than ${GEOMETRY_LIMITS.maxDepth} deep`;
      return first(g.geometries.map((m, i) => () => withPrefix(`member ${i + 1}`, problemOf(m, depth + 1, budget))));
    case 'BBox':
      return boxProblem(g.bbox);
    default:
      return assertNever(g);
  }
}

function countVertices(g: Geometry): number {
  switch (g.type) {
    case 'Point':
      return 1;
    case 'MultiPoint':
    case 'LineString':
      return g.coordinates.length;
    case 'MultiLineString':
    case 'Polygon':
      return g.coordinates.reduce((n, r) => n + r.length, 0);
    case 'MultiPolygon':
      return g.coordinates.reduce((n, p) => n + p.reduce((m, r) => m + r.length, 0), 0);
    case 'GeometryCollection':
      return g.geometries.reduce((n, m) => n + countVertices(m), 0);
    case 'BBox':
      return 4;
    default:
      return assertNever(g);
  }
}

function first(checks: readonly (() => string | undefined)[]): string | undefined {
  for (const check of checks) {
    const problem = check();
    if (problem) return problem;
  }
  return undefined;
}

function withPrefix(prefix: string, problem: string | undefined): string | undefined {
  return problem === undefined ? undefined : `${prefix} ${problem}`;
}

const show = (p: Position): string => `(${p[0]} ${p[1]})`;

function positionsProblem(positions: readonly Position[], what: string): string | undefined {
  for (const p of positions) {
    if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) return `${what} has a position that is not a pair of finite numbers`;
    if (p[1] < -90 || p[1] > 90) return `${what} has latitude ${p[1]} at ${show(p)}, outside −90…90: longitude comes before latitude`;
    if (p[0] < -360 || p[0] > 360) return `${what} has longitude ${p[0]} at ${show(p)}, outside −360…360 (past ±180 only to cross the antimeridian)`;
  }
  const lons = positions.map((p) => p[0]);
  if (Math.max(...lons) - Math.min(...lons) > 360) return `${what} spans more than 360° of longitude: keep each part within one turn of the globe`;
  return undefined;
}

function lineProblem(line: readonly Position[], what: string): string | undefined {
  if (line.length < 2) return `${what} has ${line.length} position${line.length === 1 ? '' : 's'}: a line needs at least two`;
  return positionsProblem(line, what);
}

function boxProblem([west, south, east, north]: readonly [number, number, number, number]): string | undefined {
  if (![west, south, east, north].every(Number.isFinite)) return 'has a value that is not a finite number';
  if (west < -180 || west > 180 || east < -180 || east > 180) return 'has a longitude outside −180…180: the order is west, south, east, north';
  if (south < -90 || south > 90 || north < -90 || north > 90) return 'has a latitude outside −90…90: the order is west, south, east, north';
  if (south > north) return 'has its south above its north: the order is west, south, east, north';
  return undefined;
}

function polygonProblem(rings: readonly Ring[], what: string, budget: GeometryBudget): string | undefined {
  if (rings.length === 0) return `${what} is empty: give at least its outer ring`;
  for (const [i, ring] of rings.entries()) {
    const name = `ring ${i + 1} of ${what}`;
    if (ring.length < 4) return `${name} has ${ring.length} positions: a ring needs at least four, the last repeating the first`;
    const [a, z] = [ring[0]!, ring[ring.length - 1]!];
    if (a[0] !== z[0] || a[1] !== z[1]) return `${name} is not closed: it starts at ${show(a)} and ends at ${show(z)}; repeat the first position at the end`;
    const problem = positionsProblem(ring, name);
    if (problem) return problem;
  }
  const crossing = crossingProblem(rings, what, budget);
  if (crossing) return crossing;
  const flat = rings.findIndex((ring) => ringArea(ring) === 0);
  return flat === -1 ? undefined : `ring ${flat + 1} of ${what} has no area: its positions lie on one line`;
}

/**
 * Twice the signed area (shoelace) of the ring moved to its first position and scaled to its extent, so only the
 * sign and zero mean anything: zero for a degenerate ring. Unscaled, a tiny valid triangle's products underflowed
 * to zero (issue 47 item 10).
 */
export function ringArea(ring: Ring): number {
  const [x0, y0] = ring[0]!;
  const s = Math.max(...ring.map((p) => Math.max(Math.abs(p[0] - x0), Math.abs(p[1] - y0))));
  if (!(s > 0)) return 0;
  let sum = 0;
  for (let i = 1; i < ring.length; i++) {
    const [ax, ay, bx, by] = [(ring[i - 1]![0] - x0) / s, (ring[i - 1]![1] - y0) / s, (ring[i]![0] - x0) / s, (ring[i]![1] - y0) / s];
    sum += ax * by - bx * ay;
  }
  return sum;
}

interface Segment {
  readonly ring: number;
  readonly index: number;
  readonly last: number;
  readonly a: Position;
  readonly b: Position;
  readonly minX: number;
  readonly maxX: number;
  readonly minY: number;
  readonly maxY: number;
}

type Axis = { readonly min: (s: Segment) => number; readonly max: (s: Segment) => number };
const AXES: readonly Axis[] = [
  { min: (s) => s.minX, max: (s) => s.maxX },
  { min: (s) => s.minY, max: (s) => s.maxY },
];

/**
 * Rings that cross themselves or each other. A sweep over segments sorted by their low end on one axis compares
 * only segments whose ranges on that axis overlap. How many pairs that is is counted first for both axes
 * (O(n log n)), and the sweep runs along the cheaper one: a zigzag across the longitudes is swept along the
 * latitudes, where its edges do not overlap. A shape costly on both axes is refused before any pair is compared.
 */
function crossingProblem(rings: readonly Ring[], what: string, budget: GeometryBudget): string | undefined {
  const segments: Segment[] = [];
  rings.forEach((ring, r) => {
    for (let i = 1; i < ring.length; i++) {
      const [a, b] = [ring[i - 1]!, ring[i]!];
      if (a[0] === b[0] && a[1] === b[1]) continue;
      const [minX, maxX, minY, maxY] = [Math.min(a[0], b[0]), Math.max(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[1], b[1])];
      segments.push({ ring: r, index: i, last: ring.length - 1, a, b, minX, maxX, minY, maxY });
    }
  });
  const [axis, pairs] = AXES.map((axis) => [axis, candidatePairs(segments, axis)] as const).reduce((best, next) => (next[1] < best[1] ? next : best));
  if (pairs > budget.segmentPairs) {
    return `is too intricate to check: its edges overlap each other ${pairs} times in both longitude and latitude, and the limit is ${GEOMETRY_LIMITS.maxSegmentPairs} per filter: simplify the outline (e.g. shapely's simplify, ogr2ogr -simplify)`;
  }
  budget.segmentPairs -= pairs;
  segments.sort((s, t) => axis.min(s) - axis.min(t));
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    for (let j = i + 1; j < segments.length && axis.min(segments[j]!) <= axis.max(s); j++) {
      const t = segments[j]!;
      const hit = conflict(s, t);
      if (hit) {
        const where = `near ${show(hit)}`;
        return s.ring === t.ring
          ? `ring ${s.ring + 1} of ${what} crosses or touches itself ${where}: a ring must be simple; split a figure-eight into two polygons`
          : `rings ${Math.min(s.ring, t.ring) + 1} and ${Math.max(s.ring, t.ring) + 1} of ${what} cross ${where}: a hole must lie inside its outer ring and holes must not overlap`;
      }
    }
  }
  return undefined;
}

/** How many pairs a sweep along `axis` compares: for each segment, those starting within its range after it. */
function candidatePairs(segments: readonly Segment[], axis: Axis): number {
  const lows = segments.map(axis.min).sort((p, q) => p - q);
  const highs = segments.map((s) => [axis.min(s), axis.max(s)] as const).sort((p, q) => p[0] - q[0]);
  let pairs = 0;
  highs.forEach(([, high], i) => {
    // The first index whose low end lies above `high`: every segment between i and it is compared with this one.
    let [lo, hi] = [i + 1, lows.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (lows[mid]! <= high) lo = mid + 1;
      else hi = mid;
    }
    pairs += lo - i - 1;
  });
  return pairs;
}

/** Where two segments meet in a way a valid polygon forbids, or undefined. */
function conflict(s: Segment, t: Segment): Position | undefined {
  const adjacent = s.ring === t.ring && (Math.abs(s.index - t.index) === 1 || (Math.min(s.index, t.index) === 1 && Math.max(s.index, t.index) === s.last));
  const d1 = orient(t.a, t.b, s.a);
  const d2 = orient(t.a, t.b, s.b);
  const d3 = orient(s.a, s.b, t.a);
  const d4 = orient(s.a, s.b, t.b);
  if (d1 === 0 && d2 === 0) {
    // Collinear: they conflict when they share more than a point (a spike or a doubled-back edge).
    const overlap = collinearOverlap(s, t);
    return overlap;
  }
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) {
    return intersection(s.a, s.b, t.a, t.b);
  }
  if (adjacent || s.ring !== t.ring) return undefined;
  // Same ring, not neighbours: touching at all (an end on the other segment) makes the ring not simple.
  if (d1 === 0 && onSegment(t.a, t.b, s.a)) return s.a;
  if (d2 === 0 && onSegment(t.a, t.b, s.b)) return s.b;
  if (d3 === 0 && onSegment(s.a, s.b, t.a)) return t.a;
  if (d4 === 0 && onSegment(s.a, s.b, t.b)) return t.b;
  return undefined;
}

function collinearOverlap(s: Segment, t: Segment): Position | undefined {
  const horizontal = s.maxX === s.minX && t.maxX === t.minX;
  const lo = (p: Position, q: Position) => (horizontal ? Math.min(p[1], q[1]) : Math.min(p[0], q[0]));
  const hi = (p: Position, q: Position) => (horizontal ? Math.max(p[1], q[1]) : Math.max(p[0], q[0]));
  const from = Math.max(lo(s.a, s.b), lo(t.a, t.b));
  const to = Math.min(hi(s.a, s.b), hi(t.a, t.b));
  if (!(to > from)) return undefined;
  const on = [s.a, s.b, t.a, t.b].find((p) => (horizontal ? p[1] : p[0]) === from);
  return on ?? s.a;
}

/**
 * Positive when c lies left of a→b, negative right, zero on the line. The differences are scaled to the largest
 * first: their products underflowed for a tiny valid triangle (1e-200 degrees a side), which then read as a line.
 */
export function orient(a: Position, b: Position, c: Position): number {
  const [ux, uy, vx, vy] = [b[0] - a[0], b[1] - a[1], c[0] - a[0], c[1] - a[1]];
  const s = Math.max(Math.abs(ux), Math.abs(uy), Math.abs(vx), Math.abs(vy));
  if (s === 0) return 0;
  return (ux / s) * (vy / s) - (uy / s) * (vx / s);
}

/** c, known to be on the line a–b, lies between a and b (ends included). */
export function onSegment(a: Position, b: Position, c: Position): boolean {
  return c[0] >= Math.min(a[0], b[0]) && c[0] <= Math.max(a[0], b[0]) && c[1] >= Math.min(a[1], b[1]) && c[1] <= Math.max(a[1], b[1]);
}

function intersection(a: Position, b: Position, c: Position, d: Position): Position {
  const den = (a[0] - b[0]) * (c[1] - d[1]) - (a[1] - b[1]) * (c[0] - d[0]);
  const t = ((a[0] - c[0]) * (c[1] - d[1]) - (a[1] - c[1]) * (c[0] - d[0])) / den;
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return [round(a[0] + t * (b[0] - a[0])), round(a[1] + t * (b[1] - a[1]))];
}

