/**
 * What an access-log line says of a request's target (issue 47 item 8): a refused request's whole 16 KB target, on
 * every request of a keep-alive connection, wrote tens of MB of log per second. A target longer than
 * LOG_TARGET_MAX_BYTES is logged as its prefix, its length and a hash (the same target always hashes alike, so an
 * operator can still count and match them); an API key sent in the query string never reaches the log.
 */
import { createHash } from 'node:crypto';

/** Longest target logged whole: more than any link the API hands out without a filter in it. */
export const LOG_TARGET_MAX_BYTES = 1024;

/** Query parameters a client may mistake for the key's place (the key goes in `x-api-key`: middleware/api-key.ts). */
export const KEY_QUERY_PARAMS: readonly string[] = ['x-api-key', 'api_key', 'apikey', 'api-key', 'key'];

export interface LoggedTarget {
  readonly path: string;
  /** The target's length in bytes, when `path` is only its prefix. */
  readonly pathBytes?: number;
  /** The first 16 hex digits of the whole target's SHA-256, when `path` is only its prefix. */
  readonly pathHash?: string;
}

/**
 * @example loggedTarget('/v1/odata/v4/Records?api_key=s3cret&$top=1') // → { path: '/v1/odata/v4/Records?api_key=REDACTED&$top=1' }
 */
export function loggedTarget(target: string): LoggedTarget {
  const redacted = redactKeys(target);
  const bytes = Buffer.byteLength(redacted);
  if (bytes <= LOG_TARGET_MAX_BYTES) return { path: redacted };
  // Cut on a character, never inside one: the prefix of a UTF-8 buffer may end mid-sequence.
  const prefix = Buffer.from(redacted).subarray(0, LOG_TARGET_MAX_BYTES).toString('utf8').replace(/\uFFFD$/, '');
  return { path: `${prefix}…`, pathBytes: bytes, pathHash: createHash('sha256').update(redacted).digest('hex').slice(0, 16) };
}

const KEY_PARAM = new RegExp(`([?&](?:${KEY_QUERY_PARAMS.map((p) => p.replace(/[-_]/g, (c) => `\\${c}`)).join('|')})=)[^&#]*`, 'gi');

/** The target with the value of every key-like query parameter replaced. */
export function redactKeys(target: string): string {
  return target.replace(KEY_PARAM, '$1REDACTED');
}
