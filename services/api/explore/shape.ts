/**
 * A polygon drawn on the map, as the page's URL keeps it and as the API's filters read it. The URL holds the
 * vertices in WKT order without the closing one (`shape=-120.5 48.3,-120.1 48.3,-120.1 48.6`), rounded to five
 * decimals (about a metre), so a shared link reads like the polygon it stands for and stays short.
 */

/** [longitude, latitude] in WGS 84 degrees. */
export type Vertex = readonly [number, number];
export type Shape = readonly Vertex[];

/** A drawn shape stays well under any URL limit: each vertex costs about 25 characters once encoded. */
export const MAX_SHAPE_VERTICES = 100;

const round = (n: number): number => Math.round(n * 1e5) / 1e5;
/** Plain decimal text: rounding to five decimals keeps String() out of exponent notation. */
const num = (n: number): string => String(round(n) === 0 ? 0 : round(n));

export const vertexOf = (longitude: number, latitude: number): Vertex => [round(longitude), round(latitude)];

/** The shape of a URL value, or null when it is not one (fewer than three vertices, a number out of range, …). */
export function parseShape(text: string | null): Shape | null {
  if (!text) return null;
  const vertices = text.split(',').map((pair) => {
    const parts = pair.trim().split(/\s+/);
    const [x, y] = parts.map((p) => (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(p) ? Number(p) : NaN));
    return parts.length === 2 && x! >= -180 && x! <= 180 && y! >= -90 && y! <= 90 ? vertexOf(x!, y!) : undefined;
  });
  if (vertices.length < 3 || vertices.length > MAX_SHAPE_VERTICES || vertices.some((v) => v === undefined)) return null;
  const open = vertices as Vertex[];
  // A closed ring (first vertex repeated last) is the same polygon.
  if (open.length > 3 && open[0]![0] === open.at(-1)![0] && open[0]![1] === open.at(-1)![1]) open.pop();
  return open;
}

export const shapeParam = (shape: Shape): string => shape.map(([x, y]) => `${num(x)} ${num(y)}`).join(',');

/** The closed ring as WKT coordinates: `x y, x y, …, x0 y0`. */
const ring = (shape: Shape): string => [...shape, shape[0]!].map(([x, y]) => `${num(x)} ${num(y)}`).join(', ');

/** OData `$filter`: the locations inside the polygon (its edges included). */
export const shapeFilter = (shape: Shape): string => `geo.intersects(Location, geography'SRID=4326;POLYGON((${ring(shape)}))')`;

/** The same polygon in CQL2 text, for the OGC API – Features items (`filter=`). */
export const shapeCql2 = (shape: Shape): string => `S_INTERSECTS(geometry, POLYGON((${ring(shape)})))`;
