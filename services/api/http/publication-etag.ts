/**
 * A response's validator is the publication it was read from: every answer of the API is a function of the URL,
 * the negotiated format and the publication, and a publication never changes once written (ingest publishes a
 * new one). So one weak ETag per publication, `W/"<publication id>"`, lets a client or cache revalidate any page
 * with `If-None-Match` and get 304 until the next publish, and lets a client that pages through an extract see
 * that its pages came from one publication.
 */

export function publicationETag(publication: string): string {
  return `W/"${publication.replace(/["\\]/g, '')}"`;
}

/** RFC 9110 §13.1.2: `*`, or any listed tag equal to ours under weak comparison (the `W/` prefix ignored). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const ours = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === ours);
}
