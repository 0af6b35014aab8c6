/**
 * The OData token cursor (odata/token-cursor.ts) over CQL2 tokens, with what CQL2 adds: signed numbers and calls.
 */
import type { NumberLiteral } from '../odata/ast.js';
import { TokenCursor } from '../odata/token-cursor.js';
import type { Token } from './lexer.js';

/**
 * @example
 * const cursor = new Cursor(tokenize('a AND b', 'filter'), 'filter');
 * cursor.next(); cursor.acceptKeyword('and'); // → true
 */
export class Cursor extends TokenCursor<Token> {
  constructor(
    tokens: readonly Token[],
    parameter: string,
    /** The text the tokens were read from: geometry literals are read from it (odata/wkt.ts). */
    readonly text = '',
  ) {
    super(tokens, parameter);
  }

  /** Moves past every token that starts before `offset` (the end of a literal read from the text). */
  skipTo(offset: number): void {
    while (this.peek().kind !== 'end' && this.peek().offset < offset) this.next();
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
