/**
 * What every landing page adds to the one page shell (http/page-shell.ts): its canonical link, description, the
 * JSON-LD a harvester reads and the site's navigation. Its CSP allows exactly that: styles and data blocks, no script.
 */
import { html, scriptJson, type Raw } from '../http/html-template.js';
import { pageShell } from '../http/page-shell.js';
import { PATHS } from '../http/paths.js';

/** Inline styles and data blocks only: `application/ld+json` is not executed, so script-src stays 'none'. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";


export interface PageParts {
  readonly title: string;
  readonly description: string;
  /** The page's own absolute URL. */
  readonly canonical: string;
  readonly jsonLd: unknown;
  readonly main: Raw;
}

export function landingPage(base: string, p: PageParts): string {
  return pageShell({
    title: `${p.title} · Tributary`,
    head: html`<meta name="description" content="${p.description.slice(0, 300)}">
<link rel="canonical" href="${p.canonical}">
<link rel="alternate" type="application/ld+json" href="${p.canonical}" title="This page's JSON-LD (Accept: application/ld+json)">
<link rel="describedby" type="application/ld+json" href="${base}${PATHS.catalogueJsonLd}" title="DCAT catalogue of every dataset">
<script type="application/ld+json">${scriptJson(p.jsonLd)}</script>
`,
    nav: html`<nav aria-label="Tributary"><ul><li><a href="/">API documentation</a></li><li><a href="${PATHS.explore}">Explorer</a></li><li><a href="${PATHS.catalogue}">Catalogue (DCAT)</a></li><li><a href="${PATHS.downloads}">Bulk downloads</a></li></ul></nav>`,
    main: p.main,
  });
}

/** A table that scrolls sideways on its own on a narrow screen, reachable by keyboard to do so. */
export const wideTable = (label: string, table: Raw): Raw => html`<div class="wrap" role="region" aria-label="${label}" tabindex="0">${table}</div>`;

/** `1234567` → `1,234,567`: counts as people read them (the JSON-LD keeps the plain number). */
export const count = (n: number | bigint): string => n.toLocaleString('en-US');

/** Bytes as a size a person reads, with the exact count beside it. */
export function size(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) (v /= 1024), u++;
  return u === 0 ? `${bytes} B` : `${v.toFixed(1)} ${units[u]} (${count(bytes)} bytes)`;
}
