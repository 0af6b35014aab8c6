import { describe, expect, it } from 'vitest';
import { parseApply } from './parse-apply.js';
import { and, catchODataError, cmp, inList, num, or, prop, stripOffsets } from '../testing/odata-ast.js';
import { formatApply } from './format-apply.js';

const count = (alias: string) => ({ kind: 'count', alias }) as const;
const agg = (name: string, method: string, alias: string) => ({ kind: 'method', property: prop(name), method, alias }) as const;

describe('parseApply: input → AST', () => {
  it.each([
    ['groupby((A),aggregate($count as Count))', { groupBy: [prop('A')], aggregates: [count('Count')] }],
    ['groupby((A, B),aggregate($count as N))', { groupBy: [prop('A'), prop('B')], aggregates: [count('N')] }],
    [' groupby( ( A ,B ) , aggregate( $count as Total ) ) ', { groupBy: [prop('A'), prop('B')], aggregates: [count('Total')] }],
    ['GroupBy((A),Aggregate($count AS Count))', { groupBy: [prop('A')], aggregates: [count('Count')] }],
    ['filter(Year ge 2020)/groupby((A),aggregate($count as Count))', { filter: cmp('Year', 'ge', num('2020')), groupBy: [prop('A')], aggregates: [count('Count')] }],
    [
      'filter(A eq 1 and (B eq 2 or C in (1,2)))/groupby((A),aggregate($count as Count))',
      { filter: and(cmp('A', 'eq', num('1')), or(cmp('B', 'eq', num('2')), inList('C', num('1'), num('2')))), groupBy: [prop('A')], aggregates: [count('Count')] },
    ],
    ['groupby((A))', { groupBy: [prop('A')], aggregates: [] }],
    ['groupby((A,B))', { groupBy: [prop('A'), prop('B')], aggregates: [] }],
    ['aggregate($count as Count)', { groupBy: [], aggregates: [count('Count')] }],
    ['aggregate(V with sum as S)', { groupBy: [], aggregates: [agg('V', 'sum', 'S')] }],
    [
      'groupby((A),aggregate($count as N, V with min as Lo,V with max as Hi,V with average as Mean,V with countdistinct as D))',
      { groupBy: [prop('A')], aggregates: [count('N'), agg('V', 'min', 'Lo'), agg('V', 'max', 'Hi'), agg('V', 'average', 'Mean'), agg('V', 'countdistinct', 'D')] },
    ],
    [
      'filter(A eq 1)/aggregate(V with Tributary.median as M,V with Tributary.p10 as P10,V with Tributary.p90 as P90,V with Tributary.countnull as ND)',
      { filter: cmp('A', 'eq', num('1')), groupBy: [], aggregates: [agg('V', 'Tributary.median', 'M'), agg('V', 'Tributary.p10', 'P10'), agg('V', 'Tributary.p90', 'P90'), agg('V', 'Tributary.countnull', 'ND')] },
    ],
    ['aggregate(V WITH SUM AS S)', { groupBy: [], aggregates: [agg('V', 'sum', 'S')] }],
    // OData's identifiers take `_`: the km methods' names lex whole (the lexer once stopped at Tributary.km).
    [
      'groupby((A),aggregate(V with Tributary.km_median as M,V with Tributary.km_p10 as P10,V with Tributary.km_p90 as P90,V with Tributary.km_mean as Mean))',
      { groupBy: [prop('A')], aggregates: [agg('V', 'Tributary.km_median', 'M'), agg('V', 'Tributary.km_p10', 'P10'), agg('V', 'Tributary.km_p90', 'P90'), agg('V', 'Tributary.km_mean', 'Mean')] },
    ],
    [
      'aggregate(V with Tributary.km_median_qualifier as Q,V with Tributary.km_p10_qualifier as Q10,V with Tributary.KM_P90_QUALIFIER as Q90,V with Tributary.km_method as K)',
      {
        groupBy: [],
        aggregates: [agg('V', 'Tributary.km_median_qualifier', 'Q'), agg('V', 'Tributary.km_p10_qualifier', 'Q10'), agg('V', 'Tributary.km_p90_qualifier', 'Q90'), agg('V', 'Tributary.km_method', 'K')],
      },
    ],
    // Data Aggregation §3.3.1 and §3.3.3 after the aggregation: the corpus' "transformation sequences - sorting".
    ['groupby((A),aggregate(V with sum as Total))/orderby(Total desc)', { groupBy: [prop('A')], aggregates: [agg('V', 'sum', 'Total')], orderBy: [{ name: 'Total', descending: true }] }],
    [
      'filter(A eq 1)/groupby((A,B),aggregate($count as N))/orderby(N DESC,B asc,A)/top(10)',
      { filter: cmp('A', 'eq', num('1')), groupBy: [prop('A'), prop('B')], aggregates: [count('N')], orderBy: [{ name: 'N', descending: true }, { name: 'B', descending: false }, { name: 'A', descending: false }], top: { count: 10 } },
    ],
    ['groupby((A))/top(0)', { groupBy: [prop('A')], aggregates: [], top: { count: 0 } }],
    ['aggregate($count as N)/ORDERBY(N)', { groupBy: [], aggregates: [count('N')], orderBy: [{ name: 'N', descending: false }] }],
  ] as const)('%s', (input, expected) => {
    expect(stripOffsets(parseApply(input))).toEqual(expected);
    // The next link writes the tree back: it must read as the same tree.
    expect(stripOffsets(parseApply(formatApply(parseApply(input))))).toEqual(expected);
  });

  it('takes an alias of 128 characters, the most an OData identifier has', () => {
    expect(parseApply(`groupby((A),aggregate($count as ${'B'.repeat(128)}))`).aggregates[0]!.alias).toHaveLength(128);
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
    ['groupby((A),aggregate($count))', 'unsupported_apply', 28],
    ['aggregate()', 'unsupported_apply', 10],
    ['aggregate(V with sum)', 'unsupported_apply', 20],
    ['aggregate(V as T)', 'unsupported_apply', 12],
    ['aggregate(V)', 'unsupported_apply', 11],
    ['aggregate(V with median as M)', 'unsupported_apply', 17],
    ['aggregate(V with Custom.concat as M)', 'invalid_filter', 23],
    ['aggregate(P/V with sum as S)', 'unsupported_apply', 11],
    ['aggregate($count as N,V with sum as N)', 'unsupported_apply', 36],
    ['aggregate(V with sum from Time with average as D)', 'unsupported_apply', 21],
    [`aggregate(${Array.from({ length: 17 }, (_, i) => `$count as C${i}`).join(',')})`, 'unsupported_apply', 224],
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
    ['groupby((A),aggregate($count as Count))/skip(5)', 'unsupported_apply', 39],
    ['groupby((A),aggregate($count as Count))/top(x)', 'unsupported_apply', 44],
    ['groupby((A),aggregate($count as Count))/top(1.5)', 'unsupported_apply', 44],
    ['groupby((A),aggregate($count as Count))/top(-1)', 'unsupported_apply', 44],
    ['groupby((A),aggregate($count as Count))/top(2147483648)', 'unsupported_apply', 44],
    ['groupby((A),aggregate($count as Count))/orderby(B)', 'unsupported_apply', 48],
    ['groupby((A),aggregate($count as Count))/orderby(Count,Count)', 'unsupported_apply', 54],
    ['groupby((A),aggregate($count as Count))/orderby(Count sideways)', 'unsupported_apply', 54],
    ['groupby((A),aggregate($count as Count))/top(5)/orderby(Count)', 'unsupported_apply', 46],
    ['groupby((A),aggregate($count as Count))/orderby(Count)/orderby(A)', 'unsupported_apply', 54],
    ['groupby((A),aggregate($count as Count))/filter(Count gt 1)', 'unsupported_apply', 39],
    ['topcount(2,A)', 'unsupported_apply', 0],
    ['identity', 'unsupported_apply', 0],
    ['filter(A eq)/groupby((A),aggregate($count as Count))', 'invalid_filter', 11],
    ['filter(A eq B)/groupby((A),aggregate($count as Count))', 'unsupported_expression', 7],
    ['filter(A eq 1 B)/groupby((A),aggregate($count as Count))', 'invalid_filter', 14],
    ["filter(A eq 'x)/groupby((A),aggregate($count as Count))", 'invalid_filter', 12],
    [`groupby((A),aggregate($count as ${'B'.repeat(129)}))`, 'unsupported_apply', 32],
    ['aggregate(V with Tributary.km_mode as M)', 'unsupported_apply', 17],
    ['aggregate(V with Tributary.km as M)', 'unsupported_apply', 17],
  ])('%s', (input, code, offset) => {
    const err = catchODataError(() => parseApply(input));
    expect({ code: err.code, offset: err.offset, parameter: err.parameter }).toEqual({ code, offset, parameter: '$apply' });
  });

  it('states exactly what is supported', () => {
    expect(catchODataError(() => parseApply('topcount(2,A)')).message).toContain('groupby((Field1,Field2)[,aggregate(…)])');
    expect(catchODataError(() => parseApply('aggregate(V with median as M)')).message).toContain('use one of sum, min, max, average, countdistinct, Tributary.median');
  });
});
