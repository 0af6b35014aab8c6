/**
 * The body of a query sent by POST (OData's `…/$query`, OGC items with CQL2-JSON): a filter longer than a URL
 * may hold. Read whole before planning, never more than the limit: a declared length over it is refused before a
 * byte is read, an undeclared one as soon as it passes it (413), so a client cannot make the server buffer more.
 */
import type { Context } from 'hono';
import { ApiError } from '../errors.js';

/** MAX_BODY_BYTES by default: a 10,000-vertex polygon in GeoJSON fits several times over. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface BodyRule {
  readonly maxBytes: number;
  /** Accepted media types (lower case, without parameters). */
  readonly types: readonly string[];
  /** What the body holds, for messages, e.g. "the query options ($filter=…&$top=…)". */
  readonly holds: string;
}

/**
 * @example
 * await readQueryBody(c, { maxBytes: 1 << 20, types: ['text/plain'], holds: 'the query options' }) // → "$filter=…"
 */
export async function readQueryBody(c: Context, rule: BodyRule): Promise<string> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!rule.types.includes(type)) {
    throw new ApiError('unsupported_media_type', `The body must be ${rule.holds}, sent as ${rule.types.join(' or ')}; got ${type ? `Content-Type: ${type}` : 'no Content-Type'}.`);
  }
  // Read before the limits by middleware/body-first.ts; read here only where the app was built without it.
  const first = c.get('queryBody') as Uint8Array | undefined;
  if (first) return decode(first, rule);
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (declared > rule.maxBytes) throw tooLarge(declared, rule.maxBytes);
  const reader = c.req.raw.body?.getReader();
  const parts: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
    if (chunk.done) break;
    bytes += chunk.value.byteLength;
    if (bytes > rule.maxBytes) {
      await reader!.cancel();
      throw tooLarge(bytes, rule.maxBytes);
    }
    parts.push(chunk.value);
  }
  return decode(Buffer.concat(parts), rule);
}

function decode(bytes: Uint8Array, rule: BodyRule): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError('invalid_parameter', `The body is not UTF-8 text: send ${rule.holds} as UTF-8.`);
  }
}

export function tooLarge(bytes: number, max: number): ApiError {
  return new ApiError('payload_too_large', `The body is ${bytes > max ? `more than ${max}` : bytes} bytes; the limit is ${max} (MAX_BODY_BYTES). Simplify the geometry (fewer vertices) or split the request.`);
}
