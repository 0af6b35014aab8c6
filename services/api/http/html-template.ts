/**
 * Server-rendered HTML: a tagged template whose interpolations are escaped unless wrapped by `raw()`, so a value
 * from the data (a name, a URL) can never become markup. The same rules as routes/docs-page.ts's template, shared
 * from the edge so handler folders that may not import routes/ (ogc/) can use them.
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
