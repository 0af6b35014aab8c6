/**
 * The boolean skeleton of a filter language, shared by `$filter` (parse-filter.ts) and CQL2-Text (cql2/): `or` >
 * `and` > `not` > a parenthesised expression or one of the language's terms, with `and`/`or` left-associative and
 * parsed by loops (long chains cost no stack). Only parentheses and `not` recurse, and both count against
 * FILTER_LIMITS.maxDepth, so hostile nesting fails with `too_deep` long before the JS stack is at risk.
 */
import type { Expr } from './ast.js';
import type { CursorToken, TokenCursor } from './token-cursor.js';

/** Limits against hostile input; exported so docs and tests use the same numbers. */
export const FILTER_LIMITS = { maxDepth: 64, maxInValues: 1000, maxTerms: 1000 } as const;

/** How a language spells, in the limits' hints, `not` in the plural and the `in` of a list. */
export interface LimitWords {
  readonly nots: string;
  readonly in: string;
}

/**
 * A parser of one boolean expression; a language subclasses it with `parseTerm`, the conditions it knows.
 *
 * @example
 * class FilterParser extends BooleanParser<Token> { protected parseTerm() { … } }
 * new FilterParser(cursor).parseExpression(); // stops at the first token that cannot continue the expression
 */
export abstract class BooleanParser<T extends CursorToken> {
  private depth = 0;
  private terms = 0;

  protected constructor(
    protected readonly cursor: TokenCursor<T>,
    private readonly words: LimitWords,
  ) {}

  /** Parse an `or`-level expression and stop at the first token that cannot continue it. */
  parseExpression(): Expr {
    let left = this.parseAnd();
    while (this.cursor.acceptKeyword('or')) left = { kind: 'or', left, right: this.parseAnd() };
    return left;
  }

  /** One condition that is neither parenthesised nor negated, from the cursor's next token. */
  protected abstract parseTerm(): Expr;

  /** Counts `n` conditions (what the equivalent `$filter` would hold) against FILTER_LIMITS.maxTerms. */
  protected countTerms(token: T, n: number, expr: Expr): Expr {
    this.terms += n;
    if (this.terms > FILTER_LIMITS.maxTerms) {
      throw this.cursor.error('too_many_terms', `More than ${FILTER_LIMITS.maxTerms} conditions in ${this.cursor.parameter} (at position ${token.offset}): use ${this.words.in} (…) lists or split the request.`, token.offset);
    }
    return expr;
  }

  private parseAnd(): Expr {
    let left = this.parseUnary();
    while (this.cursor.acceptKeyword('and')) left = { kind: 'and', left, right: this.parseUnary() };
    return left;
  }

  private parseUnary(): Expr {
    const token = this.cursor.peek();
    if (!this.cursor.acceptKeyword('not')) return this.parsePrimary();
    // `not A eq 1` is read as `not (A eq 1)`. Strict OData binds `not` tighter, giving
    // `(not A) eq 1`, which needs a bare boolean field (outside our dialect); for a boolean
    // field the two readings agree, so no valid query changes meaning. CQL2's BNF reads it so.
    return this.nested(token, () => ({ kind: 'not', operand: this.parseUnary() }));
  }

  private parsePrimary(): Expr {
    const token = this.cursor.peek();
    if (!this.cursor.acceptPunct('(')) return this.parseTerm();
    const inner = this.nested(token, () => this.parseExpression());
    this.cursor.expectPunct(')', 'invalid_filter', `close the parenthesis opened at position ${token.offset}.`);
    return inner;
  }

  private nested<R>(token: T, parse: () => R): R {
    if (++this.depth > FILTER_LIMITS.maxDepth) {
      throw this.cursor.error('too_deep', `Expression nested deeper than ${FILTER_LIMITS.maxDepth} levels at position ${token.offset} of ${this.cursor.parameter}: remove redundant parentheses or ${this.words.nots}, or use ${this.words.in} (…) for lists of values.`, token.offset);
    }
    const result = parse();
    this.depth--;
    return result;
  }
}
