/**
 * A ring (or line) of a location test with its edges banded, so one location is tested against the few edges near
 * it instead of all of them (issue 47 item 1's other half): matching is per location, in JS, and a 10,000-vertex
 * outline over a hub's 62,000 locations was 600 million edge tests on the event loop. Edges are put in every band
 * their range covers, along whichever axis puts fewer in each band (a comb of long horizontal teeth is banded by
 * latitude, a comb of vertical ones by longitude), and the ray of the crossing-number test runs along the other axis,
 * so the edges it may cross are exactly those of the location's band. A ring of a few edges, or one whose edges
 * span most bands on both axes (GEOMETRY_LIMITS' pair budget refuses most such shapes first), is scanned whole.
 */

export interface RingIndex {
  /** On some edge (ends included). */
  onEdge(x: number, y: number): boolean;
  /** Inside by the crossing number; the point is known not to be on the ring. */
  inside(x: number, y: number): boolean;
  /** The most edges any one point is tested against: the index's cost, for tests and budgets. */
  readonly maxBand: number;
}

/** Below this many edges a scan is as quick as a lookup. */
const MIN_INDEXED = 32;
/** Band entries allowed per edge on average before the index is not worth its memory. */
const MAX_FILL = 16;

/** `coords`: x0, y0, x1, y1, … as location-matcher flattens a ring or line. */
export function indexRing(coords: Float64Array): RingIndex {
  const edges = coords.length / 2 - 1;
  if (edges >= MIN_INDEXED) {
    const bands = Math.min(4096, Math.ceil(edges / 4));
    const [byX, byY] = [banding(coords, 0, bands), banding(coords, 1, bands)];
    const best = byX.entries <= byY.entries ? byX : byY;
    if (best.entries <= MAX_FILL * edges) return banded(coords, best);
  }
  const all = Int32Array.from({ length: Math.max(0, edges) }, (_, i) => 2 * i + 2);
  return scanning(coords, all);
}

interface Banding {
  readonly axis: 0 | 1;
  readonly min: number;
  readonly size: number;
  readonly count: number;
  readonly entries: number;
}

function banding(c: Float64Array, axis: 0 | 1, count: number): Banding {
  let [min, max] = [Infinity, -Infinity];
  for (let i = axis; i < c.length; i += 2) [min, max] = [Math.min(min, c[i]!), Math.max(max, c[i]!)];
  const size = max > min ? (max - min) / count : 1;
  let entries = 0;
  for (let i = 2; i < c.length; i += 2) {
    const [a, b] = [c[i - 2 + axis]!, c[i + axis]!];
    entries += band(Math.max(a, b), min, size, count) - band(Math.min(a, b), min, size, count) + 1;
  }
  return { axis, min, size, count, entries };
}

const band = (v: number, min: number, size: number, count: number) => Math.min(count - 1, Math.max(0, Math.floor((v - min) / size)));

function banded(c: Float64Array, b: Banding): RingIndex {
  const lists: number[][] = Array.from({ length: b.count }, () => []);
  for (let i = 2; i < c.length; i += 2) {
    const [p, q] = [c[i - 2 + b.axis]!, c[i + b.axis]!];
    for (let k = band(Math.min(p, q), b.min, b.size, b.count); k <= band(Math.max(p, q), b.min, b.size, b.count); k++) lists[k]!.push(i);
  }
  const bands = lists.map((l) => Int32Array.from(l));
  const at = (x: number, y: number) => bands[band(b.axis === 0 ? x : y, b.min, b.size, b.count)]!;
  return {
    onEdge: (x, y) => onSome(c, at(x, y), x, y),
    // The ray runs across the bands: along x when banded by y, along y when banded by x.
    inside: (x, y) => (b.axis === 1 ? crossesAlongX(c, at(x, y), x, y) : crossesAlongY(c, at(x, y), x, y)),
    maxBand: Math.max(...bands.map((l) => l.length)),
  };
}

function scanning(c: Float64Array, all: Int32Array): RingIndex {
  return { onEdge: (x, y) => onSome(c, all, x, y), inside: (x, y) => crossesAlongX(c, all, x, y), maxBand: all.length };
}

/** `edges`: the index of each edge's end in `c` (its start two before). */
function onSome(c: Float64Array, edges: Int32Array, x: number, y: number): boolean {
  for (const i of edges) {
    const [ax, ay, bx, by] = [c[i - 2]!, c[i - 1]!, c[i]!, c[i + 1]!];
    if (x < Math.min(ax, bx) || x > Math.max(ax, bx) || y < Math.min(ay, by) || y > Math.max(ay, by)) continue;
    if ((bx - ax) * (y - ay) - (by - ay) * (x - ax) === 0) return true;
  }
  return false;
}

/** Crossing number of a ray toward +x, half-open in y so a ray through a vertex counts once. */
function crossesAlongX(c: Float64Array, edges: Int32Array, x: number, y: number): boolean {
  let inside = false;
  for (const i of edges) {
    const [ax, ay, bx, by] = [c[i - 2]!, c[i - 1]!, c[i]!, c[i + 1]!];
    if (ay > y !== by > y && x < ((bx - ax) * (y - ay)) / (by - ay) + ax) inside = !inside;
  }
  return inside;
}

/** The same with a ray toward +y, half-open in x. */
function crossesAlongY(c: Float64Array, edges: Int32Array, x: number, y: number): boolean {
  let inside = false;
  for (const i of edges) {
    const [ax, ay, bx, by] = [c[i - 2]!, c[i - 1]!, c[i]!, c[i + 1]!];
    if (ax > x !== bx > x && y < ((by - ay) * (x - ax)) / (bx - ax) + ay) inside = !inside;
  }
  return inside;
}
