/**
 * Content negotiation's one parse of `Accept` (RFC 9110 §12.5.1), shared by every route that negotiates: pages'
 * formats (formats.ts), exports, citations, the catalogue and the landing pages' JSON-LD, and OGC's HTML.
 */

export interface MediaRange {
  /** Lower-cased, parameters dropped: `text/csv`, `text/*`, `*\/*`. */
  readonly type: string;
  readonly q: number;
}

/** The header's media ranges, most preferred first (by q, then order); ranges with q=0 (or an unreadable q) are left out. */
export function acceptedRanges(accept: string): MediaRange[] {
  return accept
    .split(',')
    .map((part, order) => {
      const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      return { type, q: q ? Number(q.slice(2)) : 1, order };
    })
    .filter((r) => r.type && r.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order)
    .map(({ type, q }) => ({ type, q }));
}

/** The highest q the header gives any of `types` (exact types: a wildcard names none of them); 0 when it names none. */
export function qualityOf(accept: string | undefined, types: Iterable<string>): number {
  const wanted = new Set(types);
  return Math.max(0, ...acceptedRanges(accept ?? '').filter((r) => wanted.has(r.type)).map((r) => r.q));
}

/** What a route offers by Accept: its formats by media type, the one `*\/*` or `application/*` gets, the one `text/*` gets. */
export interface AcceptOffer<F extends string> {
  readonly byType: ReadonlyMap<string, F>;
  readonly any: F;
  readonly text: F;
}

/**
 * The one negotiation of the routes that answer in several formats (exports, citations, the catalogue): the first
 * range, by q then order, that names an offered type or a wildcard; no header (or an empty one) gets `any`; undefined
 * when every range names something not offered (the route's 406).
 */
export function negotiate<F extends string>(accept: string | undefined, offer: AcceptOffer<F>): F | undefined {
  if (!accept || !accept.trim()) return offer.any;
  for (const { type } of acceptedRanges(accept)) {
    const exact = offer.byType.get(type);
    if (exact !== undefined) return exact;
    if (type === '*/*' || type === 'application/*') return offer.any;
    if (type === 'text/*') return offer.text;
  }
  return undefined;
}
