/**
 * The spatial tests' independent oracle for "inside a ring": the winding number (nonzero inside), a different
 * algorithm from the crossing number the API uses (query/ring-index.ts), so the two agree only when both are right.
 * Points on an edge are each test's own concern.
 */
export function winding(ring: readonly (readonly [number, number])[], x: number, y: number): number {
  let w = 0;
  for (let i = 1; i < ring.length; i++) {
    const [[ax, ay], [bx, by]] = [ring[i - 1]!, ring[i]!];
    const side = (bx - ax) * (y - ay) - (x - ax) * (by - ay);
    if (ay <= y && by > y && side > 0) w++;
    else if (ay > y && by <= y && side < 0) w--;
  }
  return w;
}
