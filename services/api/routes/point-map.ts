/**
 * A small map as inline SVG: the points on a plate carrée scaled by the cosine of the middle latitude (so a
 * degree east and a degree north look alike there), with a graticule line per whole degree and a scale of the span.
 * No tiles and no script: the page stays one response under its CSP, and the points' list beside it is the
 * accessible equivalent.
 */
import { html, type Raw } from '../http/html-template.js';

export interface MapPoint {
  readonly longitude: number;
  readonly latitude: number;
}

const WIDTH = 480;
const HEIGHT = 300;
const PAD = 16;
/** The least span shown, in degrees: one point, or points a few metres apart, still get a frame around them. */
const MIN_SPAN = 0.02;

const round = (v: number) => Math.round(v * 10) / 10;

/** `bbox` is [west, south, east, north]; `label` names the map for screen readers. */
export function pointMap(points: readonly MapPoint[], bbox: readonly [number, number, number, number], label: string): Raw {
  const [w0, south, e0, north] = grow(bbox);
  const k = Math.cos((((south + north) / 2) * Math.PI) / 180);
  // A tall, narrow extent is widened to the frame's shape, so the map (and its caption) keeps a readable width.
  const widen = Math.max(0, ((north - south) * (WIDTH / HEIGHT)) / k - (e0 - w0)) / 2;
  const [west, east] = [w0 - widen, e0 + widen];
  const scale = Math.min((WIDTH - 2 * PAD) / ((east - west) * k), (HEIGHT - 2 * PAD) / (north - south));
  const [w, h] = [(east - west) * k * scale + 2 * PAD, (north - south) * scale + 2 * PAD];
  const x = (lon: number) => round(PAD + (lon - west) * k * scale);
  const y = (lat: number) => round(PAD + (north - lat) * scale);
  const meridians = range(Math.ceil(west), Math.floor(east)).map((lon) => html`<line x1="${x(lon)}" y1="0" x2="${x(lon)}" y2="${round(h)}"/>`);
  const parallels = range(Math.ceil(south), Math.floor(north)).map((lat) => html`<line x1="0" y1="${y(lat)}" x2="${round(w)}" y2="${y(lat)}"/>`);
  return html`<svg class="map" role="img" aria-label="${label}" viewBox="0 0 ${round(w)} ${round(h)}" width="${round(w)}" height="${round(h)}" xmlns="http://www.w3.org/2000/svg">
<rect width="100%" height="100%" fill="#eef4f8"/>
<g stroke="#c5d3dd" stroke-width="1">${meridians}${parallels}</g>
<g fill="#0b5cad" stroke="#fff" stroke-width="1">${points.map((p) => html`<circle cx="${x(p.longitude)}" cy="${y(p.latitude)}" r="4"/>`)}</g>
<text x="${PAD}" y="${round(h) - 4}" font-size="11" fill="#1b1f23">${west.toFixed(3)}°, ${south.toFixed(3)}° to ${east.toFixed(3)}°, ${north.toFixed(3)}°</text>
</svg>`;
}

function grow([west, south, east, north]: readonly [number, number, number, number]): [number, number, number, number] {
  const dx = Math.max(0, MIN_SPAN - (east - west)) / 2;
  const dy = Math.max(0, MIN_SPAN - (north - south)) / 2;
  const mx = (east - west + 2 * dx) * 0.05;
  const my = (north - south + 2 * dy) * 0.05;
  return [west - dx - mx, south - dy - my, east + dx + mx, north + dy + my];
}

/** Whole degrees from `a` to `b`, at most a few dozen (a continent-wide map draws every tenth). */
function range(a: number, b: number): number[] {
  const step = b - a > 40 ? 10 : 1;
  const out: number[] = [];
  for (let v = Math.ceil(a / step) * step; v <= b; v += step) out.push(v);
  return out;
}
