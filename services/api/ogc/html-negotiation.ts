/**
 * Which encoding a features request gets: `f=html` or `f=json` decide; without `f`, a browser's Accept (text/html
 * preferred over any JSON type it names) gets HTML and everything else JSON, the default. GDAL, QGIS and OWSLib
 * name JSON types or nothing, so they are never sent HTML; a tie goes to JSON.
 */
import type { Context } from 'hono';
import { qualityOf } from '../accept-ranges.js';
import { ApiError } from '../errors.js';

export const HTML_MEDIA = 'text/html';
export const HTML_CONFORMANCE = 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html';

const F_VALUES = ['json', 'geojson', 'html'] as const;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const JSON_TYPES = new Set(['application/json', 'application/geo+json', 'application/schema+json', 'application/vnd.oai.openapi+json']);

export type Encoding = 'html' | 'json';

export function responseEncoding(c: Context): Encoding {
  const f = c.req.query('f');
  if (f !== undefined) {
    if (!(F_VALUES as readonly string[]).includes(f)) {
      throw new ApiError('invalid_parameter', `f can be json (the default; GeoJSON for items) or html (a page for a browser); got '${f.slice(0, 40)}'.`, { parameter: 'f' });
    }
    return f === 'html' ? 'html' : 'json';
  }
  return prefersHtml(c.req.header('accept')) ? 'html' : 'json';
}

/** Whether an Accept header ranks HTML above every JSON type it names (types without parameters; `*\/*` ranks neither). */
export function prefersHtml(accept: string | undefined): boolean {
  const htmlQ = qualityOf(accept, HTML_TYPES);
  return htmlQ > 0 && htmlQ > qualityOf(accept, JSON_TYPES);
}

/** `url` with `f` set to `value` (replacing any `f` it has). */
export function withF(url: string, value: 'html' | 'json'): string {
  const u = new URL(url);
  const kept = u.search.replace(/^\?/, '').split('&').filter((p) => p && !/^f(=|$)/.test(p));
  return `${u.origin}${u.pathname}?${[...kept, `f=${value}`].join('&')}`;
}
