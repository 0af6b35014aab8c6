/**
 * A map of a page's points as inline SVG: no tiles, no script, nothing fetched. Longitude and latitude are drawn
 * equirectangular around the points' box, its width scaled by the cosine of the middle latitude so distances look
 * right near the poles as at the equator. Each point links to its feature's page and names it, for keyboard and
 * screen-reader users as for the mouse.
 */
import { html, type Raw } from '../http/html-template.js';

export interface MapPoint {
  readonly lon: number;
  readonly lat: number;
  readonly label: string;
  readonly href: string;
}

const WIDTH = 640;
const MAX_HEIGHT = 400;
const PAD = 12;

export function pointsMap(points: readonly MapPoint[], caption: string): Raw {
  if (points.length === 0) return html`<p>No features on this page to map.</p>`;
  let [west, south, east, north] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of points) {
    west = Math.min(west, p.lon);
    east = Math.max(east, p.lon);
    south = Math.min(south, p.lat);
    north = Math.max(north, p.lat);
  }
  // A single place (or a line of them) still gets a box around it.
  const margin = Math.max(0.01, (east - west) * 0.05, (north - south) * 0.05);
  [west, east, south, north] = [west - margin, east + margin, Math.max(-90, south - margin), Math.min(90, north + margin)];
  const xScale = Math.cos((((south + north) / 2) * Math.PI) / 180);
  const spanX = (east - west) * xScale;
  const spanY = north - south;
  const scale = Math.min((WIDTH - 2 * PAD) / spanX, (MAX_HEIGHT - 2 * PAD) / spanY);
  const height = Math.round(spanY * scale + 2 * PAD);
  const x = (lon: number) => (PAD + (lon - west) * xScale * scale).toFixed(1);
  const y = (lat: number) => (PAD + (north - lat) * scale).toFixed(1);
  return html`<figure class="map"><svg role="group" aria-labelledby="map-title" viewBox="0 0 ${WIDTH} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">
<title id="map-title">${caption}</title>
<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#eef4f8" stroke="#57606a"/>
${points.map((p) => html`<a href="${p.href}" aria-label="${p.label}"><circle cx="${x(p.lon)}" cy="${y(p.lat)}" r="5" fill="#0a5ea8" fill-opacity="0.75" stroke="#ffffff"><title>${p.label}</title></circle></a>\n`)}</svg>
<figcaption>${caption}: longitude ${west.toFixed(3)} to ${east.toFixed(3)}, latitude ${south.toFixed(3)} to ${north.toFixed(3)} (WGS 84).</figcaption></figure>`;
}
