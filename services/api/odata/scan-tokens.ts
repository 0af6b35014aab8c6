/**
 * The lexer skeleton every filter language shares (`$filter`/`$apply` in lexer.ts, CQL2-Text in cql2/lexer.ts): one
 * left-to-right pass in which the first rule that reads at the position gives a token (or skips a blank), ending with
 * one `end` token. Rules test one character or match a sticky (`y`) regex that cannot backtrack, so lexing stays
 * linear in the input; each language lists its own rules, in the order they are tried.
 */

/** What a rule read at a position: its token (none for a blank) and where the next token starts. */
export interface Lexed<T> {
  readonly token?: T;
  readonly end: number;
}

/** Reads at `pos`, or undefined when the text there is not this rule's; throws ODataError on malformed text. */
export type LexRule<T> = (text: string, pos: number, parameter: string) => Lexed<T> | undefined;

export interface EndToken {
  readonly kind: 'end';
  readonly offset: number;
}

/**
 * Split `text` into tokens with `rules`, ending with one `end` token; `unexpected` is the error where no rule reads.
 *
 * @example
 * scanTokens('a b', '$filter', [blank, name], unexpectedCharacter).map((t) => t.kind) // → ['identifier', 'identifier', 'end']
 */
export function scanTokens<T>(text: string, parameter: string, rules: readonly LexRule<T>[], unexpected: (text: string, pos: number, parameter: string) => Error): (T | EndToken)[] {
  const tokens: (T | EndToken)[] = [];
  let pos = 0;
  while (pos < text.length) {
    const lexed = readAt(text, pos, parameter, rules);
    if (lexed === undefined) throw unexpected(text, pos, parameter);
    if (lexed.token !== undefined) tokens.push(lexed.token);
    pos = lexed.end;
  }
  tokens.push({ kind: 'end', offset: text.length });
  return tokens;
}

function readAt<T>(text: string, pos: number, parameter: string, rules: readonly LexRule<T>[]): Lexed<T> | undefined {
  for (const rule of rules) {
    const lexed = rule(text, pos, parameter);
    if (lexed !== undefined) return lexed;
  }
  return undefined;
}

/** The text a sticky regex matches at `pos`, if any. */
export function matchAt(re: RegExp, text: string, pos: number): string | undefined {
  re.lastIndex = pos;
  return re.exec(text)?.[0];
}

/** A rule that skips one character of `blanks` (a regex tested on the character, or the characters themselves). */
export function blank<T>(blanks: RegExp | string): LexRule<T> {
  const is = typeof blanks === 'string' ? (ch: string) => blanks.includes(ch) : (ch: string) => blanks.test(ch);
  return (text, pos) => (is(text[pos] ?? '') ? { end: pos + 1 } : undefined);
}
