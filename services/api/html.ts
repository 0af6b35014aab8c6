/**
 * HTML from templates: every interpolated value is escaped unless wrapped by `raw()`, so a page built with `html`
 * cannot carry markup from the data. The docs page, the landing pages and their maps share it.
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}

/** Markup already escaped (or written by us): interpolated as it is. */
export class Raw {
  constructor(readonly html: string) {}
}

export const raw = (html: string): Raw => new Raw(html);

/** Tagged template: interpolations are escaped unless wrapped by `raw()`; arrays are joined; null and undefined are empty. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  const part = (v: unknown): string => (v instanceof Raw ? v.html : Array.isArray(v) ? v.map(part).join('') : v === undefined || v === null ? '' : escapeHtml(String(v)));
  return raw(strings.reduce((out, s, i) => out + s + (i < values.length ? part(values[i]) : ''), ''));
}

/**
 * JSON inside `<script type="application/ld+json">`: `<`, `>` and `&` as JSON escapes, so no value can close the
 * element or open a comment (HTML's script data state ends at `</script`), and the JSON still parses to the same value.
 * U+2028 and U+2029 too, which some JavaScript-era parsers take for line ends.
 */
export function scriptJson(value: unknown): Raw {
  return raw(JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
