import { describe, expect, it } from 'vitest';
import { FILTER_LIMITS } from '../odata/parse-filter.js';
import { envelopeExpr } from './envelope-expr.js';
import { OGC_CQL2_EXAMPLES } from './fixtures/ogc-cql2-examples.js';
import { GEOMETRY_PROPERTY, parseCql2Text } from './parse-cql2.js';
import {
  and, bool, catchODataError, cmp, date, datetime, fn, inList, not, nul, num, or, stripOffsets, str,
} from '../testing/odata-ast.js';

const box = (west: number, south: number, east: number, north: number) => stripOffsets(envelopeExpr({ west, south, east, north }, 0));
const between = (name: string, low: ReturnType<typeof num>, high: ReturnType<typeof num>) => and(cmp(name, 'ge', low), cmp(name, 'le', high));

// Input → AST (offsets checked separately below).
const AST_CASES: readonly (readonly [string, unknown])[] = [
  // every comparison operator, with and without spaces
  ['A = 1', cmp('A', 'eq', num('1'))],
  ['A<>1', cmp('A', 'ne', num('1'))],
  ['A < 1', cmp('A', 'lt', num('1'))],
  ['A > 1', cmp('A', 'gt', num('1'))],
  ['A <= 1', cmp('A', 'le', num('1'))],
  ['A>=1', cmp('A', 'ge', num('1'))],
  // literals
  ["A = 'pH'", cmp('A', 'eq', str('pH'))],
  ["A = 'O''Brien'", cmp('A', 'eq', str("O'Brien"))],
  ["A = 'O\\'Brien'", cmp('A', 'eq', str("O'Brien"))],
  ["A = 'C:\\dir'", cmp('A', 'eq', str('C:\\dir'))],
  ["A = ''", cmp('A', 'eq', str(''))],
  ["A = 'x; DROP TABLE t --/* é 😀'", cmp('A', 'eq', str('x; DROP TABLE t --/* é 😀'))],
  ['A = 9007199254740993', cmp('A', 'eq', num('9007199254740993'))],
  ['A = -102.5', cmp('A', 'eq', num('-102.5'))],
  ['A = - 102.5', cmp('A', 'eq', num('-102.5'))],
  ['A = +7', cmp('A', 'eq', { kind: 'number', text: '+7', value: 7, integer: true })],
  ['A = .5', cmp('A', 'eq', num('.5'))],
  ['A = 5.', cmp('A', 'eq', num('5.'))],
  ['A = 1.5E3', cmp('A', 'eq', num('1.5E3'))],
  ['A = -2e-3', cmp('A', 'eq', num('-2e-3'))],
  ['A = TRUE', cmp('A', 'eq', bool(true))],
  ['A = false', cmp('A', 'eq', bool(false))],
  ["A >= DATE('2020-02-29')", cmp('A', 'ge', date('2020-02-29'))],
  ["A >= date('2020-01-31')", cmp('A', 'ge', date('2020-01-31'))],
  ["A < TIMESTAMP('2020-01-31T10:00:00Z')", cmp('A', 'lt', datetime('2020-01-31T10:00:00Z'))],
  ["A < Timestamp('2012-08-10T05:30:00.000000Z')", cmp('A', 'lt', datetime('2012-08-10T05:30:00.000000Z'))],
  // literal first: flipped as $filter does
  ['2020 = ActivityStartYear', cmp('ActivityStartYear', 'eq', num('2020'))],
  ['5 < A', cmp('A', 'gt', num('5'))],
  ['5 <= A', cmp('A', 'ge', num('5'))],
  ['5 >= A', cmp('A', 'le', num('5'))],
  ["'x' <> A", cmp('A', 'ne', str('x'))],
  ["DATE('2020-01-01') < A", cmp('A', 'gt', date('2020-01-01'))],
  // property names: case-sensitive, BNF identifiers, double-quoted (then never a keyword)
  ['ID = 1', cmp('ID', 'eq', num('1'))],
  ['eo:cloud_cover = 1', cmp('eo:cloud_cover', 'eq', num('1'))],
  ['a.b_9 = 1', cmp('a.b_9', 'eq', num('1'))],
  ['Größe = 1', cmp('Größe', 'eq', num('1'))],
  ['"Name" = 1', cmp('Name', 'eq', num('1'))],
  ['"AND" = 1', cmp('AND', 'eq', num('1'))],
  ['"geo metry" = 1', cmp('geo metry', 'eq', num('1'))],
  ['Notes = 1', cmp('Notes', 'eq', num('1'))],
  ['inside = 1', cmp('inside', 'eq', num('1'))],
  ['dates = 1', cmp('dates', 'eq', num('1'))],
  // IN, NOT IN
  ["A IN ('a','b')", inList('A', str('a'), str('b'))],
  ["A in ( 'a' , 'b' )", inList('A', str('a'), str('b'))],
  ["A IN (1, -2, 3.5, DATE('2020-01-01'))", inList('A', num('1'), num('-2'), num('3.5'), date('2020-01-01'))],
  ["A NOT IN ('a')", not(inList('A', str('a')))],
  // IS [NOT] NULL: what `eq null` / `ne null` parse to
  ['A IS NULL', cmp('A', 'eq', nul)],
  ['A is not null', cmp('A', 'ne', nul)],
  ['NOT A IS NULL', not(cmp('A', 'eq', nul))],
  // LIKE: prefix, suffix, infix, none; escapes
  ["A LIKE 'Lake%'", fn('startswith', 'A', 'Lake')],
  ["A LIKE '%Lake'", fn('endswith', 'A', 'Lake')],
  ["A LIKE '%Lake%'", fn('contains', 'A', 'Lake')],
  ["A LIKE 'Lake'", cmp('A', 'eq', str('Lake'))],
  ["A LIKE '%'", fn('contains', 'A', '')],
  ["A LIKE '%%'", fn('contains', 'A', '')],
  ["A LIKE '50\\%%'", fn('startswith', 'A', '50%')],
  ["A LIKE '%a\\_b'", fn('endswith', 'A', 'a_b')],
  ["A LIKE '%C:\\\\%'", fn('contains', 'A', 'C:\\')],
  ["A LIKE 'it''s%'", fn('startswith', 'A', "it's")],
  ["A NOT LIKE '%x%'", not(fn('contains', 'A', 'x'))],
  ["A like 'x%'", fn('startswith', 'A', 'x')],
  // BETWEEN: inclusive range; its AND is not a boolean AND
  ['A BETWEEN 1 AND 5', between('A', num('1'), num('5'))],
  ['A BETWEEN -5 AND -1 AND B = 2', and(between('A', num('-5'), num('-1')), cmp('B', 'eq', num('2')))],
  ['A NOT BETWEEN 1 AND 5', not(between('A', num('1'), num('5')))],
  ["A BETWEEN DATE('2020-01-01') AND DATE('2020-12-31')", and(cmp('A', 'ge', date('2020-01-01')), cmp('A', 'le', date('2020-12-31')))],
  // S_INTERSECTS: BBOX, ENVELOPE, either order, POINT as a zero-size box, the antimeridian
  [`S_INTERSECTS(${GEOMETRY_PROPERTY}, BBOX(-120, 49, -110, 60))`, box(-120, 49, -110, 60)],
  ['s_intersects("geometry", envelope(-120.5, 49, -110, 60.25))', box(-120.5, 49, -110, 60.25)],
  ['S_INTERSECTS(BBOX(-120,49,-110,60),geometry)', box(-120, 49, -110, 60)],
  ['S_INTERSECTS(geometry, BBOX(170, -50, -170, -30))', box(170, -50, -170, -30)],
  ['S_INTERSECTS(geometry, POINT(-114.07 51.05))', box(-114.07, 51.05, -114.07, 51.05)],
  // NOT, precedence (NOT > predicates > AND > OR) and associativity
  ['NOT A = 1', not(cmp('A', 'eq', num('1')))],
  ['NOT (A = 1)', not(cmp('A', 'eq', num('1')))],
  ['not not A = 1', not(not(cmp('A', 'eq', num('1'))))],
  ['NOT A = 1 AND B = 2', and(not(cmp('A', 'eq', num('1'))), cmp('B', 'eq', num('2')))],
  ['A = 1 AND B = 2 OR C = 3', or(and(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2'))), cmp('C', 'eq', num('3')))],
  ['A = 1 OR B = 2 AND C = 3', or(cmp('A', 'eq', num('1')), and(cmp('B', 'eq', num('2')), cmp('C', 'eq', num('3'))))],
  ['A = 1 and B = 2 and C = 3', and(and(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2'))), cmp('C', 'eq', num('3')))],
  ['(A = 1 OR B = 2) AND C = 3', and(or(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2'))), cmp('C', 'eq', num('3')))],
  ['((A = 1))', cmp('A', 'eq', num('1'))],
  // whitespace of the BNF, including no-break and ideographic spaces
  ['\n\tA\u00A0=\u30001\r\n', cmp('A', 'eq', num('1'))],
  ['(A=1)AND(B=2)', and(cmp('A', 'eq', num('1')), cmp('B', 'eq', num('2')))],
];

describe('parseCql2Text: CQL2-Text → AST', () => {
  it.each(AST_CASES)('%s', (input, expected) => {
    expect(stripOffsets(parseCql2Text(input))).toEqual(expected);
  });

  it('records offsets of properties, values and terms in the filter text', () => {
    expect(parseCql2Text("LocationId = 5 AND CharacteristicName = 'pH'")).toEqual({
      kind: 'and',
      left: { kind: 'compare', op: 'eq', offset: 0, property: { kind: 'property', name: 'LocationId', offset: 0 }, value: { kind: 'number', text: '5', value: 5, integer: true, offset: 13 } },
      right: { kind: 'compare', op: 'eq', offset: 19, property: { kind: 'property', name: 'CharacteristicName', offset: 19 }, value: { kind: 'string', value: 'pH', offset: 40 } },
    });
    expect(parseCql2Text("X IN ('a', -7)")).toMatchObject({ offset: 0, property: { offset: 0 }, values: [{ offset: 6 }, { offset: 11 }] });
    expect(parseCql2Text("NOT \"Name\" LIKE 'x%'")).toMatchObject({ operand: { offset: 4, property: { offset: 4 }, value: { offset: 16 } } });
    expect(parseCql2Text('7 < Year')).toMatchObject({ offset: 0, property: { name: 'Year', offset: 4 }, value: { offset: 0 } });
    expect(parseCql2Text("A > DATE('2020-01-01')")).toMatchObject({ value: { offset: 4 } });
    expect(parseCql2Text('A IS NOT NULL')).toMatchObject({ offset: 0, value: { kind: 'null', offset: 9 } });
    // A box's comparisons all point at S_INTERSECTS, which is what the client wrote.
    expect(parseCql2Text('B = 1 OR S_INTERSECTS(geometry, BBOX(0, 0, 1, 1))')).toMatchObject({ right: { left: { left: { offset: 9, property: { offset: 9 } } } } });
  });

  it('keeps numbers exactly as written', () => {
    expect(parseCql2Text('Id = 123456789012345678901234567890')).toMatchObject({ value: { text: '123456789012345678901234567890', integer: true } });
    expect(parseCql2Text('Id = -0.10')).toMatchObject({ value: { text: '-0.10', value: -0.1, integer: false } });
  });
});

const nested = (depth: number): string => `${'('.repeat(depth)}A = 1${')'.repeat(depth)}`;
const notChain = (depth: number): string => `${'NOT '.repeat(depth)}A = 1`;
const inValues = (count: number): string => `A IN (${Array.from({ length: count }, (_, i) => i).join(',')})`;
const terms = (count: number): string => Array.from({ length: count }, (_, i) => `A = ${i}`).join(' OR ');
const betweens = (count: number): string => Array.from({ length: count }, () => 'A BETWEEN 1 AND 2').join(' OR ');

// Input → error code, offset in the filter text, and words the message must contain (what was wrong, what to write).
const ERROR_CASES: readonly (readonly [string, string, number, string])[] = [
  ['', 'invalid_filter', 0, 'filter is empty'],
  [' \n ', 'invalid_filter', 0, 'filter is empty'],
  ['A', 'invalid_filter', 1, 'Expected an operator'],
  ['A =', 'invalid_filter', 3, "Expected a value after '='"],
  ['A = 1 AND', 'invalid_filter', 9, 'Expected a property name or value'],
  ['AND A = 1', 'invalid_filter', 0, "found 'AND'"],
  ['A = 1)', 'invalid_filter', 5, "Unmatched ')'"],
  ['(A = 1', 'invalid_filter', 6, 'close the parenthesis opened at position 0'],
  ['A = 1 B = 2', 'invalid_filter', 6, 'Expected AND, OR or the end of filter'],
  ['A == 1', 'invalid_filter', 3, "found '='"],
  ['A != 1', 'invalid_filter', 2, 'as <>'],
  ['A = "x', 'invalid_filter', 4, 'double quotes'],
  ['A = ""', 'invalid_filter', 4, 'double quotes'],
  ["A = 'x", 'invalid_filter', 4, 'Unterminated text'],
  ["A = 'x\\'", 'invalid_filter', 4, 'Unterminated text'],
  ['A = 1; DROP TABLE t', 'invalid_filter', 5, "Unexpected character ';'"],
  ['A = [1]', 'invalid_filter', 4, "Unexpected character '['"],
  ['A = \u0000', 'invalid_filter', 4, 'U+0000'],
  ['A = 12abc', 'invalid_filter', 4, 'Invalid number'],
  ['A = 1.2.3', 'invalid_filter', 4, 'Invalid number'],
  ['A = .', 'invalid_filter', 4, 'Invalid number'],
  ['A = AND', 'invalid_filter', 4, "Expected a value after '='"],
  ["A = DATE('2019-02-29')", 'invalid_filter', 9, 'YYYY-MM-DD'],
  ["A = DATE('2020-01-01T00:00:00Z')", 'invalid_filter', 9, 'YYYY-MM-DD'],
  ['A = DATE(2020)', 'invalid_filter', 9, "DATE('2020-01-31')"],
  ["A = TIMESTAMP('2020-01-01T10:00Z')", 'invalid_filter', 14, 'YYYY-MM-DDThh:mm:ss'],
  ["A = TIMESTAMP('2020-01-01T10:00:00+01:00')", 'invalid_filter', 14, 'UTC'],
  ["A = TIMESTAMP('2020-01-01T24:00:00Z')", 'invalid_filter', 14, 'UTC'],
  ['A = NULL', 'unsupported_expression', 4, 'IS NULL'],
  ['A IS 5', 'invalid_filter', 5, 'Expected NULL'],
  ['A NOT = 1', 'invalid_filter', 6, 'Expected LIKE, BETWEEN or IN after NOT'],
  ['A = B', 'unsupported_expression', 0, "property 'A' with property 'B'"],
  ['1 = 2', 'unsupported_expression', 0, 'two values'],
  ['TRUE', 'unsupported_expression', 0, 'A bare TRUE'],
  ['A IN ()', 'invalid_filter', 6, 'Expected a value'],
  ['A IN (B)', 'unsupported_expression', 6, "property 'B'"],
  ["'a' IN ('a')", 'unsupported_expression', 0, 'must be a property name'],
  ['A BETWEEN 1 OR 2', 'invalid_filter', 12, 'Expected AND'],
  ['A BETWEEN B AND 2', 'unsupported_expression', 10, "property 'B'"],
  ['A LIKE B', 'invalid_filter', 7, 'quoted pattern'],
  ["A LIKE 'a%b'", 'unsupported_expression', 7, "'text%' (starts with)"],
  ["A LIKE 'a_'", 'unsupported_expression', 7, 'no _'],
  ["A LIKE '%a%b%'", 'unsupported_expression', 7, '% only at the ends'],
  ["A LIKE CASEI('x%')", 'unsupported_function', 7, 'case- and accent-sensitive'],
  // arithmetic and functions, each named with what to write instead
  ['A - 1 > 0', 'unsupported_expression', 2, "Arithmetic ('-'"],
  ['A > 1 * 2', 'unsupported_expression', 6, "Arithmetic ('*'"],
  ['A > B div 2', 'unsupported_expression', 6, "Arithmetic ('div'"],
  ['A = -B', 'unsupported_expression', 4, "Arithmetic ('-'"],
  ['A > (B + 1)', 'unsupported_expression', 4, 'parenthesised value'],
  ['avg(A) < 4', 'unsupported_function', 0, "Function 'avg'"],
  ["CASEI(A) = 'x'", 'unsupported_function', 0, 'CASEI'],
  ["A = ACCENTI('x')", 'unsupported_function', 4, 'ACCENTI'],
  ["T_AFTER(A, DATE('2020-01-01'))", 'unsupported_function', 0, 'ActivityStartDate >= DATE('],
  ["A = INTERVAL('2020-01-01', '..')", 'unsupported_function', 4, 'Temporal functions'],
  ["A_CONTAINS(A, ('a'))", 'unsupported_function', 0, 'IN'],
  ['S_WITHIN(location, BBOX(0, 0, 1, 1))', 'unsupported_expression', 9, "the one spatial property is 'geometry'"],
  ['A = POINT(1 2)', 'unsupported_expression', 4, 'argument of a spatial function'],
  // S_INTERSECTS
  ['geometry IS NOT NULL', 'unsupported_expression', 0, 'S_INTERSECTS(geometry, BBOX('],
  ['S_INTERSECTS(geom, BBOX(0, 0, 1, 1))', 'unsupported_expression', 13, "the one spatial property is 'geometry'"],
  ['S_INTERSECTS(Geometry, BBOX(0, 0, 1, 1))', 'unsupported_expression', 13, "'geometry'"],
  ['S_INTERSECTS(geometry, geometry)', 'unsupported_expression', 0, 'geometry with itself'],
  ['S_INTERSECTS(BBOX(0, 0, 1, 1), POINT(0 0))', 'unsupported_expression', 0, 'two geometry literals'],
  ['S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1, 0 1)))', 'invalid_geometry', 23, 'is not closed'],
  ['S_INTERSECTS(geometry, BBOX(0, 0, 1))', 'invalid_filter', 23, 'needs four numbers, found 3'],
  ['S_INTERSECTS(geometry, BBOX(0, 0, 0, 1, 1, 1))', 'unsupported_expression', 23, 'elevation'],
  ['S_INTERSECTS(geometry, BBOX(0, 0, 1, 1, 1, 1, 1))', 'invalid_filter', 44, "Expected ')'"],
  ['S_INTERSECTS(geometry, BBOX(0, 60, 1, 50))', 'invalid_filter', 23, 'south above its north'],
  ['S_INTERSECTS(geometry, BBOX(-181, 0, 1, 1))', 'invalid_filter', 23, 'longitude outside'],
  ['S_INTERSECTS(geometry, BBOX(0, -91, 1, 1))', 'invalid_filter', 23, 'latitude outside'],
  ['S_INTERSECTS(geometry, BBOX(0, 0, 1, x))', 'invalid_filter', 37, 'Expected a number'],
  ['S_INTERSECTS(geometry, POINT(1, 2))', 'invalid_geometry', 30, 'longitude latitude'],
  ['S_INTERSECTS(geometry, POINT(1 2 3))', 'invalid_geometry', 33, 'no elevation'],
  ['S_INTERSECTS(geometry BBOX(0, 0, 1, 1))', 'invalid_filter', 22, "Expected ','"],
  ["S_INTERSECTS('x', BBOX(0, 0, 1, 1))", 'invalid_filter', 13, 'Expected geometry or a geometry literal'],
  // limits against hostile input, the same numbers as $filter's
  [nested(FILTER_LIMITS.maxDepth + 1), 'too_deep', FILTER_LIMITS.maxDepth, 'nested deeper'],
  [notChain(FILTER_LIMITS.maxDepth + 1), 'too_deep', FILTER_LIMITS.maxDepth * 4, 'nested deeper'],
  [inValues(FILTER_LIMITS.maxInValues + 1), 'too_many_values', inValues(FILTER_LIMITS.maxInValues + 1).lastIndexOf(',') + 1, 'IN list'],
  [terms(FILTER_LIMITS.maxTerms + 1), 'too_many_terms', terms(FILTER_LIMITS.maxTerms + 1).lastIndexOf('='), 'conditions'],
  [betweens(FILTER_LIMITS.maxTerms / 2 + 1), 'too_many_terms', betweens(FILTER_LIMITS.maxTerms / 2 + 1).lastIndexOf('BETWEEN'), 'conditions'],
];

describe('parseCql2Text: input → error', () => {
  it.each(ERROR_CASES)('%s → %s at %i', (input, code, offset, words) => {
    const err = catchODataError(() => parseCql2Text(input));
    expect({ code: err.code, offset: err.offset, parameter: err.parameter, status: err.status }).toEqual({ code, offset, parameter: 'filter', status: 400 });
    expect(err.message).toContain(words);
    // Every message names where the problem is (the empty filter has no position to name).
    if (input.trim() !== '') expect(err.message).toContain(`position ${offset}`);
  });

  it('names the parameter it was given', () => {
    expect(catchODataError(() => parseCql2Text('A =', 'filter[cql2]')).message).toContain('of filter[cql2]');
  });

  it('accepts the limits themselves', () => {
    expect(() => parseCql2Text(nested(FILTER_LIMITS.maxDepth))).not.toThrow();
    expect(() => parseCql2Text(inValues(FILTER_LIMITS.maxInValues))).not.toThrow();
    expect(() => parseCql2Text(terms(FILTER_LIMITS.maxTerms))).not.toThrow();
  });
});

// Every copied example of the standard: parsed when inside the dialect, else refused with the code a client would get.
const OGC_EXPECTED: Readonly<Record<string, 'ok' | string>> = {
  clause6_01: 'unsupported_function', clause6_02a: 'ok', clause6_02c: 'unsupported_expression', clause6_02d: 'ok',
  clause6_03: 'unsupported_expression', clause7_01: 'ok', clause7_02: 'ok', clause7_03a: 'ok', clause7_03b: 'ok',
  clause7_04: 'unsupported_function', clause7_07: 'ok', clause7_12: 'unsupported_function', clause7_19: 'unsupported_expression',
  example04: 'ok', example05a: 'ok', example05b: 'ok', example06a: 'ok', example06b: 'ok', example11: 'ok', example12: 'ok',
  example13: 'ok', example14: 'ok', example16: 'ok', example17: 'ok', example18: 'ok', example19: 'ok',
  example23: 'unsupported_expression', example24: 'ok', example29: 'ok', example30: 'ok', example31: 'ok',
  example32: 'ok', example33: 'ok', example34: 'ok', example35: 'ok', example36: 'ok', 'example36-alt01': 'ok', example37: 'ok',
  example38: 'ok', 'example38-alt01': 'ok', example39: 'ok', example40: 'ok', 'example40-alt01': 'ok', example41: 'ok',
  example42: 'ok', 'example42-alt01': 'ok', example43: 'ok', 'example43-alt01': 'ok', example44: 'ok', 'example44-alt01': 'ok',
  example45: 'unsupported_expression', 'example54-alt01': 'unsupported_function', example72: 'unsupported_expression',
  example79: 'unsupported_function', example86: 'unsupported_function',
};

describe("parseCql2Text: the standard's own examples (fixtures/ogc-cql2-examples.ts)", () => {
  it('has an expectation for every copied example', () => {
    expect(OGC_CQL2_EXAMPLES.map(([name]) => name).sort()).toEqual(Object.keys(OGC_EXPECTED).sort());
  });

  it.each(OGC_CQL2_EXAMPLES)('%s', (name, text) => {
    const expected = OGC_EXPECTED[name];
    if (expected === 'ok') expect(() => parseCql2Text(text)).not.toThrow();
    else expect(catchODataError(() => parseCql2Text(text)).code).toBe(expected);
  });

  it('reads the alternative spellings of an example as the same filter', () => {
    const byName = new Map(OGC_CQL2_EXAMPLES);
    for (const [a, b] of [['example05a', 'example05b'], ['example06a', 'example06b'], ['example36', 'example36-alt01'], ['example38', 'example38-alt01'], ['example40', 'example40-alt01'], ['example42', 'example42-alt01'], ['example43', 'example43-alt01'], ['example44', 'example44-alt01']] as const) {
      const [left, right] = [parseCql2Text(byName.get(a)!), parseCql2Text(byName.get(b)!)].map(stripOffsets);
      if (a === 'example05a') {
        // `x = a OR x = b` and `x IN (a, b)` are different trees with the same meaning; the SQL is checked elsewhere.
        expect(left).toEqual(or(cmp('eo:cloud_cover', 'eq', num('0.1')), cmp('eo:cloud_cover', 'eq', num('0.2'))));
        expect(right).toEqual(inList('eo:cloud_cover', num('0.1'), num('0.2')));
      } else if (a === 'example42') {
        expect(left).toEqual(not(cmp('value', 'eq', nul)));
        expect(right).toEqual(cmp('value', 'ne', nul));
      } else {
        expect(left, `${a} and ${b}`).toEqual(right);
      }
    }
  });
});
