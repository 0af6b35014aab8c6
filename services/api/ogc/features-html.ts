/**
 * OGC API – Features as HTML (17-069r4 §7.12, the html conformance class): the landing page, conformance, the
 * collections, a collection, a page of items and one feature, each rendered from the very JSON document the JSON
 * encoding sends, so the two never say different things. Server-rendered, no script, every value escaped
 * (http/html-template.ts); a page of items draws its points on the one inline SVG map (http/svg-map.ts).
 */
import { html, type Raw } from '../http/html-template.js';
import { PATHS } from '../http/paths.js';
import type { Link } from './feature-links.js';
import { HTML_MEDIA, withF } from './html-negotiation.js';
import { pageShell } from '../http/page-shell.js';
import { svgMap } from '../http/svg-map.js';

/** No script, no remote anything: styles inline, links and forms to this server only. */
export const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";


interface Crumb {
  readonly title: string;
  readonly href?: string;
}

type Json = Record<string, unknown>;

function page(title: string, crumbs: readonly Crumb[], self: string, body: Raw): string {
  return pageShell({
    title: `${title} · Tributary OGC API – Features`,
    head: html`<link rel="alternate" type="application/json" href="${withF(self, 'json')}">
`,
    nav: html`<nav aria-label="Breadcrumb"><ol>${crumbs.map((c) => html`<li>${c.href ? html`<a href="${c.href}">${c.title}</a>` : html`<span aria-current="page">${c.title}</span>`}</li>`)}</ol></nav>`,
    main: html`<h1>${title}</h1>
${body}
<p>This page as JSON: <a href="${withF(self, 'json')}">${withF(self, 'json')}</a></p>`,
  });
}

/** A JSON link, shown as its HTML page where the target has one (a features path), else as it is. */
function linkItem(l: Link): Raw {
  const hasHtml = l.type === 'application/json' || l.type === 'application/geo+json';
  const target = hasHtml && l.href.includes(PATHS.features) ? withF(l.href, 'html') : l.href;
  return html`<li><a href="${target}">${l.title ?? l.href}</a> <small>(${l.rel}${l.type && !hasHtml ? `, ${l.type}` : ''})</small></li>`;
}

const links = (ls: readonly Link[] | undefined) => html`<ul>${(ls ?? []).filter((l) => l.rel !== 'self' && l.type !== HTML_MEDIA).map(linkItem)}</ul>`;

function crumbs(base: string, ...more: Crumb[]): Crumb[] {
  return [{ title: 'Features', href: withF(`${base}${PATHS.features}`, 'html') }, ...more];
}

export function landingHtml(base: string, self: string, doc: { title: string; description: string; links: readonly Link[] }): string {
  return page(doc.title, [{ title: 'Features' }], self, html`<p>${doc.description}</p><h2>Links</h2>${links(doc.links)}`);
}

export function conformanceHtml(base: string, self: string, doc: { conformsTo: readonly string[] }): string {
  return page('Conformance', crumbs(base, { title: 'Conformance' }), self, html`<p>The conformance classes this API implements:</p><ul>${doc.conformsTo.map((uri) => html`<li><code>${uri}</code></li>`)}</ul>`);
}

interface CollectionDoc {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  // The regions collection has a spatial extent only.
  readonly extent?: { spatial: { bbox: readonly (readonly number[])[] }; temporal?: { interval: readonly (readonly (string | null)[])[] } } | undefined;
  readonly links: readonly Link[];
}

function extent(doc: CollectionDoc): Raw {
  if (!doc.extent) return html``;
  const [w, s, e, n] = doc.extent.spatial.bbox[0] ?? [];
  const [from, to] = doc.extent.temporal?.interval[0] ?? [];
  const time = doc.extent.temporal ? html`<dt>Time</dt><dd>${from ?? 'open'} to ${to ?? 'open'}</dd>` : html``;
  return html`<dl><dt>Longitude</dt><dd>${w} to ${e}</dd><dt>Latitude</dt><dd>${s} to ${n}</dd>${time}</dl>`;
}

export function collectionsHtml(base: string, self: string, doc: { collections: readonly CollectionDoc[] }): string {
  const body = doc.collections.map(
    (col) => html`<section aria-labelledby="c-${col.id}"><h2 id="c-${col.id}"><a href="${withF(`${base}${PATHS.features}/collections/${col.id}`, 'html')}">${col.title}</a></h2><p>${col.description}</p>${extent(col)}${links(col.links)}</section>`,
  );
  return page('Collections', crumbs(base, { title: 'Collections' }), self, html`${body}`);
}

export function collectionHtml(base: string, self: string, col: CollectionDoc): string {
  return page(col.title, crumbs(base, { title: 'Collections', href: withF(`${base}${PATHS.features}/collections`, 'html') }, { title: col.title }), self, html`<p>${col.description}</p>${extent(col)}<h2>Links</h2>${links(col.links)}`);
}

interface Feature {
  readonly id: string | number;
  readonly geometry: { readonly coordinates: readonly [number, number] } | null;
  readonly properties: Json;
}

/** The properties a table of many features shows; each feature's own page has them all. */
const TABLE_PROPERTIES = 6;

function cell(v: unknown): string {
  return v === null || v === undefined ? '' : Array.isArray(v) ? v.join('; ') : String(v);
}

export function itemsHtml(
  base: string,
  self: string,
  col: { id: string; title: string },
  doc: { features: readonly Feature[]; numberMatched?: number; numberReturned: number; links: readonly Link[] },
): string {
  const itemUrl = (f: Feature) => withF(`${base}${PATHS.features}/collections/${col.id}/items/${f.id}`, 'html');
  const points = doc.features.flatMap((f) => (f.geometry ? [{ lon: f.geometry.coordinates[0], lat: f.geometry.coordinates[1], label: `Feature ${f.id}`, href: itemUrl(f) }] : []));
  const names = Object.keys(doc.features[0]?.properties ?? {}).slice(0, TABLE_PROPERTIES);
  const next = doc.links.find((l) => l.rel === 'next');
  const first = withF(self.replace(/([?&])cursor=[^&]*&?/, '$1').replace(/[?&]$/, ''), 'html');
  const pager = (where: string) => html`<nav class="pager" aria-label="Pages, ${where}">${self.includes('cursor=') ? html`<a href="${first}" rel="first">First page</a>` : ''}${next ? html`<a href="${withF(next.href, 'html')}" rel="next">Next page</a>` : html`<span>Last page</span>`}</nav>`;
  const count = doc.numberMatched === undefined ? `${doc.numberReturned} features on this page` : `${doc.numberReturned} of ${doc.numberMatched} features on this page`;
  const body = html`<p>${count}.</p>
${svgMap(points, `${col.title}: the ${doc.numberReturned} features of this page`)}
${pager('above the table')}
<div class="scroll"><table><caption>${col.title} on this page</caption><thead><tr><th scope="col">id</th><th scope="col">longitude</th><th scope="col">latitude</th>${names.map((n) => html`<th scope="col">${n}</th>`)}</tr></thead><tbody>
${doc.features.map((f) => html`<tr><td><a href="${itemUrl(f)}">${f.id}</a></td><td>${f.geometry?.coordinates[0]}</td><td>${f.geometry?.coordinates[1]}</td>${names.map((n) => html`<td>${cell(f.properties[n])}</td>`)}</tr>\n`)}</tbody></table></div>
${pager('below the table')}`;
  return page(`${col.title}: features`, crumbs(base, { title: 'Collections', href: withF(`${base}${PATHS.features}/collections`, 'html') }, { title: col.title, href: withF(`${base}${PATHS.features}/collections/${col.id}`, 'html') }, { title: 'Items' }), self, body);
}

export function featureHtml(base: string, self: string, col: { id: string; title: string }, f: Feature): string {
  const items = withF(`${base}${PATHS.features}/collections/${col.id}/items`, 'html');
  const points = f.geometry ? [{ lon: f.geometry.coordinates[0], lat: f.geometry.coordinates[1], label: `Feature ${f.id}`, href: withF(self, 'html') }] : [];
  const body = html`${svgMap(points, `Where feature ${f.id} is`)}
<dl><dt>longitude</dt><dd>${f.geometry?.coordinates[0]}</dd><dt>latitude</dt><dd>${f.geometry?.coordinates[1]}</dd>${Object.entries(f.properties).map(([k, v]) => html`<dt>${k}</dt><dd>${cell(v)}</dd>`)}</dl>`;
  return page(`${col.title}: feature ${f.id}`, crumbs(base, { title: 'Collections', href: withF(`${base}${PATHS.features}/collections`, 'html') }, { title: col.title, href: withF(`${base}${PATHS.features}/collections/${col.id}`, 'html') }, { title: 'Items', href: items }, { title: String(f.id) }), self, body);
}
