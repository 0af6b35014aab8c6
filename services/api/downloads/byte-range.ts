/**
 * RFC 9110 §14 byte ranges for the dataset files: which bytes a `GET` with `Range` (and `If-Range`) gets.
 * @hono/node-server's serveStatic parses a range too, but answers a malformed one with 206 from byte 0 and knows
 * neither `If-Range` nor ETags, so the rules are here, each a clause of the RFC:
 *
 * - A `Range` that is not `bytes=` with valid range specs is ignored: 200 with the whole file (§14.2 "MAY ignore").
 * - Several ranges are answered with the whole file (200), which §14.2 allows; every client that resumes or seeks
 *   (curl -C, browsers, DuckDB, pyarrow) asks for one range.
 * - One range: `first-last`, `first-` or `-suffix`; `last` past the end is cut to the end (§14.1.2). A first byte at
 *   or past the end, or a zero suffix, is unsatisfiable: 416 with `Content-Range: bytes *\/<size>` (§15.5.17).
 * - `If-Range` that is not our (strong) ETag sends the whole file: the client's partial copy is of other content.
 */

export type RangeAnswer =
  | { readonly kind: 'full' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

const SPEC = /^(\d*)-(\d*)$/;

/**
 * @example
 * byteRange('bytes=100-', undefined, '"sha256-…"', 1000) // → { kind: 'partial', start: 100, end: 999 }
 * byteRange('bytes=-0', undefined, '"sha256-…"', 1000)  // → { kind: 'unsatisfiable' }
 */
export function byteRange(range: string | undefined, ifRange: string | undefined, etag: string, size: number): RangeAnswer {
  if (range === undefined) return { kind: 'full' };
  // §13.1.5: If-Range takes a strong validator; a date never matches here (no Last-Modified is sent).
  if (ifRange !== undefined && ifRange.trim() !== etag) return { kind: 'full' };
  const m = /^\s*bytes\s*=\s*(.+)$/i.exec(range);
  if (!m) return { kind: 'full' };
  const specs = m[1]!.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (specs.length !== 1) return { kind: 'full' };
  const spec = SPEC.exec(specs[0]!);
  if (!spec || (spec[1] === '' && spec[2] === '')) return { kind: 'full' };
  const [first, last] = [spec[1]!, spec[2]!];
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'full' }; // §14.1.1: invalid, so the Range is ignored
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
