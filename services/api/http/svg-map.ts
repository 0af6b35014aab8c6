/**
 * The one map every HTML page draws (the landing pages, OGC's items and features): points as inline SVG, no tiles,
 * no script, nothing fetched, so a page stays one response under its CSP. Longitude and latitude are drawn
 * equirectangular around the points' box (or the box given), its width scaled by the cosine of the middle latitude
 * so a degree east and a degree north look alike there, with a graticule line per whole degree (every tenth across a
 * continent) and the box's extent in the caption. Points with a link are each an `<a>` naming its point, for keyboard
 * and screen-reader users as for the mouse (the map is then a group); without, the map is one image named by its
 * caption, and the list beside it is the accessible equivalent.
 */
import { html, type Raw } from './html-template.js';

export interface MapPoint {
  readonly lon: number;
  readonly lat: number;
  /** With `href`: the point is a link named `label`. */
  readonly label?: string;
  readonly href?: string;
}

const WIDTH = 640;
const MAX_HEIGHT = 400;
const PAD = 12;
/** The least span shown, in degrees: one point, or points a few metres apart, still get a frame around them. */
const MIN_SPAN = 0.02;

/** `bbox` ([west, south, east, north]) when the page knows its points' whole extent; else the points' own box. */
export function svgMap(points: readonly MapPoint[], caption: string, bbox?: readonly [number, number, number, number]): Raw {
  if (points.length === 0) return html`<p>No points to map.</p>`;
  const [w0, south, e0, north] = grow(bbox ?? boxOf(points));
  const k = Math.cos((((south + north) / 2) * Math.PI) / 180);
  // A tall, narrow extent is widened to the frame's shape, so the map (and its caption) keeps a readable width.
  const widen = Math.max(0, ((north - south) * (WIDTH / MAX_HEIGHT)) / k - (e0 - w0)) / 2;
  const [west, east] = [w0 - widen, e0 + widen];
  const scale = Math.min((WIDTH - 2 * PAD) / ((east - west) * k), (MAX_HEIGHT - 2 * PAD) / (north - south));
  const [width, height] = [round((east - west) * k * scale + 2 * PAD), round((north - south) * scale + 2 * PAD)];
  const x = (lon: number) => round(PAD + (lon - west) * k * scale);
  const y = (lat: number) => round(PAD + (north - lat) * scale);
  const meridians = degrees(west, east).map((lon) => html`<line x1="${x(lon)}" y1="0" x2="${x(lon)}" y2="${height}"/>`);
  const parallels = degrees(south, north).map((lat) => html`<line x1="0" y1="${y(lat)}" x2="${width}" y2="${y(lat)}"/>`);
  const linked = points.some((p) => p.href);
  const dot = (p: MapPoint) => html`<circle cx="${x(p.lon)}" cy="${y(p.lat)}" r="5" fill="#0a5ea8" fill-opacity="0.75" stroke="#ffffff">${p.label ? html`<title>${p.label}</title>` : ''}</circle>`;
  const marks = points.map((p) => (p.href ? html`<a href="${p.href}" aria-label="${p.label ?? ''}">${dot(p)}</a>\n` : dot(p)));
  const svg = linked
    ? html`<svg role="group" aria-label="${caption}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">`
    : html`<svg role="img" aria-label="${caption}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">`;
  return html`<figure class="map">${svg}
<rect width="100%" height="100%" fill="#eef4f8" stroke="#57606a"/>
<g stroke="#c5d3dd" stroke-width="1">${meridians}${parallels}</g>
${marks}</svg>
<figcaption>${caption}: longitude ${west.toFixed(3)} to ${east.toFixed(3)}, latitude ${south.toFixed(3)} to ${north.toFixed(3)} (WGS 84).</figcaption></figure>`;
}

const round = (v: number) => Math.round(v * 10) / 10;

function boxOf(points: readonly MapPoint[]): [number, number, number, number] {
  return [Math.min(...points.map((p) => p.lon)), Math.min(...points.map((p) => p.lat)), Math.max(...points.map((p) => p.lon)), Math.max(...points.map((p) => p.lat))];
}

/** The box with room around it: at least MIN_SPAN, then 5% each side, latitudes kept on the globe. */
function grow([west, south, east, north]: readonly [number, number, number, number]): [number, number, number, number] {
  const dx = Math.max(0, MIN_SPAN - (east - west)) / 2;
  const dy = Math.max(0, MIN_SPAN - (north - south)) / 2;
  const mx = (east - west + 2 * dx) * 0.05;
  const my = (north - south + 2 * dy) * 0.05;
  return [west - dx - mx, Math.max(-90, south - dy - my), east + dx + mx, Math.min(90, north + dy + my)];
}

/** Whole degrees from `a` to `b`, at most a few dozen (a continent-wide map draws every tenth). */
function degrees(a: number, b: number): number[] {
  const step = b - a > 40 ? 10 : 1;
  const out: number[] = [];
  for (let v = Math.ceil(a / step) * step; v <= b; v += step) out.push(v);
  return out;
}
