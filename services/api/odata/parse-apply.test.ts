import { describe, expect, it } from 'vitest';
import { parseApply } from './parse-apply.js';
import { and, catchODataError, cmp, inList, num, or, prop, stripOffsets } from '../testing/odata-ast.js';

describe('parseApply: input → AST', () => {
  it.each([
    ['groupby((A),aggregate($count as Count))', { groupBy: [prop('A')], countAlias: 'Count' }],
    ['groupby((A, B),aggregate($count as N))', { groupBy: [prop('A'), prop('B')], countAlias: 'N' }],
    [' groupby( ( A ,B ) , aggregate( $count as Total ) ) ', { groupBy: [prop('A'), prop('B')], countAlias: 'Total' }],
    ['GroupBy((A),Aggregate($count AS Count))', { groupBy: [prop('A')], countAlias: 'Count' }],
    ['filter(Year ge 2020)/groupby((A),aggregate($count as Count))', { filter: cmp('Year', 'ge', num('2020')), groupBy: [prop('A')], countAlias: 'Count' }],
    [
      'filter(A eq 1 and (B eq 2 or C in (1,2)))/groupby((A),aggregate($count as Count))',
      { filter: and(cmp('A', 'eq', num('1')), or(cmp('B', 'eq', num('2')), inList('C', num('1'), num('2')))), groupBy: [prop('A')], countAlias: 'Count' },
    ],
  ] as const)('%s', (input, expected) => {
    expect(stripOffsets(parseApply(input))).toEqual(expected);
  });

  it('takes an alias of 128 characters, the most an OData identifier has', () => {
    expect(parseApply(`groupby((A),aggregate($count as ${'B'.repeat(128)}))`).countAlias).toHaveLength(128);
  });

  it('records offsets in the $apply text', () => {
    expect(parseApply('filter(Y ge 1)/groupby((Name),aggregate($count as Count))')).toMatchObject({
      filter: { property: { offset: 7 } },
      groupBy: [{ name: 'Name', offset: 24 }],
    });
  });
});

describe('parseApply: input → error', () => {
  it.each([
    ['', 'unsupported_apply', 0],
    ['groupby((A))', 'unsupported_apply', 11],
    ['aggregate($count as Count)', 'unsupported_apply', 0],
    ['groupby((A),aggregate(B with sum as S))', 'unsupported_apply', 22],
    ['groupby((A),aggregate($count))', 'unsupported_apply', 28],
    ['groupby((A),aggregate($count with sum as C))', 'unsupported_apply', 29],
    ['groupby((A),aggregate($count as A))', 'unsupported_apply', 32],
    ['groupby((A),aggregate($count as 5))', 'unsupported_apply', 32],
    ['groupby((A,A),aggregate($count as Count))', 'unsupported_apply', 11],
    ['groupby((),aggregate($count as Count))', 'unsupported_apply', 9],
    ['groupby((A/B),aggregate($count as Count))', 'unsupported_apply', 10],
    ['groupby(A,aggregate($count as Count))', 'unsupported_apply', 8],
    ['groupby((A),groupby((B)))', 'unsupported_apply', 12],
    ['filter(A eq 1)', 'unsupported_apply', 14],
    ['filter(A eq 1)/filter(B eq 1)', 'unsupported_apply', 15],
    ['groupby((A),aggregate($count as Count))/top(5)', 'unsupported_apply', 39],
    ['groupby((A),aggregate($count as Count))/filter(Count gt 1)', 'unsupported_apply', 39],
    ['topcount(2,A)', 'unsupported_apply', 0],
    ['identity', 'unsupported_apply', 0],
    ['filter(A eq)/groupby((A),aggregate($count as Count))', 'invalid_filter', 11],
    ['filter(A eq B)/groupby((A),aggregate($count as Count))', 'unsupported_expression', 7],
    ['filter(A eq 1 B)/groupby((A),aggregate($count as Count))', 'invalid_filter', 14],
    ["filter(A eq 'x)/groupby((A),aggregate($count as Count))", 'invalid_filter', 12],
    [`groupby((A),aggregate($count as ${'B'.repeat(129)}))`, 'unsupported_apply', 32],
  ])('%s', (input, code, offset) => {
    const err = catchODataError(() => parseApply(input));
    expect({ code: err.code, offset: err.offset, parameter: err.parameter }).toEqual({ code, offset, parameter: '$apply' });
  });

  it('states exactly what is supported', () => {
    expect(catchODataError(() => parseApply('topcount(2,A)')).message).toContain('groupby((Field1,Field2),aggregate($count as Count))');
    expect(catchODataError(() => parseApply('groupby((A,B))')).message).toContain('groupby((A,B),aggregate($count as Count))');
    expect(catchODataError(() => parseApply('groupby((A),aggregate(B with sum as S))')).message).toContain('Only the $count aggregate');
  });
});
