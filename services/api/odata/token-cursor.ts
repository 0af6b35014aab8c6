/**
 * A read position over a token list, shared by the `$filter` and `$apply`
 * parsers so both report errors against the same option text and offsets.
 */
import type { Token } from './lexer.js';
import { ODataError, type ODataErrorCode } from './odata-error.js';
import { assertNever } from '../assert-never.js';

/**
 * A forward-only cursor; `peek`/`next` never run past the final `end` token.
 *
 * @example
 * const cursor = new TokenCursor(tokenize('A eq 1', '$filter'), '$filter');
 * cursor.next(); cursor.acceptKeyword('eq'); // → true
 */
export class TokenCursor {
  private index = 0;

  constructor(
    private readonly tokens: readonly Token[],
    /** The option the text came from, e.g. `$filter`, for messages and `ODataError.parameter`. */
    readonly parameter: string,
  ) {}

  peek(ahead = 0): Token {
    // The list always ends with an `end` token, so clamping never returns undefined.
    const last = this.tokens[this.tokens.length - 1];
    return this.tokens[Math.min(this.index + ahead, this.tokens.length - 1)] ?? (last as Token);
  }

  next(): Token {
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

  acceptPunct(text: string): boolean {
    const token = this.peek();
    if (token.kind !== 'punct' || token.text !== text) return false;
    this.next();
    return true;
  }

  /** Consume the punctuation or throw `code` with `hint` appended to the standard message. */
  expectPunct(text: string, code: ODataErrorCode, hint: string): Token {
    const token = this.peek();
    if (!this.acceptPunct(text)) {
      throw this.error(code, `Expected '${text}' at position ${token.offset} of ${this.parameter}, found ${describeToken(token, this.parameter)}: ${hint}`, token.offset);
    }
    return token;
  }

  error(code: ODataErrorCode, message: string, offset: number): ODataError {
    return new ODataError(code, message, { parameter: this.parameter, offset });
  }
}

/**
 * Whether a token is the given lower-case keyword, in any letter case.
 *
 * @example
 * isKeyword({ kind: 'identifier', text: 'AND', offset: 0 }, 'and') // → true
 */
export function isKeyword(token: Token, keyword: string): boolean {
  return token.kind === 'identifier' && token.text.toLowerCase() === keyword;
}

/**
 * How a token is named in error messages; long text is shortened so messages stay readable.
 *
 * @example
 * describeToken({ kind: 'end', offset: 4 }, '$filter') // → 'the end of $filter'
 */
export function describeToken(token: Token, parameter: string): string {
  switch (token.kind) {
    case 'end':
      return `the end of ${parameter}`;
    case 'string':
      return `'${shorten(token.value.replace(/'/g, "''"))}'`;
    case 'identifier':
    case 'system':
    case 'number':
    case 'date':
    case 'datetime':
    case 'punct':
      return `'${shorten(token.text)}'`;
    default:
      return assertNever(token);
  }
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
