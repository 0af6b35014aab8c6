/**
 * Parser for the `$apply` subset of OData Data Aggregation v4.0 we implement:
 *
 *   groupby((F1,F2,…),aggregate($count as Alias))
 *   filter(<filter expression>)/groupby((F1,…),aggregate($count as Alias))
 *
 * `groupby((F1,…))` without `aggregate` is rejected rather than counted: the
 * spec (Data Aggregation §3.10) defines it as the distinct combinations of the
 * grouping values with no count, so silently adding a count would change its
 * meaning. Every other transformation or aggregate is `unsupported_apply`.
 */
import type { Apply, Expr, Property } from './ast.js';
import { tokenize, type Punctuation, type Token } from './lexer.js';
import { FilterParser } from './parse-filter.js';
import { describeToken, isKeyword, TokenCursor } from './token-cursor.js';

const PARAMETER = '$apply';
/** OData's odataIdentifier: a leading character and at most 127 more (ABNF); every group repeats the alias. */
const MAX_IDENTIFIER = 128;
const SUPPORTED = 'the supported forms are groupby((Field1,Field2),aggregate($count as Count)) and filter(<condition>)/groupby((Field1,…),aggregate($count as Count))';

/**
 * Parse an `$apply` value (already percent-decoded). Filter errors inside
 * `filter(…)` keep their own codes, with offsets into the `$apply` text.
 *
 * @example
 * parseApply("filter(Year ge 2020)/groupby((CharacteristicName),aggregate($count as Count))")
 * // → { filter: { kind: 'compare', … }, groupBy: [{ kind: 'property', name: 'CharacteristicName', offset: 30 }], countAlias: 'Count' }
 */
export function parseApply(text: string): Apply {
  const cursor = new TokenCursor(tokenize(text, PARAMETER), PARAMETER);
  const filter = parseFilterStep(cursor);
  expectKeyword(cursor, 'groupby', filter === undefined ? 'filter(…) or groupby(…)' : 'groupby(…)');
  expect(cursor, '(');
  expect(cursor, '(');
  const groupBy = parseGroupingFields(cursor);
  if (!cursor.acceptPunct(',')) {
    const token = cursor.peek();
    if (token.kind === 'punct' && token.text === ')') {
      throw cursor.error('unsupported_apply', `groupby without aggregate (position ${token.offset} of $apply) is not supported: add the count, e.g. groupby((${groupBy.map((p) => p.name).join(',')}),aggregate($count as Count)).`, token.offset);
    }
    throw unsupported(cursor, token);
  }
  const countAlias = parseCountAggregate(cursor, groupBy);
  expect(cursor, ')');
  const rest = cursor.peek();
  if (rest.kind !== 'end') throw unsupported(cursor, rest);
  return filter === undefined ? { groupBy, countAlias } : { filter, groupBy, countAlias };
}

function parseFilterStep(cursor: TokenCursor): Expr | undefined {
  if (!isKeyword(cursor.peek(), 'filter')) return undefined;
  cursor.next();
  expect(cursor, '(');
  const filter = new FilterParser(cursor).parseExpression();
  cursor.expectPunct(')', 'invalid_filter', "join conditions with and/or and close filter( with ')'.");
  expect(cursor, '/');
  return filter;
}

function parseGroupingFields(cursor: TokenCursor): Property[] {
  const fields: Property[] = [];
  const seen = new Set<string>();
  do {
    const token = cursor.next();
    if (token.kind !== 'identifier') throw unsupported(cursor, token);
    if (seen.has(token.text)) {
      throw cursor.error('unsupported_apply', `'${token.text}' appears twice in groupby (position ${token.offset} of $apply): list each field once.`, token.offset);
    }
    seen.add(token.text);
    fields.push({ kind: 'property', name: token.text, offset: token.offset });
  } while (cursor.acceptPunct(','));
  expect(cursor, ')');
  return fields;
}

function parseCountAggregate(cursor: TokenCursor, groupBy: readonly Property[]): string {
  expectKeyword(cursor, 'aggregate', 'aggregate($count as Count)');
  expect(cursor, '(');
  const count = cursor.next();
  if (count.kind !== 'system' || count.text !== '$count') {
    throw cursor.error('unsupported_apply', `Only the $count aggregate is supported (position ${count.offset} of $apply, found ${describeToken(count, PARAMETER)}): write aggregate($count as Count); sum, average, min, max and countdistinct are not available.`, count.offset);
  }
  expectKeyword(cursor, 'as', "aggregate($count as Count) (the alias is required)");
  const alias = cursor.next();
  if (alias.kind !== 'identifier' || groupBy.some((f) => f.name === alias.text)) {
    throw cursor.error('unsupported_apply', `Expected a new column name after 'as' at position ${alias.offset} of $apply, found ${describeToken(alias, PARAMETER)}: use a name not in the groupby list, e.g. aggregate($count as Count).`, alias.offset);
  }
  if (alias.text.length > MAX_IDENTIFIER) {
    throw cursor.error('unsupported_apply', `The alias after 'as' at position ${alias.offset} of $apply is ${alias.text.length} characters long; an OData identifier has at most ${MAX_IDENTIFIER}: use a short name, e.g. aggregate($count as Count).`, alias.offset);
  }
  expect(cursor, ')');
  return alias.text;
}

function expect(cursor: TokenCursor, punct: Punctuation): void {
  if (!cursor.acceptPunct(punct)) throw unsupported(cursor, cursor.peek());
}

function expectKeyword(cursor: TokenCursor, keyword: string, what: string): void {
  const token = cursor.peek();
  if (!cursor.acceptKeyword(keyword)) {
    throw cursor.error('unsupported_apply', `Expected ${what} at position ${token.offset} of $apply, found ${describeToken(token, PARAMETER)}: ${SUPPORTED}.`, token.offset);
  }
}

function unsupported(cursor: TokenCursor, token: Token): Error {
  return cursor.error('unsupported_apply', `Unsupported $apply syntax at position ${token.offset}, found ${describeToken(token, PARAMETER)}: ${SUPPORTED}.`, token.offset);
}
