/**
 * A DOI's resolver link, as the API's `rel="cite-as"` link spells it (http/links.ts `doiUrl`; a test holds them
 * equal): a suffix may hold `#`, `?`, `%`, `<`, `;` or spaces, which a bare `https://doi.org/${doi}` would turn into
 * another URL. Everything but RFC 3986's unreserved characters and the `/` separators is percent-encoded.
 */
export function doiUrl(doi: string): string {
  const encoded = encodeURIComponent(doi).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `https://doi.org/${encoded.replace(/%2F/g, '/')}`;
}
