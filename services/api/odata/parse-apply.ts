/**
 * Parser for the `$apply` subset of OData Data Aggregation v4.0 we implement:
 *
 *   [filter(<condition>)/]groupby((F1,F2,…)[,aggregate(<item>,…)])[/orderby(<key> [asc|desc],…)][/top(<n>)]
 *   [filter(<condition>)/]aggregate(<item>,…)
 *
 * where an item is `$count as Alias` or `Field with <method> as Alias`, the method one of sum, min, max, average,
 * countdistinct and the custom Tributary.median, Tributary.p10, Tributary.p90, Tributary.countnull and the statistics
 * with non-detects, Tributary.km_median, km_p10, km_p90, km_mean, km_median_qualifier, km_p10_qualifier,
 * km_p90_qualifier and km_method.
 * `groupby((F1,…))` without `aggregate` is the distinct combinations of the grouping values (Data Aggregation
 * §3.10.1), with no count. `orderby` and `top` after the aggregation (§3.3.1, §3.3.3) sort the groups by a grouped
 * field or an alias and keep the first n: "the ten sites with the most exceedances" is one request. Every other
 * transformation, path or expression is `unsupported_apply`.
 */
import type { Aggregate, AggregateMethod, Apply, ApplyOrderItem, Expr, Property } from './ast.js';
import { tokenize, type Punctuation, type Token } from './lexer.js';
import { FilterParser } from './parse-filter.js';
import { describeToken, isKeyword, TokenCursor } from './token-cursor.js';

const PARAMETER = '$apply';
/** OData's odataIdentifier: a leading character and at most 127 more (ABNF); every group repeats the alias. */
const MAX_IDENTIFIER = 128;
/** Aggregates in one `aggregate(…)`: each is a column of every group, and a scan computes them all at once. */
export const MAX_AGGREGATES = 16;
/** `top(n)`: a count of groups, as `$top` is a count of rows (a whole number that fits a 32-bit Int, as Edm.Int32). */
const MAX_TOP = 2 ** 31 - 1;

/** The methods `with` accepts; OData 4.01 reads keywords whatever their case, so `SUM` is `sum`. */
export const AGGREGATE_METHODS = [
  'sum', 'min', 'max', 'average', 'countdistinct', 'Tributary.median', 'Tributary.p10', 'Tributary.p90', 'Tributary.countnull',
  'Tributary.km_median', 'Tributary.km_p10', 'Tributary.km_p90', 'Tributary.km_mean',
  'Tributary.km_median_qualifier', 'Tributary.km_p10_qualifier', 'Tributary.km_p90_qualifier', 'Tributary.km_method',
] as const satisfies readonly AggregateMethod[];
const SUPPORTED =
  'the supported forms are [filter(<condition>)/]groupby((Field1,Field2)[,aggregate(…)])[/orderby(Field or Alias [desc],…)][/top(n)] and [filter(<condition>)/]aggregate(…), ' +
  `each aggregate $count as Alias or Field with <method> as Alias, the method one of ${AGGREGATE_METHODS.join(', ')}`;

/**
 * Parse an `$apply` value (already percent-decoded). Filter errors inside
 * `filter(…)` keep their own codes, with offsets into the `$apply` text.
 *
 * @example
 * parseApply("filter(Year ge 2020)/groupby((CharacteristicName),aggregate(ResultValue with average as Mean))")
 * // → { filter: { kind: 'compare', … }, groupBy: [{ kind: 'property', name: 'CharacteristicName', offset: 30 }],
 * //     aggregates: [{ kind: 'method', property: { name: 'ResultValue', … }, method: 'average', alias: 'Mean', … }] }
 */
export function parseApply(text: string): Apply {
  const cursor = new TokenCursor(tokenize(text, PARAMETER), PARAMETER);
  const filter = parseFilterStep(cursor);
  const { groupBy, aggregates } = parseAggregation(cursor, filter !== undefined);
  const orderBy = parseOrderStep(cursor, [...groupBy.map((p) => p.name), ...aggregates.map((a) => a.alias)]);
  const top = parseTopStep(cursor);
  const rest = cursor.peek();
  if (rest.kind !== 'end') throw unsupported(cursor, rest);
  return { ...(filter === undefined ? {} : { filter }), groupBy, aggregates, ...(orderBy ? { orderBy } : {}), ...(top ? { top } : {}) };
}

/** `/orderby(key [asc|desc], …)`: each key a column of the groups (a grouped field or an alias), once. */
function parseOrderStep(cursor: TokenCursor, columns: readonly string[]): ApplyOrderItem[] | undefined {
  if (!isStep(cursor, 'orderby')) return undefined;
  cursor.next();
  cursor.next();
  expect(cursor, '(');
  const items: ApplyOrderItem[] = [];
  do {
    const token = cursor.next();
    if (token.kind !== 'identifier' || !columns.includes(token.text)) {
      throw cursor.error('unsupported_apply', `orderby at position ${token.offset} of $apply sorts the groups by one of their columns (${columns.join(', ')}); found ${describeToken(token, PARAMETER)}.`, token.offset);
    }
    if (items.some((i) => i.name === token.text)) {
      throw cursor.error('unsupported_apply', `'${token.text}' appears twice in orderby (position ${token.offset} of $apply): list each column once.`, token.offset);
    }
    const descending = cursor.acceptKeyword('desc');
    if (!descending) cursor.acceptKeyword('asc');
    items.push({ name: token.text, descending, offset: token.offset });
  } while (cursor.acceptPunct(','));
  expect(cursor, ')');
  return items;
}

/** `/top(n)`: at most n groups in all. */
function parseTopStep(cursor: TokenCursor): Apply['top'] {
  if (!isStep(cursor, 'top')) return undefined;
  cursor.next();
  cursor.next();
  expect(cursor, '(');
  const n = cursor.next();
  const count = n.kind === 'number' && /^\d+$/.test(n.text) ? Number(n.text) : NaN;
  if (!(count <= MAX_TOP)) {
    throw cursor.error('unsupported_apply', `top(…) at position ${n.offset} of $apply takes a whole number of groups from 0 to ${MAX_TOP}, e.g. top(10); found ${describeToken(n, PARAMETER)}.`, n.offset);
  }
  expect(cursor, ')');
  return { count, offset: n.offset };
}

/** The next tokens are `/name(`: a transformation after the aggregation. */
function isStep(cursor: TokenCursor, name: string): boolean {
  const [slash, word] = [cursor.peek(), cursor.peek(1)];
  return slash.kind === 'punct' && slash.text === '/' && isKeyword(word, name);
}

function parseAggregation(cursor: TokenCursor, filtered: boolean): Pick<Apply, 'groupBy' | 'aggregates'> {
  if (cursor.acceptKeyword('aggregate')) return { groupBy: [], aggregates: parseAggregates(cursor, []) };
  expectKeyword(cursor, 'groupby', filtered ? 'groupby(…) or aggregate(…)' : 'filter(…), groupby(…) or aggregate(…)');
  expect(cursor, '(');
  expect(cursor, '(');
  const groupBy = parseGroupingFields(cursor);
  let aggregates: readonly Aggregate[] = [];
  if (cursor.acceptPunct(',')) {
    expectKeyword(cursor, 'aggregate', 'aggregate(…) after the grouping fields');
    aggregates = parseAggregates(cursor, groupBy);
  }
  expect(cursor, ')');
  return { groupBy, aggregates };
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

/** `(item, item, …)` after `aggregate`; each alias new among the groups and the other aggregates. */
function parseAggregates(cursor: TokenCursor, groupBy: readonly Property[]): Aggregate[] {
  expect(cursor, '(');
  const taken = new Set(groupBy.map((p) => p.name));
  const items: Aggregate[] = [];
  do {
    const item = parseAggregate(cursor, taken);
    if (items.length === MAX_AGGREGATES) {
      throw cursor.error('unsupported_apply', `More than ${MAX_AGGREGATES} aggregates in one aggregate(…) (position ${item.offset} of $apply): ask for fewer per request.`, item.offset);
    }
    taken.add(item.alias);
    items.push(item);
  } while (cursor.acceptPunct(','));
  expect(cursor, ')');
  return items;
}

function parseAggregate(cursor: TokenCursor, taken: ReadonlySet<string>): Aggregate {
  const first = cursor.next();
  if (first.kind === 'system' && first.text === '$count') {
    expectKeyword(cursor, 'as', '$count as Alias (the alias is required)');
    return { kind: 'count', alias: parseAlias(cursor, taken), offset: first.offset };
  }
  if (first.kind !== 'identifier') {
    throw cursor.error('unsupported_apply', `Expected $count or a field name at position ${first.offset} of $apply, found ${describeToken(first, PARAMETER)}: write e.g. aggregate($count as Count, ResultValue with average as Mean).`, first.offset);
  }
  const after = cursor.peek();
  if (after.kind === 'punct' && after.text === '/') {
    throw cursor.error('unsupported_apply', `Paths are not supported in aggregate (position ${after.offset} of $apply): aggregate a field of the resource itself, e.g. ResultValue with sum as Total.`, after.offset);
  }
  expectKeyword(cursor, 'with', `'with <method>' after ${first.text} (e.g. ${first.text} with average as Mean)`);
  const method = cursor.next();
  const known = AGGREGATE_METHODS.find((m) => method.kind === 'identifier' && m.toLowerCase() === method.text.toLowerCase());
  if (!known) {
    throw cursor.error('unsupported_apply', `Unknown aggregation method ${describeToken(method, PARAMETER)} at position ${method.offset} of $apply: use one of ${AGGREGATE_METHODS.join(', ')}.`, method.offset);
  }
  expectKeyword(cursor, 'as', `'as Alias' after ${first.text} with ${known} (the alias is required)`);
  const alias = parseAlias(cursor, taken);
  return { kind: 'method', property: { kind: 'property', name: first.text, offset: first.offset }, method: known, alias, offset: first.offset };
}

function parseAlias(cursor: TokenCursor, taken: ReadonlySet<string>): string {
  const alias = cursor.next();
  if (alias.kind !== 'identifier' || alias.text.includes('.') || taken.has(alias.text)) {
    throw cursor.error('unsupported_apply', `Expected a new column name after 'as' at position ${alias.offset} of $apply, found ${describeToken(alias, PARAMETER)}: use a name that is neither a grouped field nor another alias, e.g. aggregate($count as Count).`, alias.offset);
  }
  if (alias.text.length > MAX_IDENTIFIER) {
    throw cursor.error('unsupported_apply', `The alias after 'as' at position ${alias.offset} of $apply is ${alias.text.length} characters long; an OData identifier has at most ${MAX_IDENTIFIER}: use a short name, e.g. aggregate($count as Count).`, alias.offset);
  }
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
