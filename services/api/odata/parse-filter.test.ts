import { describe, expect, it } from 'vitest';
import { FILTER_LIMITS, parseFilter } from './parse-filter.js';
import {
  and, bool, catchODataError, cmp, date, datetime, fn, inList, not, nul, num, or, stripOffsets, str,
} from '../testing/odata-ast.js';

// Input → AST (offsets checked separately below).
const AST_CASES: readonly (readonly [string, unknown])[] = [
  // every comparison operator, DataStream aliases, keyword case
  ['A eq 1', cmp('A', 'eq', num('1'))],
  ['A ne 1', cmp('A', 'ne', num('1'))],
  ['A lt 1', cmp('A', 'lt', num('1'))],
  ['A gt 1', cmp('A', 'gt', num('1'))],
  ['A le 1', cmp('A', 'le', num('1'))],
  ['A ge 1', cmp('A', 'ge', num('1'))],
  ['A lte 1', cmp('A', 'le', num('1'))],
  ['A gte 1', cmp('A', 'ge', num('1'))],
  ['A EQ 1', cmp('A', 'eq', num('1'))],
  ['A Gte 1', cmp('A', 'ge', num('1'))],
  // literals
  ["A eq 'pH'", cmp('A', 'eq', str('pH'))],
  ["A eq 'O''Brien'", cmp('A', 'eq', str("O'Brien"))],
  ["A eq ''", cmp('A', 'eq', str(''))],
  ["A eq ''''", cmp('A', 'eq', str("'"))],
  ["A eq '5'", cmp('A', 'eq', str('5'))],
  ["A eq 'x; DROP TABLE t --/* é 😀'", cmp('A', 'eq', str('x; DROP TABLE t --/* é 😀'))],
  ['A eq 3271776', cmp('A', 'eq', num('3271776'))],
  ['A eq 9007199254740993', cmp('A', 'eq', num('9007199254740993'))],
  ['A eq -102.5', cmp('A', 'eq', num('-102.5'))],
  ['A eq 0.5', cmp('A', 'eq', num('0.5'))],
  ['A eq 1.5e3', cmp('A', 'eq', num('1.5e3'))],
  ['A eq -2E-3', cmp('A', 'eq', num('-2E-3'))],
  ['A eq true', cmp('A', 'eq', bool(true))],
  ['A eq FALSE', cmp('A', 'eq', bool(false))],
  ['A eq null', cmp('A', 'eq', nul)],
  ['A ne NULL', cmp('A', 'ne', nul)],
  ['A ge 2020-01-31', cmp('A', 'ge', date('2020-01-31'))],
  ['A ge 2020-02-29', cmp('A', 'ge', date('2020-02-29'))],
  ['A lt 2020-01-31T10:00:00Z', cmp('A', 'lt', datetime('2020-01-31T10:00:00Z'))],
  ['A lt 2020-01-31T10:00Z', cmp('A', 'lt', datetime('2020-01-31T10:00Z'))],
  ['A lt 2020-01-31T10:00:00+05:30', cmp('A', 'lt', datetime('2020-01-31T10:00:00+05:30'))],
  ['A lt 2020-01-31T10:00:00.123-08:00', cmp('A', 'lt', datetime('2020-01-31T10:00:00.123-08:00'))],
  // literal first: flipped
  ['2020 eq ActivityStartYear', cmp('ActivityStartYear', 'eq', num('2020'))],
  ['5 lt A', cmp('A', 'gt', num('5'))],
  ['5 le A', cmp('A', 'ge', num('5'))],
  ['5 gte A', cmp('A', 'le', num('5'))],
  ["'x' ne A", cmp('A', 'ne', str('x'))],
  // property names: case-sensitive, keyword-like prefixes are plain names
  ['Id eq 1', cmp('Id', 'eq', num('1'))],
  ['ID eq 1', cmp('ID', 'eq', num('1'))],
  ['_x9 eq 1', cmp('_x9', 'eq', num('1'))],
  ["Notes eq 'n'", cmp('Notes', 'eq', str('n'))],
  ['inside eq 1', cmp('inside', 'eq', num('1'))],
  ['order eq 1', cmp('order', 'eq', num('1'))],
  ['trueValue eq true', cmp('trueValue', 'eq', bool(true))],
  // in
  ["A in ('a','b')", inList('A', str('a'), str('b'))],
  ["A in ( 'a' , 'b' )", inList('A', str('a'), str('b'))],
  ['A in (1,2,-3.5)', inList('A', num('1'), num('2'), num('-3.5'))],
  ["A in ('only')", inList('A', str('only'))],
  ['A IN (2020-01-01, null)', inList('A', date('2020-01-01'), nul)],
  // functions
  ["startswith(A,'x')", fn('startswith', 'A', 'x')],
  ["endswith(A,'x')", fn('endswith', 'A', 'x')],
  ["contains(A,'x')", fn('contains', 'A', 'x')],
  ["contains(A, 'x')", fn('contains', 'A', 'x')],
  ["contains( A , 'x' )", fn('contains', 'A', 'x')],
  ["StartsWith(A,'x')", fn('startswith', 'A', 'x')],
  ["startswith(A,'x') eq true", fn('startswith', 'A', 'x')],
  ["startswith(A,'x') ne false", fn('startswith', 'A', 'x')],
  ["startswith(A,'x') eq false", not(fn('startswith', 'A', 'x'))],
  ["startswith(A,'x') ne true", not(fn('startswith', 'A', 'x'))],
  // not
  ['not A eq 1', not(cmp('A', 'eq', num('1')))],
  ['not (A eq 1)', not(cmp('A', 'eq', num('1')))],
  ['not(A eq 1)', not(cmp('A', 'eq', num('1')))],
  ['NOT A eq 1', not(cmp('A', 'eq', num('1')))],
  ["not startswith(A,'x')", not(fn('startswith', 'A', 'x'))],
  ['not not A eq 1', not(not(cmp('A', 'eq', num('1'))))],
  ['not A eq 1 and B eq 2', and(not(cmp('A', 'eq', num('1'))), cmp('B', 'eq', num('2')))],
  ['not (A eq 1 or B eq 2)', not(or(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2'))))],
  ["A in ('a') and not A in ('b')", and(inList('A', str('a')), not(inList('A', str('b'))))],
  // precedence and associativity
  ['A eq 1 and B eq 2 or C eq 3', or(and(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2'))), cmp('C', 'eq', num('3')))],
  ['A eq 1 or B eq 2 and C eq 3', or(cmp('A', 'eq', num('1')), and(cmp('B', 'eq', num('2')), cmp('C', 'eq', num('3'))))],
  // Clients prepend "LocationId eq 5 and " without parentheses; OData precedence applies.
  ['LocationId eq 5 and A eq 1 or B eq 2', or(and(cmp('LocationId', 'eq', num('5')), cmp('A', 'eq', num('1'))), cmp('B', 'eq', num('2')))],
  ['A eq 1 and B eq 2 and C eq 3', and(and(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2'))), cmp('C', 'eq', num('3')))],
  ['A eq 1 or B eq 2 or C eq 3', or(or(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2'))), cmp('C', 'eq', num('3')))],
  ['A eq 1 and (B eq 2 and C eq 3)', and(cmp('A', 'eq', num('1')), and(cmp('B', 'eq', num('2')), cmp('C', 'eq', num('3'))))],
  ['(A eq 1 or B eq 2) and C eq 3', and(or(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2'))), cmp('C', 'eq', num('3')))],
  ['A eq 1 and (B eq 2 or C eq 3)', and(cmp('A', 'eq', num('1')), or(cmp('B', 'eq', num('2')), cmp('C', 'eq', num('3'))))],
  ['A eq 1 AND B eq 2 OR C eq 3', or(and(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2'))), cmp('C', 'eq', num('3')))],
  ['((A eq 1))', cmp('A', 'eq', num('1'))],
  // whitespace
  ['  A   eq\t1  ', cmp('A', 'eq', num('1'))],
  ['( A eq 1 )', cmp('A', 'eq', num('1'))],
  ["A eq'x'", cmp('A', 'eq', str('x'))],
  ['(A eq 1)and(B eq 2)', and(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2')))],
];

describe('parseFilter: input → AST', () => {
  it.each(AST_CASES)('%s', (input, expected) => {
    expect(stripOffsets(parseFilter(input))).toEqual(expected);
  });

  it('records offsets of properties, values and terms in the filter text', () => {
    const expr = parseFilter("LocationId eq 5 and CharacteristicName eq 'pH'");
    expect(expr).toEqual({
      kind: 'and',
      left: { kind: 'compare', op: 'eq', offset: 0, property: { kind: 'property', name: 'LocationId', offset: 0 }, value: { kind: 'number', text: '5', value: 5, integer: true, offset: 14 } },
      right: { kind: 'compare', op: 'eq', offset: 20, property: { kind: 'property', name: 'CharacteristicName', offset: 20 }, value: { kind: 'string', value: 'pH', offset: 42 } },
    });
  });

  it('records offsets inside in lists and function calls', () => {
    expect(parseFilter("X in ('a', 7)")).toMatchObject({ offset: 0, property: { offset: 0 }, values: [{ offset: 6 }, { offset: 11 }] });
    expect(parseFilter("not contains(Name, 'x')")).toMatchObject({ operand: { offset: 4, property: { offset: 13 }, value: { offset: 19 } } });
    expect(parseFilter('7 lt Year')).toMatchObject({ offset: 0, property: { name: 'Year', offset: 5 }, value: { offset: 0 } });
  });

  it('keeps big integers exactly as written', () => {
    expect(parseFilter('Id eq 123456789012345678901234567890')).toMatchObject({ value: { text: '123456789012345678901234567890', integer: true } });
  });
});

const nested = (depth: number): string => `${'('.repeat(depth)}A eq 1${')'.repeat(depth)}`;
const notChain = (depth: number): string => `${'not '.repeat(depth)}A eq 1`;
const inValues = (count: number): string => `A in (${Array.from({ length: count }, (_, i) => i).join(',')})`;
const terms = (count: number): string => Array.from({ length: count }, (_, i) => `A eq ${i}`).join(' or ');

// Input → error code and offset in the filter text.
const ERROR_CASES: readonly (readonly [string, string, number])[] = [
  ['', 'invalid_filter', 0],
  ['   ', 'invalid_filter', 0],
  ['A', 'invalid_filter', 1],
  ['A eq', 'invalid_filter', 4],
  ['CharacteristicName eq', 'invalid_filter', 21],
  ['A eq 1 and', 'invalid_filter', 10],
  ['and A eq 1', 'invalid_filter', 0],
  ['A eq 1 or or B eq 2', 'invalid_filter', 10],
  ["A eq 'x", 'invalid_filter', 5],
  ["A eq 'x''", 'invalid_filter', 5],
  ['A eq 1)', 'invalid_filter', 6],
  ['(A eq 1', 'invalid_filter', 7],
  ['()', 'invalid_filter', 1],
  ['A eq 1 B eq 2', 'invalid_filter', 7],
  ['A eq 1 eq 2', 'invalid_filter', 7],
  ['A == 1', 'invalid_filter', 2],
  ['A eq "x"', 'invalid_filter', 5],
  ['A eq 1; DROP TABLE t', 'invalid_filter', 6],
  ['A eq 1 -- comment', 'invalid_filter', 7],
  ['A eq 1 /* c */', 'invalid_filter', 8],
  ['A eq [1]', 'invalid_filter', 5],
  ['A eq {}', 'invalid_filter', 5],
  ['A eq é', 'invalid_filter', 5],
  ['A eq \u0000', 'invalid_filter', 5],
  ['A eq and', 'invalid_filter', 5],
  ['and eq 1', 'invalid_filter', 0],
  ['A add 1 eq 2', 'invalid_filter', 2],
  ["A has 'x'", 'invalid_filter', 2],
  ['not', 'invalid_filter', 3],
  ['A eq 1.', 'invalid_filter', 5],
  ['A eq .5', 'invalid_filter', 5],
  ['A eq 12abc', 'invalid_filter', 5],
  ['A eq 1.2.3', 'invalid_filter', 5],
  ['A eq -', 'invalid_filter', 5],
  ['A eq - 1', 'invalid_filter', 5],
  ['A eq 2020-13-01', 'invalid_filter', 5],
  ['A eq 2019-02-29', 'invalid_filter', 5],
  ['A eq 2020-01-01T10:00', 'invalid_filter', 5],
  ['A eq 2020-01-01T25:00Z', 'invalid_filter', 5],
  ['A eq 2020-01-01T10:60Z', 'invalid_filter', 5],
  ['A eq 2020-01-01T10:00Zx', 'invalid_filter', 5],
  ['A eq 2020-01-01x', 'invalid_filter', 5],
  ['A eq B', 'unsupported_expression', 0],
  ['Name eq pH', 'unsupported_expression', 0],
  ['1 eq 2', 'unsupported_expression', 0],
  ['true', 'invalid_filter', 4],
  ['Completed', 'invalid_filter', 9],
  ['A/B eq 1', 'unsupported_expression', 0],
  ['A eq B/C', 'unsupported_expression', 5],
  ['$it eq 1', 'unsupported_expression', 0],
  ['A eq $root', 'unsupported_expression', 5],
  ['length(A) eq 1', 'unsupported_function', 0],
  ["substringof('x',A)", 'unsupported_function', 0],
  ['any()', 'unsupported_function', 0],
  ["startswith(A,1)", 'invalid_filter', 13],
  ["startswith('x',A)", 'invalid_filter', 11],
  ["startswith(A 'x')", 'invalid_filter', 13],
  ["startswith(A,'x'", 'invalid_filter', 16],
  ["startswith(A,'x') eq 1", 'unsupported_expression', 21],
  ["startswith(A/B,'x')", 'unsupported_expression', 11],
  ['A in ()', 'invalid_filter', 6],
  ["A in ('a',)", 'invalid_filter', 10],
  ["A in ('a' 'b')", 'invalid_filter', 10],
  ["A in 'a'", 'invalid_filter', 5],
  ['A in (B)', 'unsupported_expression', 6],
  ["'a' in (A)", 'unsupported_expression', 0],
  [nested(FILTER_LIMITS.maxDepth + 1), 'too_deep', FILTER_LIMITS.maxDepth],
  [notChain(FILTER_LIMITS.maxDepth + 1), 'too_deep', FILTER_LIMITS.maxDepth * 4],
  [inValues(FILTER_LIMITS.maxInValues + 1), 'too_many_values', inValues(FILTER_LIMITS.maxInValues + 1).lastIndexOf(',') + 1],
  [terms(FILTER_LIMITS.maxTerms + 1), 'too_many_terms', terms(FILTER_LIMITS.maxTerms + 1).lastIndexOf('A eq')],
];

describe('parseFilter: input → error', () => {
  it.each(ERROR_CASES.map(([input, code, offset]) => [input.length > 60 ? `${input.slice(0, 60)}…` : input, input, code, offset] as const))(
    '%s',
    (_label, input, code, offset) => {
      const err = catchODataError(() => parseFilter(input));
      expect({ code: err.code, offset: err.offset, parameter: err.parameter }).toEqual({ code, offset, parameter: '$filter' });
      expect(err.status).toBe(400);
      expect(err.message).toContain('$filter');
    },
  );

  it('says what was wrong and how to fix it', () => {
    expect(catchODataError(() => parseFilter('CharacteristicName eq')).message).toBe(
      "Expected a value after 'eq' at position 21 of $filter, found the end of $filter: quote text values, e.g. CharacteristicName eq 'pH'.",
    );
    expect(catchODataError(() => parseFilter('length(A) eq 1')).message).toContain("startswith(Field,'text'), endswith(Field,'text'), contains(Field,'text'), geo.intersects");
    expect(catchODataError(() => parseFilter('Name eq pH')).message).toContain("Name eq 'pH'");
  });

  it('names the option it parses, for $apply filters', () => {
    expect(catchODataError(() => parseFilter('A eq', '$apply')).parameter).toBe('$apply');
  });
});

describe('parseFilter: limits', () => {
  it('accepts input exactly at each limit', () => {
    expect(() => parseFilter(nested(FILTER_LIMITS.maxDepth))).not.toThrow();
    expect(() => parseFilter(notChain(FILTER_LIMITS.maxDepth))).not.toThrow();
    expect(() => parseFilter(inValues(FILTER_LIMITS.maxInValues))).not.toThrow();
    expect(() => parseFilter(terms(FILTER_LIMITS.maxTerms))).not.toThrow();
  });

  // Regression guard: hostile nesting must end in too_deep, never a RangeError from the JS stack.
  it('rejects 100,000 levels of nesting without exhausting the stack', () => {
    expect(catchODataError(() => parseFilter(nested(100_000))).code).toBe('too_deep');
    expect(catchODataError(() => parseFilter(notChain(100_000))).code).toBe('too_deep');
    expect(catchODataError(() => parseFilter(`${'not ('.repeat(50_000)}A eq 1`)).code).toBe('too_deep');
  });

  it('handles long flat inputs (unterminated strings, long names)', () => {
    expect(catchODataError(() => parseFilter(`A eq '${"''".repeat(100_000)}`)).code).toBe('invalid_filter');
    expect(catchODataError(() => parseFilter(`${'A'.repeat(200_000)} eq`)).code).toBe('invalid_filter');
    expect(catchODataError(() => parseFilter('1'.repeat(200_000))).code).toBe('invalid_filter');
  });
});
