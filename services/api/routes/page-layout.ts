/**
 * The frame every landing page shares: one HTML document with its title, canonical link, description, the
 * JSON-LD a harvester reads, one inline stylesheet and no script that runs. Its CSP allows exactly that.
 */
import { html, raw, scriptJson, type Raw } from '../http/html-template.js';
import { PATHS } from '../http/paths.js';

/** Inline styles and data blocks only: `application/ld+json` is not executed, so script-src stays 'none'. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:62rem;margin:1.5rem auto;padding:0 1rem;color:#1b1f23}
a{color:#0a4f96}code{font:14px/1.4 ui-monospace,monospace;background:#f3f4f6;border-radius:4px;padding:0 .2em;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:14px;margin:.5rem 0}caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{border-bottom:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
h2{border-bottom:1px solid #d0d7de;margin-top:2rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0}
.map{margin:1rem 0}.map svg{max-width:100%;height:auto;border:1px solid #d0d7de}figcaption{font-size:14px;color:#57606a}blockquote{margin:.5rem 0;padding:.5rem 1rem;border-left:4px solid #0a4f96;background:#f6f8fa}
.wrap{overflow-x:auto}dd{overflow-wrap:anywhere}nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3rem 1.2rem}.hash{font-size:12px}`;

export interface PageParts {
  readonly title: string;
  readonly description: string;
  /** The page's own absolute URL. */
  readonly canonical: string;
  readonly jsonLd: unknown;
  readonly main: Raw;
}

export function landingPage(base: string, p: PageParts): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${p.title} · Tributary</title>
<meta name="description" content="${p.description.slice(0, 300)}">
<link rel="canonical" href="${p.canonical}">
<link rel="alternate" type="application/ld+json" href="${p.canonical}" title="This page's JSON-LD (Accept: application/ld+json)">
<link rel="describedby" type="application/ld+json" href="${base}${PATHS.catalogueJsonLd}" title="DCAT catalogue of every dataset">
<style>${raw(STYLE)}</style>
<script type="application/ld+json">${scriptJson(p.jsonLd)}</script>
</head><body>
<header><nav aria-label="Tributary"><ul><li><a href="/">API documentation</a></li><li><a href="${PATHS.explore}">Explorer</a></li><li><a href="${PATHS.catalogue}">Catalogue (DCAT)</a></li><li><a href="${PATHS.downloads}">Bulk downloads</a></li></ul></nav></header>
<main>
${p.main}
</main>
</body></html>
`.html;
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
