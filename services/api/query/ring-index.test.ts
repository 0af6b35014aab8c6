/**
 * The banded ring against a plain scan from the definitions (on a segment: collinear and within its box; inside:
 * the winding number of testing/winding-number.ts is not zero), on rings that are long, thin, combs and stars, at random points and
 * at every vertex and edge midpoint; and its cost on the zigzag that made matching quadratic (issue 47 item 1).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexRing } from './ring-index.js';
import { winding } from '../testing/winding-number.js';

type P = [number, number];
const flat = (ring: readonly P[]) => Float64Array.from(ring.flat());

function onSegment(ring: readonly P[], x: number, y: number): boolean {
  return ring.slice(1).some(([bx, by], i) => {
    const [ax, ay] = ring[i]!;
    return (bx - ax) * (y - ay) === (by - ay) * (x - ax) && x >= Math.min(ax, bx) && x <= Math.max(ax, bx) && y >= Math.min(ay, by) && y <= Math.max(ay, by);
  });
}


/** Teeth across the longitudes (every edge the ring's width), or across the latitudes when `vertical`. */
function comb(n: number, vertical = false): P[] {
  const teeth = Array.from({ length: n }, (_, i) => [i % 2 === 0 ? 1 : 20, i / 100] as P);
  const ring: P[] = [[0, 0], ...teeth, [0, n / 100], [0, 0]];
  return vertical ? ring.map(([x, y]) => [y, x]) : ring;
}

function star(n: number): P[] {
  const ring = Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n;
    const r = 10 * (0.5 + 0.5 * Math.abs(Math.sin(5 * a)));
    return [Math.round(r * Math.cos(a) * 1e4) / 1e4, Math.round(r * Math.sin(a) * 1e4) / 1e4] as P;
  });
  return [...ring, ring[0]!];
}

describe('indexRing', () => {
  it.each([
    ['a comb of horizontal teeth', comb(500)],
    ['a comb of vertical teeth', comb(500, true)],
    ['a star', star(400)],
    ['a small square (scanned whole)', [[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]] as P[]],
  ])('%s: on an edge and inside exactly as the plain definitions say', (_name, ring) => {
    const index = indexRing(flat(ring));
    const xs = ring.map((p) => p[0]);
    const ys = ring.map((p) => p[1]);
    const [x0, x1, y0, y1] = [Math.min(...xs) - 1, Math.max(...xs) + 1, Math.min(...ys) - 1, Math.max(...ys) + 1];
    // Vertices and edge midpoints for onEdge; a midpoint off its edge by a rounding is inside or out depending on
    // the ray's direction, as in any crossing-number test, so `inside` is compared at random points.
    const edgePoints: P[] = [...ring, ...ring.slice(1).map(([bx, by], i) => [(ring[i]![0] + bx) / 2, (ring[i]![1] + by) / 2] as P)];
    for (const [x, y] of edgePoints) expect([x, y, index.onEdge(x, y)]).toEqual([x, y, onSegment(ring, x, y)]);
    fc.assert(
      fc.property(fc.double({ min: x0, max: x1, noNaN: true }), fc.double({ min: y0, max: y1, noNaN: true }), (x, y) => {
        const on = onSegment(ring, x, y);
        expect([x, y, index.onEdge(x, y)]).toEqual([x, y, on]);
        if (!on) expect([x, y, index.inside(x, y)]).toEqual([x, y, winding(ring, x, y) !== 0]);
      }),
      { seed: 47, numRuns: 3000 },
    );
  });

  it('tests a point against a few edges of a 10,000-vertex comb, either way round, not all of them', () => {
    expect(indexRing(flat(comb(10_000))).maxBand).toBeLessThanOrEqual(16);
    expect(indexRing(flat(comb(10_000, true))).maxBand).toBeLessThanOrEqual(16);
  });
});
