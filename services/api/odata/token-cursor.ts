/**
 * A read position over a token list, shared by every parser of a filter language: `$filter` and `$apply` here, and
 * CQL2-Text (cql2/), so all report errors against the same option text and offsets. Each language brings its own
 * tokens; all are named alike in messages (describeToken).
 */
import type { Token } from './lexer.js';
import { GeometryBudget } from './geometry.js';
import { ODataError, type ODataErrorCode } from './odata-error.js';

/**
 * What the cursor reads of a token; every lexer's tokens are one of these: the end, quoted text, or a token with its
 * text as written (`quoted`: a name in double quotes, CQL2's).
 */
export type CursorToken =
  | { readonly kind: 'end'; readonly offset: number }
  | { readonly kind: 'string'; readonly value: string; readonly offset: number }
  | { readonly kind: string; readonly text: string; readonly quoted?: boolean; readonly offset: number };

/** The punctuation a language's tokens spell; parentheses group in every language the cursor serves. */
type PunctOf<T> = (T extends { readonly kind: 'punct'; readonly text: infer P } ? P : never) | '(' | ')';

/**
 * A forward-only cursor; `peek`/`next` never run past the final `end` token.
 *
 * @example
 * const cursor = new TokenCursor(tokenize('A eq 1', '$filter'), '$filter');
 * cursor.next(); cursor.acceptKeyword('eq'); // → true
 */
export class TokenCursor<T extends CursorToken = Token> {
  private index = 0;
  /** One filter's text is one cursor: its geometry literals share this budget (GEOMETRY_LIMITS). */
  readonly geometryBudget = new GeometryBudget();

  constructor(
    private readonly tokens: readonly T[],
    /** The option the text came from, e.g. `$filter`, for messages and `ODataError.parameter`. */
    readonly parameter: string,
  ) {}

  peek(ahead = 0): T {
    // The list always ends with an `end` token, so clamping never returns undefined.
    const last = this.tokens[this.tokens.length - 1];
    return this.tokens[Math.min(this.index + ahead, this.tokens.length - 1)] ?? (last as T);
  }

  next(): T {
    const token = this.peek();
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  /** True (and consumes it) when the next token is the keyword, compared case-insensitively as OData 4.01 allows. */
  acceptKeyword(keyword: string): boolean {
    if (!isKeyword(this.peek(), keyword)) return false;
    this.next();
    return true;
  }

  acceptPunct(text: PunctOf<T>): boolean {
    const token = this.peek();
    if (token.kind !== 'punct' || !('text' in token) || token.text !== text) return false;
    this.next();
    return true;
  }

  /** Consume the punctuation or throw `code` with `hint` appended to the standard message. */
  expectPunct(text: PunctOf<T>, code: ODataErrorCode, hint: string): T {
    const token = this.peek();
    if (!this.acceptPunct(text)) {
      throw this.error(code, `Expected '${text}' at position ${token.offset} of ${this.parameter}, found ${this.describe(token)}: ${hint}`, token.offset);
    }
    return token;
  }

  /** How a token is named in messages (describeToken). */
  describe(token: T): string {
    return describeToken(token, this.parameter);
  }

  error(code: ODataErrorCode, message: string, offset: number): ODataError {
    return new ODataError(code, message, { parameter: this.parameter, offset });
  }
}

/**
 * Whether a token is the given lower-case keyword, in any letter case; a double-quoted name (CQL2) never is.
 *
 * @example
 * isKeyword({ kind: 'identifier', text: 'AND', offset: 0 }, 'and') // → true
 */
export function isKeyword(token: CursorToken, keyword: string): boolean {
  return token.kind === 'identifier' && 'text' in token && token.quoted !== true && token.text.toLowerCase() === keyword;
}

/**
 * How a token is named in error messages, in every language alike: quoted text as written (quotes doubled), a
 * double-quoted name in its double quotes, any other token by its text; long text is shortened so messages stay
 * readable.
 *
 * @example
 * describeToken({ kind: 'end', offset: 4 }, '$filter') // → 'the end of $filter'
 */
export function describeToken(token: CursorToken, parameter: string): string {
  if ('value' in token) return `'${shorten(token.value.replace(/'/g, "''"))}'`;
  if ('text' in token) return token.quoted === true ? `"${shorten(token.text)}"` : `'${shorten(token.text)}'`;
  return `the end of ${parameter}`;
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
