import type { Context } from 'hono';
import { BoardError } from './errors.js';

/** Ids are PostgreSQL `integer` identities: 1 … 2^31-1. Anything else is the client's mistake, not a 404. */
export const MAX_ID = 2_147_483_647;

/** Parses a decimal id (no sign, no fraction, no exponent) in 1 … MAX_ID. */
export function parseId(raw: string | undefined, name = 'id', min = 1): number {
  if (raw === undefined || !/^\d{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > MAX_ID) {
    throw new BoardError(400, `${name} must be an integer from ${min} to ${MAX_ID}, got ${JSON.stringify(raw ?? '')}`);
  }
  return Number(raw);
}

export interface ListQuery {
  readonly after?: number;
  readonly limit?: number;
}

const LIST_PARAMS = new Set(['after', 'limit']);

/** `?after=<id>&limit=<n>`, both optional; unknown or repeated parameters are refused rather than ignored. */
export function parseListQuery(query: Record<string, string[]>): ListQuery {
  for (const [name, values] of Object.entries(query)) {
    if (!LIST_PARAMS.has(name)) throw new BoardError(400, `unknown query parameter ${JSON.stringify(name)}; use after, limit`);
    if (values.length > 1) throw new BoardError(400, `query parameter ${name} given more than once`);
  }
  const after = query.after?.[0];
  const limit = query.limit?.[0];
  return {
    ...(after === undefined ? {} : { after: parseId(after, 'after', 0) }),
    ...(limit === undefined ? {} : { limit: parseId(limit, 'limit') }),
  };
}

/**
 * Reads the request body; a body the client stopped sending (its connection reset before Content-Length bytes) is
 * the client's 400, never the 503 and "database unavailable" alarm its ECONNRESET would otherwise be taken for.
 */
export async function readBody<T>(c: Context, read: () => Promise<T>, malformed: string): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof BoardError) throw err;
    const cut = c.req.raw.signal.aborted || (err as { code?: unknown } | null)?.code === 'ECONNRESET';
    throw new BoardError(400, cut ? 'the request body was cut off before its end; send it whole' : malformed);
  }
}
