/**
 * One side of a CQL2 comparison: a property name or a literal, as the shared AST's `Property` and `Literal`
 * nodes. `DATE('…')` and `TIMESTAMP('…')` become the date and date-time literals the OData parser makes of
 * `2020-01-31` and `2020-01-31T10:00:00Z`, so the planner coerces both dialects' values by one set of rules.
 */
import type { Literal, Property } from '../odata/ast.js';
import { isKeyword } from '../odata/token-cursor.js';
import { isCall, type Cursor } from './cursor.js';
import type { Token } from './lexer.js';
import { unsupportedCall } from './unsupported-call.js';
import { assertNever } from '../assert-never.js';

/** Words that end or join a predicate; unquoted they are never property names (`"in"` is). */
export const RESERVED: ReadonlySet<string> = new Set(['and', 'or', 'not', 'in', 'like', 'between', 'is', 'null', 'true', 'false', 'div']);

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
// BNF `timestampInstantString`: seconds and the `Z` are required; a fraction is optional.
const TIMESTAMP = /^([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?Z$/;

/**
 * Reads a property name or a value; `hint` ends the "expected …" message, `after` names the operator before it.
 *
 * @example
 * parseScalar(new Cursor(tokenize("DATE('2020-01-31')", 'filter'), 'filter'), 'e.g. …')
 * // → { kind: 'date', value: '2020-01-31', offset: 0 }
 */
export function parseScalar(cursor: Cursor, hint: string, after?: Token): Property | Literal {
  const scalar = readScalar(cursor, hint, after);
  rejectArithmetic(cursor, scalar.offset);
  return scalar;
}

function readScalar(cursor: Cursor, hint: string, after?: Token): Property | Literal {
  const token = cursor.peek();
  switch (token.kind) {
    case 'string':
      cursor.next();
      return { kind: 'string', value: token.value, offset: token.offset };
    case 'number':
      return cursor.acceptSignedNumber() ?? throwExpected(cursor, token, hint, after);
    case 'symbol':
      if (token.text === '!') return throwExpected(cursor, token, hint, after);
      return cursor.acceptSignedNumber() ?? throwArithmetic(cursor, token);
    case 'identifier':
      return identifierScalar(cursor, token, hint, after);
    case 'punct':
      if (token.text === '(') {
        throw cursor.error('unsupported_expression', `A parenthesised value at position ${token.offset} of ${cursor.parameter} is not supported (nor is arithmetic): compare a property with a plain value, e.g. ResultValue > 9.`, token.offset);
      }
      return throwExpected(cursor, token, hint, after);
    case 'operator':
    case 'end':
      return throwExpected(cursor, token, hint, after);
    default:
      return assertNever(token);
  }
}

function identifierScalar(cursor: Cursor, token: Extract<Token, { kind: 'identifier' }>, hint: string, after?: Token): Property | Literal {
  if (token.quoted) {
    cursor.next();
    return { kind: 'property', name: token.text, offset: token.offset };
  }
  const lower = token.text.toLowerCase();
  if (isCall(cursor)) {
    if (lower === 'date' || lower === 'timestamp') return typedLiteral(cursor, token, lower);
    throw unsupportedCall(cursor, token);
  }
  if (lower === 'true' || lower === 'false') {
    cursor.next();
    return { kind: 'boolean', value: lower === 'true', offset: token.offset };
  }
  if (lower === 'null') {
    throw cursor.error('unsupported_expression', `NULL at position ${token.offset} of ${cursor.parameter} is not a value to compare with: test for it with IS NULL or IS NOT NULL, e.g. ResultValue IS NULL.`, token.offset);
  }
  if (RESERVED.has(lower)) return throwExpected(cursor, token, hint, after);
  cursor.next();
  return { kind: 'property', name: token.text, offset: token.offset };
}

function typedLiteral(cursor: Cursor, name: Token, kind: 'date' | 'timestamp'): Literal {
  const example = kind === 'date' ? "DATE('2020-01-31')" : "TIMESTAMP('2020-01-31T10:00:00Z')";
  const usage = `write ${example}.`;
  cursor.next();
  cursor.expectPunct('(', 'invalid_filter', usage);
  const text = cursor.next();
  if (text.kind !== 'string' || !(kind === 'date' ? validDate(text.value) : validTimestamp(text.value))) {
    const shape = kind === 'date' ? 'a quoted YYYY-MM-DD date on the calendar' : 'a quoted UTC date-time YYYY-MM-DDThh:mm:ss[.fff]Z';
    throw cursor.error('invalid_filter', `${kind.toUpperCase()}(…) takes ${shape}, found ${cursor.describe(text)} at position ${text.offset} of ${cursor.parameter}: ${usage}`, text.offset);
  }
  cursor.expectPunct(')', 'invalid_filter', usage);
  return kind === 'date' ? { kind: 'date', value: text.value, offset: name.offset } : { kind: 'datetime', value: text.value, offset: name.offset };
}

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day >= 1 && day <= days;
}

function validTimestamp(text: string): boolean {
  const match = TIMESTAMP.exec(text);
  return match !== null && validDate(match[1] ?? '') && Number(match[2]) <= 23 && Number(match[3]) <= 59 && Number(match[4]) <= 59;
}

// The BNF's arithmetic (`+ - * / % ^ div`) is outside this dialect; say so where it starts rather than fail later.
function rejectArithmetic(cursor: Cursor, start: number): void {
  const token = cursor.peek();
  if ((token.kind === 'symbol' && token.text !== '!') || isKeyword(token, 'div')) throwArithmetic(cursor, token, start);
}

function throwArithmetic(cursor: Cursor, token: Token, start = token.offset): never {
  const operator = token.kind === 'symbol' ? token.text : 'div';
  throw cursor.error('unsupported_expression', `Arithmetic ('${operator}' at position ${token.offset} of ${cursor.parameter}) is not supported: compare a property with a plain value, e.g. ResultValue > 9 (the expression starts at position ${start}).`, token.offset);
}

function throwExpected(cursor: Cursor, token: Token, hint: string, after?: Token): never {
  const p = cursor.parameter;
  const afterText = after === undefined ? '' : ` after ${cursor.describe(after)}`;
  const what = after === undefined ? 'a property name or value' : 'a value';
  throw cursor.error('invalid_filter', `Expected ${what}${afterText} at position ${token.offset} of ${p}, found ${cursor.describe(token)}: ${hint}`, token.offset);
}
