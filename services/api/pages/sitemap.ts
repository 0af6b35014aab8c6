/**
 * `sitemap.xml` of the landing pages (sitemaps.org 0.9): every dataset's page, then every location's, each with the
 * time its dataset last changed. Over 50,000 URLs (the protocol's limit per file) it is a sitemap index naming
 * `sitemap-1.xml`, `sitemap-2.xml`, …, which sit beside it because a sitemap may list only URLs under its own folder.
 * `robots.txt` names it.
 */
import type { Catalogue } from '../exec/landing.js';
import { escapeHtml } from '../http/html-template.js';
import { PATHS } from '../http/paths.js';
import { datasetPagePath, locationPagePath } from './page-links.js';

/** sitemaps.org: at most 50,000 URLs per sitemap file. */
export const SITEMAP_URLS = 50_000;

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

export const sitemapParts = (catalogue: Catalogue, perFile: number): number => Math.ceil((catalogue.datasets.length + catalogue.locations) / perFile);

/** The index of `parts` sitemap files. */
export function sitemapIndex(base: string, parts: number): string {
  const entries = Array.from({ length: parts }, (_, i) => `<sitemap><loc>${escapeHtml(`${base}/sitemap-${i + 1}.xml`)}</loc></sitemap>`);
  return `${XML_HEAD}<sitemapindex xmlns="${NS}">\n${entries.join('\n')}\n</sitemapindex>\n`;
}

/** The URLs `first` … `first + perFile - 1` of the whole list: datasets first, then locations (read by the caller). */
export function urlSet(base: string, catalogue: Catalogue, first: number, perFile: number, locations: readonly { id: bigint; doi: string }[]): string {
  const day = (t: string | null | undefined) => (t ? `<lastmod>${escapeHtml(t.slice(0, 10))}</lastmod>` : '');
  const url = (path: string, modified: string | null | undefined) => `<url><loc>${escapeHtml(`${base}${path}`)}</loc>${day(modified)}</url>`;
  const datasets = catalogue.datasets.slice(first, first + perFile).map((d) => url(datasetPagePath(d.doi), d.modified));
  const places = locations.map((l) => url(locationPagePath(l.id), catalogue.byDoi.get(l.doi)?.modified));
  return `${XML_HEAD}<urlset xmlns="${NS}">\n${[...datasets, ...places].join('\n')}\n</urlset>\n`;
}

/** Which locations part `first` … covers: an offset into the locations in Id order, and how many. */
export function locationShare(catalogue: Catalogue, first: number, perFile: number): { offset: number; limit: number } {
  const datasets = catalogue.datasets.length;
  const start = Math.max(first, datasets);
  return { offset: start - datasets, limit: Math.max(0, first + perFile - start) };
}

/** What crawlers may read, and where the sitemap is; the API itself (/v1/) is for clients with a key. */
export function robotsTxt(base: string): string {
  return `User-agent: *\nAllow: /\nDisallow: /v1/\n\nSitemap: ${base}${PATHS.sitemap}\n`;
}
