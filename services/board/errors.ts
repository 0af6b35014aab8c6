import { HTTPException } from 'hono/http-exception';

/** The one error the board throws on purpose; rendered once by the app's `onError`. */
export class BoardError extends Error {
  override readonly name = 'BoardError';
  constructor(
    readonly status: 400 | 403 | 404 | 405 | 413 | 415 | 429 | 500 | 503,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export const notFound = (what: string): BoardError => new BoardError(404, `${what} not found`);

export const methodNotAllowed = (allow: readonly string[]): BoardError =>
  new BoardError(405, `method not allowed; use ${allow.join(', ')}`, { Allow: allow.join(', ') });

/** How long clients should wait after a 503 before trying again. */
const RETRY_AFTER_SECONDS = '2';

// SQLSTATE classes and codes that mean "the database is not there right now", not "this request is wrong".
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '53000', '57014']);
// ENOENT: the embedded database's Unix socket is gone while its server is down (requests touch no other file).
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN', 'ENOENT']);
// node-postgres reports lost or refused connections with plain Errors that carry no code.
const UNAVAILABLE_MESSAGE = /connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|connection error|cannot use a pool after calling end/i;

/**
 * Turns anything thrown into the status and message a client may see. Database outages become 503 so the load
 * balancer and clients retry; everything unexpected is a bare 500 whose details only reach the log.
 */
export function toBoardError(err: unknown, maxBodyBytes: number): BoardError {
  if (err instanceof BoardError) return err;
  if (err instanceof HTTPException) return fromHttpException(err, maxBodyBytes);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (code === '57014') return new BoardError(503, 'database timed out', { 'Retry-After': RETRY_AFTER_SECONDS });
    if (code === '42P01') {
      return new BoardError(503, 'table posts does not exist; run make board-migrate', { 'Retry-After': '30' });
    }
    if (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || NETWORK_CODES.has(code)) return unavailable();
  }
  if (err instanceof Error && UNAVAILABLE_MESSAGE.test(err.message)) return unavailable();
  return new BoardError(500, 'internal error');
}

const unavailable = (): BoardError =>
  new BoardError(503, 'database unavailable; try again shortly', { 'Retry-After': RETRY_AFTER_SECONDS });

// Hono's own middleware (csrf, bodyLimit) throws HTTPException with a plain-text response; we keep the status
// and say what happened in the board's own shape.
function fromHttpException(err: HTTPException, maxBodyBytes: number): BoardError {
  switch (err.status) {
    case 403:
      return new BoardError(403, 'cross-site post refused: the Origin header must be this board');
    case 413:
      return new BoardError(413, `request body larger than ${maxBodyBytes} bytes`);
    case 400:
      return new BoardError(400, 'malformed request body');
    default:
      return new BoardError(500, 'internal error');
  }
}

/** The one error body: `{"message": "..."}`. */
export const errorBody = (err: BoardError): { message: string } => ({ message: err.message });
