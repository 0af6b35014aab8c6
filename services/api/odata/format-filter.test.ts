import { describe, expect, it } from 'vitest';
import { formatFilter, formatLiteral } from './format-filter.js';
import { parseFilter } from './parse-filter.js';
import { stripOffsets } from '../testing/odata-ast.js';

// Input → canonical text: lower-case keywords, le/ge for lte/gte, minimal parentheses.
const CANONICAL: readonly (readonly [string, string])[] = [
  ['A  EQ   1', 'A eq 1'],
  ['A lte 5 and B gte 6', 'A le 5 and B ge 6'],
  ['2020 lt Year', 'Year gt 2020'],
  ["Name eq 'O''Brien'", "Name eq 'O''Brien'"],
  ['A eq TRUE or B eq Null', 'A eq true or B eq null'],
  ['A eq -1.50e3', 'A eq -1.50e3'],
  ['A ge 2020-01-31T10:00:00.5+02:00', 'A ge 2020-01-31T10:00:00.5+02:00'],
  ["A in ( 'a' , 'b' )", "A in ('a','b')"],
  ["Contains(A, 'x')", "contains(A,'x')"],
  ["startswith(A,'x') eq false", "not startswith(A,'x')"],
  ['not (A eq 1)', 'not A eq 1'],
  ['not (A eq 1 or B eq 2)', 'not (A eq 1 or B eq 2)'],
  ['not (A eq 1 and B eq 2)', 'not (A eq 1 and B eq 2)'],
  ['((A eq 1))', 'A eq 1'],
  ['(A eq 1 and B eq 2) or C eq 3', 'A eq 1 and B eq 2 or C eq 3'],
  ['A eq 1 and (B eq 2 or C eq 3)', 'A eq 1 and (B eq 2 or C eq 3)'],
  ['(A eq 1 or B eq 2) and C eq 3', '(A eq 1 or B eq 2) and C eq 3'],
  ['A eq 1 and (B eq 2 and C eq 3)', 'A eq 1 and (B eq 2 and C eq 3)'],
  ['(A eq 1 and B eq 2) and C eq 3', 'A eq 1 and B eq 2 and C eq 3'],
  ['A eq 1 or (B eq 2 or C eq 3)', 'A eq 1 or (B eq 2 or C eq 3)'],
  ['LocationId eq 5 and A eq 1 or B eq 2', 'LocationId eq 5 and A eq 1 or B eq 2'],
];

describe('formatFilter', () => {
  it.each(CANONICAL)('%s → %s', (input, canonical) => {
    const ast = parseFilter(input);
    expect(formatFilter(ast)).toBe(canonical);
    // Round trip: the canonical text parses to the same tree, up to offsets.
    expect(stripOffsets(parseFilter(canonical))).toEqual(stripOffsets(ast));
  });

  it.each([
    [{ kind: 'string', value: "it's", offset: 0 }, "'it''s'"],
    [{ kind: 'string', value: '', offset: 0 }, "''"],
    [{ kind: 'number', text: '3271776', value: 3271776, integer: true, offset: 0 }, '3271776'],
    [{ kind: 'boolean', value: false, offset: 0 }, 'false'],
    [{ kind: 'null', offset: 0 }, 'null'],
    [{ kind: 'date', value: '2020-01-31', offset: 0 }, '2020-01-31'],
  ] as const)('formatLiteral %j', (literal, text) => {
    expect(formatLiteral(literal)).toBe(text);
  });
});
