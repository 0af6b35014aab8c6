/**
 * A read position over CQL2 tokens, with the token-level helpers the predicate and spatial parsers share, so both
 * report errors against the same parameter and offsets.
 */
import type { NumberLiteral } from '../odata/ast.js';
import { ODataError, type ODataErrorCode } from '../odata/odata-error.js';
import type { Punctuation, Token } from './lexer.js';
import { assertNever } from '../assert-never.js';

/**
 * A forward-only cursor; `peek`/`next` never run past the final `end` token.
 *
 * @example
 * const cursor = new Cursor(tokenize('a AND b', 'filter'), 'filter');
 * cursor.next(); cursor.acceptKeyword('and'); // → true
 */
export class Cursor {
  private index = 0;

  constructor(
    private readonly tokens: readonly Token[],
    /** The query parameter the text came from, for messages and `ODataError.parameter`. */
    readonly parameter: string,
  ) {}

  peek(ahead = 0): Token {
    const last = this.tokens[this.tokens.length - 1] as Token;
    return this.tokens[Math.min(this.index + ahead, this.tokens.length - 1)] ?? last;
  }

  next(): Token {
    const token = this.peek();
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  /** True (and consumes it) when the next token is the unquoted keyword, in any letter case. */
  acceptKeyword(keyword: string): boolean {
    if (!isKeyword(this.peek(), keyword)) return false;
    this.next();
    return true;
  }

  acceptPunct(text: Punctuation): boolean {
    const token = this.peek();
    if (token.kind !== 'punct' || token.text !== text) return false;
    this.next();
    return true;
  }

  /** Consume the punctuation or throw `invalid_filter` with `hint` appended to the standard message. */
  expectPunct(text: Punctuation, hint: string): Token {
    const token = this.peek();
    if (!this.acceptPunct(text)) throw this.error('invalid_filter', `Expected '${text}' at position ${token.offset} of ${this.parameter}, found ${this.describe(token)}: ${hint}`, token.offset);
    return token;
  }

  /**
   * A number with an optional sign (BNF `signedNumericLiteral`), `text` exactly as written minus any space after
   * the sign; undefined (nothing consumed) when the next tokens are not one.
   */
  acceptSignedNumber(): NumberLiteral | undefined {
    const first = this.peek();
    const signed = first.kind === 'symbol' && (first.text === '-' || first.text === '+');
    const digits = this.peek(signed ? 1 : 0);
    if (digits.kind !== 'number') return undefined;
    if (signed) this.next();
    this.next();
    const text = `${signed ? first.text : ''}${digits.text}`;
    return { kind: 'number', text, value: Number(text), integer: /^[+-]?[0-9]+$/.test(text), offset: first.offset };
  }

  error(code: ODataErrorCode, message: string, offset: number): ODataError {
    return new ODataError(code, message, { parameter: this.parameter, offset });
  }

  /** How a token is named in messages; long text is shortened so messages stay readable. */
  describe(token: Token): string {
    switch (token.kind) {
      case 'end':
        return `the end of ${this.parameter}`;
      case 'string':
        return `'${shorten(token.value.replace(/'/g, "''"))}'`;
      case 'identifier':
        return token.quoted ? `"${shorten(token.text)}"` : `'${shorten(token.text)}'`;
      case 'number':
      case 'operator':
      case 'symbol':
      case 'punct':
        return `'${shorten(token.text)}'`;
      default:
        return assertNever(token);
    }
  }
}

/**
 * Whether a token is the given lower-case keyword, in any letter case; a double-quoted name never is.
 *
 * @example
 * isKeyword({ kind: 'identifier', text: 'AND', quoted: false, offset: 0 }, 'and') // → true
 */
export function isKeyword(token: Token, keyword: string): boolean {
  return token.kind === 'identifier' && !token.quoted && token.text.toLowerCase() === keyword;
}

/**
 * Whether the token `ahead` is an unquoted name followed by `(`: a function call or a typed literal such as `DATE('…')`.
 *
 * @example
 * isCall(new Cursor(tokenize("DATE('2020-01-01')", 'filter'), 'filter')) // → true; `"DATE" = 1` → false
 */
export function isCall(cursor: Cursor, ahead = 0): boolean {
  const token = cursor.peek(ahead);
  const following = cursor.peek(ahead + 1);
  return token.kind === 'identifier' && !token.quoted && following.kind === 'punct' && following.text === '(';
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
