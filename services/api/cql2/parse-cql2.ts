/**
 * Recursive-descent parser for CQL2-Text (OGC 21-065) into the same expression tree `$filter` parses to, so a
 * CQL2 filter is planned and compiled by the one planner and compiler: one parser per language, nothing after.
 *
 * Precedence is the BNF's: `NOT` > predicates > `AND` > `OR`, the boolean skeleton `$filter` has: this parser is
 * odata/boolean-parser.ts (its loops, depth and term limits) over CQL2's predicates, on the OData token cursor.
 * Like `odata/`, the parser knows no catalogue: names pass through as `Property` nodes and the planner rejects
 * unknown or unfilterable ones. The supported subset is described in this folder's README.md.
 */
import type { CompareOp, Expr, Literal, Property } from '../odata/ast.js';
import { BooleanParser, FILTER_LIMITS } from '../odata/boolean-parser.js';
import { isKeyword } from '../odata/token-cursor.js';
import { Cursor, isCall } from './cursor.js';
import { tokenize, type Operator, type Token } from './lexer.js';
import { likeExpr } from './like-expr.js';
import { parseScalar } from './parse-scalar.js';
import { GEOMETRY_PROPERTY, isSpatialFunction, parseSpatial } from './spatial-expr.js';
import { unsupportedCall } from './unsupported-call.js';

export { GEOMETRY_PROPERTY } from './spatial-expr.js';

const COMPARE_OPS: Readonly<Record<Operator, CompareOp>> = { '=': 'eq', '<>': 'ne', '<': 'lt', '>': 'gt', '<=': 'le', '>=': 'ge' };
// Used when the literal is written first: `2020 < Year` means `Year > 2020`.
const FLIPPED: Readonly<Record<CompareOp, CompareOp>> = { eq: 'eq', ne: 'ne', lt: 'gt', gt: 'lt', le: 'ge', ge: 'le' };
const EXAMPLE = "e.g. CharacteristicName = 'pH'.";

/**
 * Parse CQL2-Text (already percent-decoded) into an expression tree. Throws `ODataError` (`invalid_filter`,
 * `unsupported_expression`, `unsupported_function`, `too_deep`, `too_many_values`, `too_many_terms`) naming
 * `parameter` and the offset of the problem.
 *
 * @example
 * parseCql2Text("CharacteristicName IN ('pH', 'Temperature, water') AND S_INTERSECTS(geometry, BBOX(-120, 49, -110, 60))")
 * // → { kind: 'and', left: { kind: 'in', … }, right: <the Latitude/Longitude comparisons of the box> }
 */
export function parseCql2Text(text: string, parameter = 'filter'): Expr {
  const cursor = new Cursor(tokenize(text, parameter), parameter, text);
  if (cursor.peek().kind === 'end') throw cursor.error('invalid_filter', `${parameter} is empty: give a condition, ${EXAMPLE}`, 0);
  const expr = new Cql2Parser(cursor).parseExpression();
  const rest = cursor.peek();
  if (rest.kind === 'punct' && rest.text === ')') {
    throw cursor.error('invalid_filter', `Unmatched ')' at position ${rest.offset} of ${parameter}: remove it or add the matching '('.`, rest.offset);
  }
  if (rest.kind !== 'end') {
    throw cursor.error('invalid_filter', `Expected AND, OR or the end of ${parameter} at position ${rest.offset}, found ${cursor.describe(rest)}: join conditions with AND or OR, e.g. CharacteristicName = 'pH' AND ResultValue > 9.`, rest.offset);
  }
  return expr;
}

class Cql2Parser extends BooleanParser<Token> {
  // The CQL2 cursor the skeleton was given: its predicates read signed numbers and calls.
  protected declare readonly cursor: Cursor;

  constructor(cursor: Cursor) {
    super(cursor, { nots: 'NOTs', in: 'IN' });
  }

  protected parseTerm(): Expr {
    const token = this.cursor.peek();
    if (token.kind === 'identifier' && isCall(this.cursor) && isSpatialFunction(token.text)) {
      this.cursor.next();
      return this.countTerms(token, 4, parseSpatial(this.cursor, token));
    }
    return this.parsePredicate();
  }

  private parsePredicate(): Expr {
    const first = this.cursor.peek();
    const left = parseScalar(this.cursor, EXAMPLE);
    if (left.kind === 'property' && left.name === GEOMETRY_PROPERTY) {
      throw this.cursor.error('unsupported_expression', `'${GEOMETRY_PROPERTY}' (position ${left.offset} of ${this.cursor.parameter}) can only be tested with S_INTERSECTS(${GEOMETRY_PROPERTY}, BBOX(west, south, east, north)); every location has one.`, left.offset);
    }
    const negated = this.cursor.acceptKeyword('not');
    const opToken = this.cursor.next();
    const expr = this.predicate(first, left, opToken, negated);
    return negated ? { kind: 'not', operand: expr } : expr;
  }

  private predicate(first: Token, left: Property | Literal, opToken: Token, negated: boolean): Expr {
    if (isKeyword(opToken, 'like')) return this.countTerms(opToken, 1, this.parseLike(this.requireProperty(left, 'LIKE'), opToken));
    if (isKeyword(opToken, 'between')) return this.countTerms(opToken, 2, this.parseBetween(this.requireProperty(left, 'BETWEEN'), opToken));
    if (isKeyword(opToken, 'in')) return this.countTerms(opToken, 1, this.parseIn(this.requireProperty(left, 'IN'), opToken));
    if (negated) {
      throw this.cursor.error('invalid_filter', `Expected LIKE, BETWEEN or IN after NOT at position ${opToken.offset} of ${this.cursor.parameter}, found ${this.cursor.describe(opToken)}: write NOT before the whole condition, e.g. NOT (ResultValue > 9).`, opToken.offset);
    }
    if (isKeyword(opToken, 'is')) return this.countTerms(opToken, 1, this.parseIsNull(this.requireProperty(left, 'IS NULL'), opToken));
    if (opToken.kind === 'operator') return this.countTerms(opToken, 1, this.parseComparison(first, left, COMPARE_OPS[opToken.text], opToken));
    throw this.missingOperator(first, left, opToken);
  }

  private parseComparison(first: Token, left: Property | Literal, op: CompareOp, opToken: Token): Expr {
    const right = parseScalar(this.cursor, `quote text values, e.g. CharacteristicName ${opToken.kind === 'operator' ? opToken.text : '='} 'pH'.`, opToken);
    if (left.kind === 'property' && right.kind !== 'property') return { kind: 'compare', op, property: left, value: right, offset: first.offset };
    if (left.kind !== 'property' && right.kind === 'property') return { kind: 'compare', op: FLIPPED[op], property: right, value: left, offset: first.offset };
    const message =
      left.kind === 'property' && right.kind === 'property'
        ? `Comparing property '${left.name}' with property '${right.name}' (position ${left.offset} of ${this.cursor.parameter}) is not supported: compare a property with a value, and quote text values, e.g. ${left.name} = '${right.name}'.`
        : `Comparing two values (position ${left.offset} of ${this.cursor.parameter}) is not supported: one side must be a property name, ${EXAMPLE}`;
    throw this.cursor.error('unsupported_expression', message, first.offset);
  }

  private parseLike(property: Property, opToken: Token): Expr {
    const token = this.cursor.peek();
    if (token.kind === 'identifier' && isCall(this.cursor)) throw unsupportedCall(this.cursor, token);
    if (token.kind !== 'string') {
      throw this.cursor.error('invalid_filter', `Expected a quoted pattern after ${this.cursor.describe(opToken)} at position ${token.offset} of ${this.cursor.parameter}, found ${this.cursor.describe(token)}: e.g. ${property.name} LIKE 'Lake%'.`, token.offset);
    }
    this.cursor.next();
    return likeExpr(this.cursor, property, { kind: 'string', value: token.value, offset: token.offset });
  }

  // Inclusive at both ends (requirement between-predicate), so `ge` and `le`: what `$filter` writes for a range.
  private parseBetween(property: Property, opToken: Token): Expr {
    const usage = `e.g. ${property.name} BETWEEN 10 AND 20.`;
    const low = this.value(property, usage, opToken);
    const and = this.cursor.peek();
    if (!this.cursor.acceptKeyword('and')) {
      throw this.cursor.error('invalid_filter', `Expected AND at position ${and.offset} of ${this.cursor.parameter}, found ${this.cursor.describe(and)}: ${usage}`, and.offset);
    }
    const high = this.value(property, usage, and);
    return {
      kind: 'and',
      left: { kind: 'compare', op: 'ge', property, value: low, offset: property.offset },
      right: { kind: 'compare', op: 'le', property, value: high, offset: property.offset },
    };
  }

  private parseIn(property: Property, opToken: Token): Expr {
    const usage = `e.g. ${property.name} IN ('a', 'b') or ${property.name} IN (1, 2).`;
    this.cursor.expectPunct('(', 'invalid_filter', usage);
    const values: Literal[] = [];
    do {
      const token = this.cursor.peek();
      if (values.length === FILTER_LIMITS.maxInValues) {
        throw this.cursor.error('too_many_values', `More than ${FILTER_LIMITS.maxInValues} values in the IN list at position ${token.offset} of ${this.cursor.parameter} (the list starts at position ${opToken.offset}): split the request into several smaller lists.`, token.offset);
      }
      values.push(this.value(property, usage, opToken));
    } while (this.cursor.acceptPunct(','));
    this.cursor.expectPunct(')', 'invalid_filter', `separate values with ',' and close the list with ')'; ${usage}`);
    return { kind: 'in', property, values, offset: property.offset };
  }

  private parseIsNull(property: Property, opToken: Token): Expr {
    const not = this.cursor.acceptKeyword('not');
    const token = this.cursor.next();
    if (!isKeyword(token, 'null')) {
      throw this.cursor.error('invalid_filter', `Expected NULL after ${this.cursor.describe(opToken)} at position ${token.offset} of ${this.cursor.parameter}, found ${this.cursor.describe(token)}: write ${property.name} IS NULL or ${property.name} IS NOT NULL.`, token.offset);
    }
    return { kind: 'compare', op: not ? 'ne' : 'eq', property, value: { kind: 'null', offset: token.offset }, offset: property.offset };
  }

  private value(property: Property, usage: string, after: Token): Literal {
    const value = parseScalar(this.cursor, usage, after);
    if (value.kind === 'property') {
      throw this.cursor.error('unsupported_expression', `Only values may appear here, found property '${value.name}' at position ${value.offset} of ${this.cursor.parameter}: quote text values, ${usage}`, value.offset);
    }
    return value;
  }

  private requireProperty(left: Property | Literal, operator: string): Property {
    if (left.kind === 'property') return left;
    throw this.cursor.error('unsupported_expression', `The left side of ${operator} at position ${left.offset} of ${this.cursor.parameter} must be a property name, e.g. CharacteristicName ${operator === 'IS NULL' ? 'IS NULL' : `${operator} …`}.`, left.offset);
  }

  private missingOperator(first: Token, left: Property | Literal, found: Token): Error {
    const p = this.cursor.parameter;
    if (found.kind === 'symbol' && found.text === '!') {
      return this.cursor.error('invalid_filter', `Unexpected '!' at position ${found.offset} of ${p}: CQL2 writes "not equal" as <>, e.g. CharacteristicName <> 'pH'.`, found.offset);
    }
    if (left.kind === 'boolean') {
      return this.cursor.error('unsupported_expression', `A bare ${left.value ? 'TRUE' : 'FALSE'} at position ${left.offset} of ${p} is not supported as a condition: write a comparison, ${EXAMPLE}`, left.offset);
    }
    return this.cursor.error('invalid_filter', `Expected an operator (= <> < <= > >= LIKE BETWEEN IN IS) after ${this.cursor.describe(first)} at position ${found.offset} of ${p}, found ${this.cursor.describe(found)}: ${EXAMPLE}`, found.offset);
  }
}
