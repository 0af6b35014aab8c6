/**
 * Recursive-descent parser for the `$filter` dialect.
 *
 * Precedence follows OData URL Conventions §5.1.1.1 restricted to our
 * operators: `not` > comparisons and `in` > `and` > `or`: the boolean skeleton
 * CQL2 shares (boolean-parser.ts, with its loops and depth limit), over this
 * file's terms, comparisons and function calls.
 */
import type { CompareOp, Expr, FunctionName, Literal, Property, StringLiteral } from './ast.js';
import { tokenize, type Token } from './lexer.js';
import { assertNever } from '../assert-never.js';
import { BooleanParser, FILTER_LIMITS } from './boolean-parser.js';
import { describeToken, isKeyword, TokenCursor } from './token-cursor.js';
import { isGeoFunction, parseGeoFunction } from './geo-functions.js';

export { FILTER_LIMITS } from './boolean-parser.js';

// DataStream also accepts `lte`/`gte`; they normalise to OData's `le`/`ge`.
const COMPARE_OPS: ReadonlyMap<string, CompareOp> = new Map([
  ['eq', 'eq'], ['ne', 'ne'], ['lt', 'lt'], ['gt', 'gt'], ['le', 'le'], ['ge', 'ge'], ['lte', 'le'], ['gte', 'ge'],
]);
// Used when the literal is written first: `2020 lt Year` means `Year gt 2020`.
const FLIPPED: Readonly<Record<CompareOp, CompareOp>> = { eq: 'eq', ne: 'ne', lt: 'gt', gt: 'lt', le: 'ge', ge: 'le' };
const FUNCTIONS: ReadonlySet<string> = new Set<FunctionName>(['startswith', 'endswith', 'contains']);
const RESERVED = new Set(['and', 'or', 'not', 'in', ...COMPARE_OPS.keys()]);
const SUPPORTED_FUNCTIONS = "startswith(Field,'text'), endswith(Field,'text'), contains(Field,'text'), geo.intersects(Location,geography'…') and geo.distance(Location,geography'…')";

/**
 * Parse `$filter` text (already percent-decoded) into an expression tree.
 * Throws `ODataError` (`invalid_filter`, `unsupported_expression`, `unsupported_function`,
 * `too_deep`, `too_many_values`, `too_many_terms`) with the offset of the problem.
 *
 * @example
 * parseFilter("LocationId eq 5 and CharacteristicName in ('pH','Temperature')")
 * // → { kind: 'and', left: { kind: 'compare', op: 'eq', … }, right: { kind: 'in', … } }
 */
export function parseFilter(text: string, parameter = '$filter'): Expr {
  const cursor = new TokenCursor(tokenize(text, parameter), parameter);
  if (cursor.peek().kind === 'end') {
    throw cursor.error('invalid_filter', `${parameter} is empty: give a condition, e.g. CharacteristicName eq 'pH'.`, 0);
  }
  const expr = new FilterParser(cursor, text).parseExpression();
  const rest = cursor.peek();
  if (rest.kind !== 'end') throw unexpectedAfterExpression(cursor, rest);
  return expr;
}

function unexpectedAfterExpression(cursor: TokenCursor, token: Token): Error {
  const where = `at position ${token.offset} of ${cursor.parameter}`;
  if (token.kind === 'punct' && token.text === ')') {
    return cursor.error('invalid_filter', `Unmatched ')' ${where}: remove it or add the matching '('.`, token.offset);
  }
  return cursor.error('invalid_filter', `Expected 'and', 'or' or the end of the expression ${where}, found ${describeToken(token, cursor.parameter)}: join conditions with and/or, e.g. A eq 1 and B eq 2.`, token.offset);
}

/**
 * Parses one boolean expression from a cursor; `$apply`'s `filter(…)` reuses it mid-stream.
 *
 * @example
 * const cursor = new TokenCursor(tokenize('A eq 1)/groupby', '$apply'), '$apply');
 * new FilterParser(cursor).parseExpression(); // → compare A eq 1; cursor now at ')'
 */
export class FilterParser extends BooleanParser<Token> {
  constructor(
    cursor: TokenCursor,
    /** The option's value, from which geography literals are read (geo-functions.ts). */
    private readonly text = '',
  ) {
    super(cursor, { nots: "'not's", in: 'in' });
  }

  protected parseTerm(): Expr {
    const token = this.cursor.peek();
    const following = this.cursor.peek(1);
    if (token.kind === 'identifier' && following.kind === 'punct' && following.text === '(' && isGeoFunction(token.text)) {
      return this.countTerms(token, 4, parseGeoFunction(this.cursor, this.text));
    }
    if (token.kind === 'identifier' && following.kind === 'punct' && following.text === '(' && !RESERVED.has(token.text.toLowerCase())) {
      return this.countTerms(token, 1, this.parseFunction());
    }
    return this.countTerms(token, 1, this.parseComparison());
  }

  private parseFunction(): Expr {
    const nameToken = this.cursor.next() as Extract<Token, { kind: 'identifier' }>;
    const name = nameToken.text.toLowerCase();
    if (!FUNCTIONS.has(name)) {
      throw this.cursor.error('unsupported_function', `Unsupported function '${nameToken.text}' at position ${nameToken.offset} of ${this.cursor.parameter}: the supported functions are ${SUPPORTED_FUNCTIONS}.`, nameToken.offset);
    }
    const usage = `write ${name}(Field,'text').`;
    this.cursor.next();
    const property = this.expectProperty(usage);
    this.cursor.expectPunct(',', 'invalid_filter', usage);
    const valueToken = this.cursor.next();
    if (valueToken.kind !== 'string') {
      throw this.cursor.error('invalid_filter', `The second argument of ${name} at position ${valueToken.offset} of ${this.cursor.parameter} must be quoted text, found ${describeToken(valueToken, this.cursor.parameter)}: ${usage}`, valueToken.offset);
    }
    const value: StringLiteral = { kind: 'string', value: valueToken.value, offset: valueToken.offset };
    this.cursor.expectPunct(')', 'invalid_filter', usage);
    const call: Expr = { kind: 'function', name: name as FunctionName, property, value, offset: nameToken.offset };
    return this.parseFunctionComparison(call);
  }

  // `startswith(F,'x') eq true` is common in generated URLs; `eq false`/`ne true` negate.
  private parseFunctionComparison(call: Expr): Expr {
    const opToken = this.cursor.peek();
    const op = opToken.kind === 'identifier' ? opToken.text.toLowerCase() : '';
    if (op !== 'eq' && op !== 'ne') return call;
    this.cursor.next();
    const valueToken = this.cursor.next();
    const value = valueToken.kind === 'identifier' ? valueToken.text.toLowerCase() : '';
    if (value !== 'true' && value !== 'false') {
      throw this.cursor.error('unsupported_expression', `A function call can only be compared with true or false (position ${valueToken.offset} of ${this.cursor.parameter}): write startswith(Field,'text') or startswith(Field,'text') eq false.`, valueToken.offset);
    }
    return (op === 'eq') === (value === 'true') ? call : { kind: 'not', operand: call };
  }

  private expectProperty(usage: string): Property {
    const token = this.cursor.next();
    const operand = this.operand(token, usage);
    if (operand.kind !== 'property') {
      throw this.cursor.error('invalid_filter', `Expected a field name at position ${token.offset} of ${this.cursor.parameter}, found ${describeToken(token, this.cursor.parameter)}: ${usage}`, token.offset);
    }
    this.rejectPath(operand);
    return operand;
  }

  private parseComparison(): Expr {
    const first = this.cursor.next();
    const left = this.operand(first, "e.g. CharacteristicName eq 'pH'.");
    if (left.kind === 'property') this.rejectPath(left);
    const opToken = this.cursor.next();
    if (isKeyword(opToken, 'in')) return this.parseIn(left, opToken);
    const op = opToken.kind === 'identifier' ? COMPARE_OPS.get(opToken.text.toLowerCase()) : undefined;
    if (op === undefined) throw this.missingOperator(first, opToken);
    const second = this.cursor.next();
    const right = this.operand(second, `quote text values, e.g. CharacteristicName ${op} 'pH'.`, opToken);
    if (right.kind === 'property') this.rejectPath(right);
    if (left.kind === 'property' && right.kind !== 'property') {
      return { kind: 'compare', op, property: left, value: right, offset: first.offset };
    }
    if (left.kind !== 'property' && right.kind === 'property') {
      return { kind: 'compare', op: FLIPPED[op], property: right, value: left, offset: first.offset };
    }
    throw this.cursor.error('unsupported_expression', bothSidesMessage(left, right, op, this.cursor.parameter), first.offset);
  }

  private parseIn(left: Property | Literal, opToken: Token): Expr {
    if (left.kind !== 'property') {
      throw this.cursor.error('unsupported_expression', `The left side of 'in' at position ${left.offset} of ${this.cursor.parameter} must be a field name: write Field in ('a','b').`, left.offset);
    }
    const usage = "write Field in ('a','b') or Field in (1,2).";
    this.cursor.expectPunct('(', 'invalid_filter', usage);
    const values: Literal[] = [];
    do {
      const token = this.cursor.next();
      const value = this.operand(token, usage, opToken);
      if (value.kind === 'property') {
        throw this.cursor.error('unsupported_expression', `Only values may appear in an 'in' list, found field '${value.name}' at position ${value.offset} of ${this.cursor.parameter}: quote text values, e.g. ${left.name} in ('${value.name}').`, value.offset);
      }
      if (values.length === FILTER_LIMITS.maxInValues) {
        throw this.cursor.error('too_many_values', `More than ${FILTER_LIMITS.maxInValues} values in the 'in' list starting at position ${opToken.offset} of ${this.cursor.parameter}: split the request into several smaller lists.`, token.offset);
      }
      values.push(value);
    } while (this.cursor.acceptPunct(','));
    this.cursor.expectPunct(')', 'invalid_filter', `separate values with ',' and close the list with ')'; ${usage}`);
    return { kind: 'in', property: left, values, offset: left.offset };
  }

  private missingOperator(first: Token, found: Token): Error {
    const what = describeToken(first, this.cursor.parameter);
    return this.cursor.error('invalid_filter', `Expected an operator (eq, ne, lt, le, gt, ge, in) after ${what} at position ${found.offset} of ${this.cursor.parameter}, found ${describeToken(found, this.cursor.parameter)}: e.g. CharacteristicName eq 'pH'.`, found.offset);
  }

  // A property path `A/B` would otherwise fail as "expected an operator", which hides the reason.
  private rejectPath(property: Property): void {
    const next = this.cursor.peek();
    if (next.kind === 'punct' && next.text === '/') {
      throw this.cursor.error('unsupported_expression', `Property paths such as '${property.name}/…' (position ${property.offset} of ${this.cursor.parameter}) are not supported: every field is a plain name on the resource.`, property.offset);
    }
  }

  /** A field name or a literal value; `after` names the operator for "Expected a value after 'eq'" messages. */
  private operand(token: Token, hint: string, after?: Token): Property | Literal {
    switch (token.kind) {
      case 'string':
        return { kind: 'string', value: token.value, offset: token.offset };
      case 'number':
        return { kind: 'number', text: token.text, value: Number(token.text), integer: /^-?[0-9]+$/.test(token.text), offset: token.offset };
      case 'date':
        return { kind: 'date', value: token.text, offset: token.offset };
      case 'datetime':
        return { kind: 'datetime', value: token.text, offset: token.offset };
      case 'identifier':
        return this.identifierOperand(token, hint, after);
      case 'system':
        throw this.cursor.error('unsupported_expression', `'${token.text}' at position ${token.offset} of ${this.cursor.parameter} is not supported: name a field directly, e.g. CharacteristicName eq 'pH'.`, token.offset);
      case 'punct':
      case 'end':
        throw this.expectedOperand(token, hint, after);
      default:
        return assertNever(token);
    }
  }

  private identifierOperand(token: Extract<Token, { kind: 'identifier' }>, hint: string, after?: Token): Property | Literal {
    const lower = token.text.toLowerCase();
    if (lower === 'true' || lower === 'false') return { kind: 'boolean', value: lower === 'true', offset: token.offset };
    if (lower === 'null') return { kind: 'null', offset: token.offset };
    if (RESERVED.has(lower)) throw this.expectedOperand(token, hint, after);
    return { kind: 'property', name: token.text, offset: token.offset };
  }

  private expectedOperand(token: Token, hint: string, after?: Token): Error {
    const p = this.cursor.parameter;
    const afterText = after === undefined ? '' : ` after ${describeToken(after, p)}`;
    const what = after === undefined ? 'a field name or value' : 'a value';
    return this.cursor.error('invalid_filter', `Expected ${what}${afterText} at position ${token.offset} of ${p}, found ${describeToken(token, p)}: ${hint}`, token.offset);
  }
}

function bothSidesMessage(left: Property | Literal, right: Property | Literal, op: CompareOp, parameter: string): string {
  if (left.kind === 'property' && right.kind === 'property') {
    return `Comparing field '${left.name}' with field '${right.name}' (position ${left.offset} of ${parameter}) is not supported: compare a field with a value, and quote text values, e.g. ${left.name} ${op} '${right.name}'.`;
  }
  return `Comparing two values (position ${left.offset} of ${parameter}) is not supported: one side must be a field name, e.g. CharacteristicName ${op} 'pH'.`;
}
