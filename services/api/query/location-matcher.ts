/**
 * A location test (a shape and a relation, or a distance) as a function of one point, plus the latitude/longitude
 * window outside which no point can pass: execution reads the locations in that window and keeps those that pass
 * (exec/resolve-locations.ts). Everything is evaluated per location, never per observation.
 *
 * A point location relates to a geometry by where it lies: in its interior, on its boundary or outside (OGC Simple
 * Features' DE-9IM reduced to a point). A polygon's boundary is its rings, edges and vertices included; a line's
 * is its two ends (a closed line has none; for several lines, the ends shared by an odd number of them); a point's
 * is empty. Members of a MULTIPOLYGON or GEOMETRYCOLLECTION are taken together: interior when the point is inside
 * any member, else boundary when on any member's boundary. Then, for the location p and the literal g:
 *   intersects: not outside · within: interior · touches: boundary · contains, equals: g is p itself (points only)
 *   · overlaps, crosses: never (both need a part of p outside g and a part inside, and a point has one part).
 * Coordinates are planar longitude/latitude; a point also tries λ+360 and λ−360, so shapes written across the
 * antimeridian with longitudes past ±180 match the locations beyond it.
 */
import type { Geometry, Position } from '../odata/ast.js';
import type { LocationTest } from './plan.js';
import { indexRing, type RingIndex } from './ring-index.js';
import { assertNever } from '../assert-never.js';

type Where = 'interior' | 'boundary' | 'exterior';

/** The latitude and longitude ranges a matching location lies in; longitude undefined means any. */
export interface LocationWindow {
  readonly south: number;
  readonly north: number;
  readonly west?: number;
  readonly east?: number;
}

export interface LocationMatcher {
  /** Undefined when no location can pass (S_OVERLAPS, S_CROSSES, a shape with no point inside −90…90). */
  readonly window: LocationWindow | undefined;
  matches(longitude: number, latitude: number): boolean;
}

/** Mean Earth radius (IUGG), metres: distances are great-circle distances on this sphere. */
export const EARTH_RADIUS_M = 6_371_008.8;

/**
 * @example
 * const m = locationMatcher({ kind: 'spatial', relation: 'within', geometry: { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 0]]] } });
 * m.matches(5, 1); // → true; m.matches(5, 0) → false (on the boundary)
 */
export function locationMatcher(test: LocationTest): LocationMatcher {
  if (test.kind === 'distance') return distanceMatcher(test.center, test.op, test.metres);
  const { relation, geometry } = test;
  const shape = compileShape(geometry);
  const window = windowOf(shape.bounds);
  switch (relation) {
    case 'intersects':
      return { window, matches: (x, y) => locate(shape, x, y) !== 'exterior' };
    case 'within':
      return { window, matches: (x, y) => locate(shape, x, y) === 'interior' };
    case 'touches':
      return { window, matches: (x, y) => locate(shape, x, y) === 'boundary' };
    case 'contains':
    case 'equals': {
      const points = onlyPoints(geometry);
      const same = points && points.every((p) => p[0] === points[0]![0] && p[1] === points[0]![1]) ? points[0] : undefined;
      if (!same) return { window: undefined, matches: () => false };
      return { window, matches: (x, y) => y === same[1] && [x, x + 360, x - 360].includes(same[0]) };
    }
    case 'overlaps':
    case 'crosses':
      return { window: undefined, matches: () => false };
    default:
      return assertNever(relation);
  }
}

function distanceMatcher(center: Position, op: 'lt' | 'le' | 'gt' | 'ge', metres: number): LocationMatcher {
  const [lon0, lat0] = center.map((d) => (d * Math.PI) / 180) as [number, number];
  const distance = (x: number, y: number): number => {
    const [lon, lat] = [(x * Math.PI) / 180, (y * Math.PI) / 180];
    const h = Math.sin((lat - lat0) / 2) ** 2 + Math.cos(lat0) * Math.cos(lat) * Math.sin((lon - lon0) / 2) ** 2;
    return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
  };
  const compare = { lt: (d: number) => d < metres, le: (d: number) => d <= metres, gt: (d: number) => d > metres, ge: (d: number) => d >= metres }[op];
  if (op === 'gt' || op === 'ge') return { window: { south: -90, north: 90 }, matches: (x, y) => compare(distance(x, y)) };
  // Within the circle a point is at most `metres` of arc north or south of the centre: a latitude band, widened a
  // little against rounding. Longitude is left open (the band's width in longitude grows toward the poles).
  const degrees = (metres / EARTH_RADIUS_M) * (180 / Math.PI) + 1e-9;
  return { window: { south: Math.max(-90, center[1] - degrees), north: Math.min(90, center[1] + degrees) }, matches: (x, y) => compare(distance(x, y)) };
}

type Bounds = readonly [minX: number, minY: number, maxX: number, maxY: number];

/** A geometry with each ring or line as flat coordinates and its bounds, so a location is tested without allocating. */
type Shape =
  | { readonly kind: 'points'; readonly points: readonly Position[]; readonly bounds: Bounds }
  | { readonly kind: 'lines'; readonly lines: readonly RingIndex[]; readonly ends: readonly Position[]; readonly bounds: Bounds }
  | { readonly kind: 'polygons'; readonly polygons: readonly (readonly RingIndex[])[]; readonly bounds: Bounds }
  | { readonly kind: 'collection'; readonly members: readonly Shape[]; readonly bounds: Bounds };

function compileShape(g: Geometry): Shape {
  switch (g.type) {
    case 'Point':
      return { kind: 'points', points: [g.coordinates], bounds: boundsOf([g.coordinates]) };
    case 'MultiPoint':
      return { kind: 'points', points: g.coordinates, bounds: boundsOf(g.coordinates) };
    case 'LineString':
      return lines([g.coordinates]);
    case 'MultiLineString':
      return lines(g.coordinates);
    case 'Polygon':
      return polygons([g.coordinates]);
    case 'MultiPolygon':
      return polygons(g.coordinates);
    case 'GeometryCollection': {
      const members = g.geometries.map(compileShape);
      return { kind: 'collection', members, bounds: union(members.map((m) => m.bounds)) };
    }
    case 'BBox': {
      // A box across the antimeridian (west > east) is the same box with its east continued past 180.
      const [west, south, north] = [g.bbox[0], g.bbox[1], g.bbox[3]];
      const east = g.bbox[2] < west ? g.bbox[2] + 360 : g.bbox[2];
      return polygons([[[[west, south], [east, south], [east, north], [west, north], [west, south]]]]);
    }
    default:
      return assertNever(g);
  }
}

function lines(list: readonly (readonly Position[])[]): Shape {
  // Mod-2 rule (OGC 06-103r4 §6.1.8.1): an end shared by an even number of lines is not on the boundary.
  const count = new Map<string, { p: Position; n: number }>();
  for (const line of list) {
    const [a, z] = [line[0]!, line[line.length - 1]!];
    if (a[0] === z[0] && a[1] === z[1]) continue;
    for (const p of [a, z]) {
      const key = `${p[0]} ${p[1]}`;
      count.set(key, { p, n: (count.get(key)?.n ?? 0) + 1 });
    }
  }
  const ends = [...count.values()].filter((e) => e.n % 2 === 1).map((e) => e.p);
  return { kind: 'lines', lines: list.map((line) => indexRing(flat(line))), ends, bounds: boundsOf(list.flat()) };
}

function polygons(list: readonly (readonly (readonly Position[])[])[]): Shape {
  return { kind: 'polygons', polygons: list.map((rings) => rings.map((ring) => indexRing(flat(ring)))), bounds: boundsOf(list.flatMap((rings) => rings[0] ?? [])) };
}

function flat(positions: readonly Position[]): Float64Array {
  const out = new Float64Array(positions.length * 2);
  positions.forEach((p, i) => {
    out[2 * i] = p[0];
    out[2 * i + 1] = p[1];
  });
  return out;
}

function boundsOf(positions: readonly Position[]): Bounds {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of positions) {
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  return [minX, minY, maxX, maxY];
}

function union(all: readonly Bounds[]): Bounds {
  return [Math.min(...all.map((b) => b[0])), Math.min(...all.map((b) => b[1])), Math.max(...all.map((b) => b[2])), Math.max(...all.map((b) => b[3]))];
}

function windowOf([minX, minY, maxX, maxY]: Bounds): LocationWindow {
  // Past ±180 the shape wraps onto the other side: leave longitude open rather than split the window.
  return minX >= -180 && maxX <= 180 ? { south: minY, north: maxY, west: minX, east: maxX } : { south: minY, north: maxY };
}

const RANK: Readonly<Record<Where, number>> = { exterior: 0, boundary: 1, interior: 2 };

/** Where the location lies, trying its longitude as written and one turn either way. */
function locate(shape: Shape, x: number, y: number): Where {
  let best: Where = 'exterior';
  for (const lon of [x, x + 360, x - 360]) {
    const here = locateAt(shape, lon, y);
    if (RANK[here] > RANK[best]) best = here;
    if (best === 'interior') break;
  }
  return best;
}

function locateAt(shape: Shape, x: number, y: number): Where {
  const [minX, minY, maxX, maxY] = shape.bounds;
  if (x < minX || x > maxX || y < minY || y > maxY) return 'exterior';
  switch (shape.kind) {
    case 'points':
      return shape.points.some((p) => p[0] === x && p[1] === y) ? 'interior' : 'exterior';
    case 'lines':
      if (shape.ends.some((p) => p[0] === x && p[1] === y)) return 'boundary';
      return shape.lines.some((line) => line.onEdge(x, y)) ? 'interior' : 'exterior';
    case 'polygons': {
      let found: Where = 'exterior';
      for (const rings of shape.polygons) {
        const here = inPolygon(rings, x, y);
        if (here === 'interior') return here;
        if (here === 'boundary') found = here;
      }
      return found;
    }
    case 'collection': {
      let found: Where = 'exterior';
      for (const member of shape.members) {
        const here = locateAt(member, x, y);
        if (here === 'interior') return here;
        if (here === 'boundary') found = here;
      }
      return found;
    }
    default:
      return assertNever(shape);
  }
}

/** A polygon (outer ring, then holes): on any ring is boundary; inside the outer ring and no hole is interior. */
function inPolygon(rings: readonly RingIndex[], x: number, y: number): Where {
  for (const ring of rings) if (ring.onEdge(x, y)) return 'boundary';
  if (!rings[0]!.inside(x, y)) return 'exterior';
  for (let h = 1; h < rings.length; h++) if (rings[h]!.inside(x, y)) return 'exterior';
  return 'interior';
}

function onlyPoints(g: Geometry): Position[] | undefined {
  if (g.type === 'Point') return [g.coordinates];
  if (g.type === 'MultiPoint') return [...g.coordinates];
  if (g.type !== 'GeometryCollection') return undefined;
  const parts = g.geometries.map(onlyPoints);
  return parts.every((p) => p !== undefined) ? parts.flat() as Position[] : undefined;
}
