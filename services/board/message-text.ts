/** The column is varchar(255): PostgreSQL counts characters (code points in UTF-8), not bytes or UTF-16 units. */
export const MAX_TEXT_CHARS = 255;

export type TextCheck = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: string };

/**
 * Trims and checks a message's text the way PostgreSQL will count it, so a valid text is never refused by
 * the database and an invalid one never reaches it.
 * @example checkText('  Grüße  ') // { ok: true, text: 'Grüße' }
 */
export function checkText(raw: unknown): TextCheck {
  if (typeof raw !== 'string') return { ok: false, problem: 'text must be a string' };
  const text = raw.trim();
  if (text === '') return { ok: false, problem: 'text must not be empty' };
  // NUL is the one character PostgreSQL text cannot hold; it would fail as a 22021 at INSERT time.
  if (text.includes('\u0000')) return { ok: false, problem: 'text must not contain NUL characters' };
  // A lone surrogate (possible in JSON) would be stored as U+FFFD, silently changing the text.
  if (/\p{Cs}/u.test(text)) return { ok: false, problem: 'text must be valid Unicode' };
  const chars = countChars(text);
  if (chars > MAX_TEXT_CHARS) {
    return { ok: false, problem: `text must be at most ${MAX_TEXT_CHARS} characters (got ${chars})` };
  }
  return { ok: true, text };
}

function countChars(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
