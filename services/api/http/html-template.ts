/**
 * Server-rendered HTML, the one template every page uses (the docs page, the landing pages, OGC's HTML and their
 * maps): a tagged template whose interpolations are escaped unless wrapped by `raw()`, so a value from the data (a
 * name, a URL) can never become markup. At the edge, so every handler folder can import it.
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}

export class Raw {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

/** Markup this program wrote itself (never data). */
export const raw = (html: string) => new Raw(html);

/** Arrays are joined; null, undefined and false render nothing; everything else is escaped text. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  const part = (v: unknown): string =>
    v instanceof Raw ? v.html : Array.isArray(v) ? v.map(part).join('') : v === undefined || v === null || v === false ? '' : escapeHtml(String(v));
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
