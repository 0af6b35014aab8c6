/**
 * The one frame of every server-rendered page (the docs page, the landing pages, OGC's HTML): an HTML document with
 * its title, what its head adds (a description, canonical and alternate links, a JSON-LD block), one inline
 * stylesheet, its navigation in a header and its content in `main`, and no script that runs. At the edge, so every
 * handler folder can frame a page the same way.
 */
import { html, raw, type Raw } from './html-template.js';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:66rem;margin:1.5rem auto;padding:0 1rem;color:#1b1f23;overflow-wrap:anywhere}
a{color:#0a4f96}code,pre{font:14px/1.4 ui-monospace,monospace;background:#f3f4f6;border-radius:4px}code{padding:0 .2em;overflow-wrap:anywhere}pre{padding:.8rem;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:14px;margin:.5rem 0}caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{border-bottom:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
h2{border-bottom:1px solid #d0d7de;margin-top:2rem}details{margin:.5rem 0}summary{cursor:pointer;font-weight:600}
dl{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:.2rem 1rem}@media (max-width:40rem){dl{grid-template-columns:minmax(0,1fr)}dd{margin-bottom:.4rem}}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
.map{margin:1rem 0}.map svg{max-width:100%;height:auto;border:1px solid #d0d7de}figcaption{font-size:14px;color:#57606a}
blockquote{margin:.5rem 0;padding:.5rem 1rem;border-left:4px solid #0a4f96;background:#f6f8fa}.wrap,.scroll{overflow-x:auto}.hash{font-size:12px}
nav ul,nav ol{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3rem 1.2rem}nav ol li+li::before{content:"/ ";color:#57606a}.pager{display:flex;gap:1rem;margin:1rem 0}`;

export interface PageShell {
  /** The whole `<title>`. */
  readonly title: string;
  /** Elements of `<head>` beyond the title and the stylesheet. */
  readonly head?: Raw;
  /** The page's navigation, in its header. */
  readonly nav?: Raw;
  readonly main: Raw;
}

export function pageShell(p: PageShell): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${p.title}</title>
${p.head ?? ''}<style>${raw(STYLE)}</style>
</head><body>
${p.nav ? html`<header>${p.nav}</header>\n` : ''}<main>
${p.main}
</main>
</body></html>
`.html;
}
