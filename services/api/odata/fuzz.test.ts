/**
 * Property tests: whatever arrives, parsing ends (no hang, no stack overflow)
 * with a Query or an ODataError, never another exception; and any expression
 * tree survives formatFilter → percent-encoding → parseQuery unchanged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompareOp, Expr, FunctionName, Literal, Property, StringLiteral } from './ast.js';
import { formatFilter } from './format-filter.js';
import { ODataError } from './odata-error.js';
import { parseApply } from './parse-apply.js';
import { parseFilter } from './parse-filter.js';
import { parseQuery } from './parse-query.js';
import { stripOffsets } from '../testing/odata-ast.js';

/** Run a parser; anything thrown must be an ODataError. */
function parsesOrODataError(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch (err) {
    if (err instanceof ODataError) return true;
    throw err;
  }
}

const HOSTILE = ["'", "''", ';', '--', '/*', '*/', '\\', '"', '%', '%zz', '%C3', '%27', '&', '+', '=', '$', '(', ')', ',', '😀', 'é', '\u0000', '\n', '\u202e', 'DROP TABLE x', ' '];
// Lone surrogates cannot be percent-encoded (encodeURIComponent throws), so no client can send them.
const isWellFormed = (s: string): boolean => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
const wellFormed = fc.string({ unit: 'binary', maxLength: 30 }).filter(isWellFormed);
const hostileText = fc.oneof(wellFormed, fc.array(fc.constantFrom(...HOSTILE), { maxLength: 8 }).map((parts) => parts.join('')));

// Pieces that look like query strings and filters, so random joins reach deep parser states.
const QUERY_PIECES = ['$filter=', '%24filter=', '$top=', '$select=', '$apply=', '$skiptoken=Id:', '$count=', '$format=', '$orderby=', 'x=', '&', '=', '%', '%2', '%zz', '%C3', '%A9', '%E0%A4', '+', '%20', "'", '%27', '(', ')', ',', 'A', 'eq', 'and', 'or', 'not', 'in', '1', '-2.5', '2020-01-31', 'startswith(', 'groupby((', 'aggregate($count as C)', '"', ' ', '#', '\\'];
const FILTER_PIECES = ['A', 'Id', 'eq', 'ne', 'lt', 'gte', 'in', 'and', 'or', 'not', 'NOT', '(', ')', ',', "'x'", "'", "''", '1', '-1', '1.5e3', '-', '.', 'true', 'null', '2020-01-31', '2020-01-31T10:00:00Z', 'T10', 'startswith', 'contains(', 'length(', '$it', '/', ';', '--', '/*', '😀'];
const joined = (pieces: readonly string[], sep: string) => fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((p) => p.join(sep));

describe('fuzz: parsers only ever throw ODataError', () => {
  it('parseQuery on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (raw) => parsesOrODataError(() => parseQuery(raw))), { numRuns: 3000 });
  });

  it('parseQuery on query-shaped strings', () => {
    fc.assert(fc.property(joined(QUERY_PIECES, ''), (raw) => parsesOrODataError(() => parseQuery(raw))), { numRuns: 3000 });
  });

  it('$filter and $apply on encoded arbitrary and filter-shaped text', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }).filter(isWellFormed), joined(FILTER_PIECES, ' '), joined(FILTER_PIECES, ''));
    fc.assert(
      fc.property(text, (t) => {
        parsesOrODataError(() => parseQuery(`$filter=${encodeURIComponent(t)}`));
        parsesOrODataError(() => parseApply(`filter(${t})/groupby((A),aggregate($count as C))`));
        return parsesOrODataError(() => parseQuery(`$apply=${encodeURIComponent(t)}`));
      }),
      { numRuns: 3000 },
    );
  });

  it('deep and long inputs end in an ODataError, not a stack overflow', () => {
    const deep = fc.tuple(fc.constantFrom('(', 'not ', 'not (', '((', 'startswith('), fc.integer({ min: 60, max: 20_000 }));
    fc.assert(fc.property(deep, ([open, n]) => parsesOrODataError(() => parseFilter(`${open.repeat(n)}A eq 1`))), { numRuns: 50 });
  });
});

// ---- Grammar-shaped trees for the round trip ----

const RESERVED = new Set(['and', 'or', 'not', 'in', 'eq', 'ne', 'lt', 'gt', 'le', 'ge', 'lte', 'gte', 'true', 'false', 'null']);
const property: fc.Arbitrary<Property> = fc
  .stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/)
  .filter((name) => !RESERVED.has(name.toLowerCase()))
  .map((name) => ({ kind: 'property', name, offset: 0 }));

const stringLiteral: fc.Arbitrary<StringLiteral> = hostileText.map((value) => ({ kind: 'string', value, offset: 0 }));
const numberText = fc.oneof(
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.tuple(fc.integer({ min: -1e6, max: 1e6 }), fc.stringMatching(/^[0-9]{1,6}$/)).map(([i, f]) => `${i}.${f}`),
  fc.tuple(fc.integer({ min: -99, max: 99 }), fc.constantFrom('e', 'E'), fc.integer({ min: -400, max: 400 })).map(([m, e, x]) => `${m}${e}${x}`),
);
const dates = fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
const literal: fc.Arbitrary<Literal> = fc.oneof(
  stringLiteral,
  numberText.map((text) => ({ kind: 'number', text, value: Number(text), integer: /^-?[0-9]+$/.test(text), offset: 0 }) as const),
  fc.boolean().map((value) => ({ kind: 'boolean', value, offset: 0 }) as const),
  fc.constant({ kind: 'null', offset: 0 } as const),
  dates.map((d) => ({ kind: 'date', value: d.toISOString().slice(0, 10), offset: 0 }) as const),
  fc.tuple(dates, fc.constantFrom('Z', '+02:00', '-11:30')).map(([d, zone]) => ({ kind: 'datetime', value: d.toISOString().replace('Z', zone), offset: 0 }) as const),
);
const compareOp = fc.constantFrom<CompareOp>('eq', 'ne', 'lt', 'gt', 'le', 'ge');
const functionName = fc.constantFrom<FunctionName>('startswith', 'endswith', 'contains');

const { expr } = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', maxDepth: 8 },
    fc.record({ kind: fc.constant('compare' as const), op: compareOp, property, value: literal, offset: fc.constant(0) }),
    fc.record({ kind: fc.constant('in' as const), property, values: fc.array(literal, { minLength: 1, maxLength: 5 }), offset: fc.constant(0) }),
    fc.record({ kind: fc.constant('function' as const), name: functionName, property, value: stringLiteral, offset: fc.constant(0) }),
    fc.record({ kind: fc.constant('and' as const), left: tie('expr'), right: tie('expr') }),
    fc.record({ kind: fc.constant('or' as const), left: tie('expr'), right: tie('expr') }),
    fc.record({ kind: fc.constant('not' as const), operand: tie('expr') }),
  ),
}));

describe('fuzz: formatFilter round-trips', () => {
  it('parseFilter(formatFilter(e)) equals e, also through the percent-encoded query string', () => {
    fc.assert(
      fc.property(expr, (e) => {
        const text = formatFilter(e);
        const parsed = parseFilter(text);
        expect(stripOffsets(parsed)).toEqual(stripOffsets(e));
        expect(formatFilter(parsed)).toBe(text);
        expect(stripOffsets(parseQuery(`$filter=${encodeURIComponent(text)}`).filter)).toEqual(stripOffsets(e));
      }),
      { numRuns: 2000 },
    );
  });

  it('every surface spelling of a tree parses to that tree, and re-formats canonically', () => {
    fc.assert(
      fc.property(expr, fc.integer(), (e, seed) => {
        const variant = spell(e, lcg(seed));
        const parsed = parseFilter(variant);
        expect(stripOffsets(parsed)).toEqual(stripOffsets(e));
        expect(stripOffsets(parseFilter(formatFilter(parsed)))).toEqual(stripOffsets(parsed));
      }),
      { numRuns: 2000 },
    );
  });

  it('a damaged spelling parses or fails with an ODataError', () => {
    fc.assert(
      fc.property(expr, fc.integer(), fc.nat(), fc.constantFrom('', ' ', "'", '(', ')', ',', 'not ', ' and', 'eq', '-', '.'), (e, seed, at, insert) => {
        const text = spell(e, lcg(seed));
        const i = at % (text.length + 1);
        return parsesOrODataError(() => parseFilter(text.slice(0, i) + insert + text.slice(i + 1)));
      }),
      { numRuns: 2000 },
    );
  });
});

// ---- Random surface spellings (case, aliases, spacing, optional parentheses, flipped sides) ----

type Random = (n: number) => number;

function lcg(seed: number): Random {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % n;
  };
}

const pick = <T,>(r: Random, options: readonly T[]): T => options[r(options.length)] as T;
const ws = (r: Random): string => pick(r, [' ', ' ', '  ', '\t', ' \n ']);
const keyword = (r: Random, word: string): string => pick(r, [word, word, word.toUpperCase(), word[0]?.toUpperCase() + word.slice(1)]);
const FLIP: Readonly<Record<CompareOp, CompareOp>> = { eq: 'eq', ne: 'ne', lt: 'gt', gt: 'lt', le: 'ge', ge: 'le' };
const ALIASES: Readonly<Record<CompareOp, readonly string[]>> = { eq: ['eq'], ne: ['ne'], lt: ['lt'], gt: ['gt'], le: ['le', 'lte'], ge: ['ge', 'gte'] };

function spellLiteral(l: Literal, r: Random): string {
  if (l.kind === 'boolean') return keyword(r, String(l.value));
  if (l.kind === 'null') return keyword(r, 'null');
  return formatFilter({ kind: 'compare', op: 'eq', property: { kind: 'property', name: 'X', offset: 0 }, value: l, offset: 0 }).slice('X eq '.length);
}

function spell(e: Expr, r: Random): string {
  const paren = (text: string, needed: boolean): string => (needed || r(4) === 0 ? `(${ws(r)}${text}${ws(r)})` : text);
  switch (e.kind) {
    case 'compare': {
      if (r(3) === 0) return `${spellLiteral(e.value, r)}${ws(r)}${keyword(r, pick(r, ALIASES[FLIP[e.op]]))}${ws(r)}${e.property.name}`;
      return `${e.property.name}${ws(r)}${keyword(r, pick(r, ALIASES[e.op]))}${ws(r)}${spellLiteral(e.value, r)}`;
    }
    case 'in':
      return `${e.property.name}${ws(r)}${keyword(r, 'in')}${ws(r)}(${e.values.map((v) => spellLiteral(v, r)).join(pick(r, [',', ' , ', ', ']))})`;
    case 'function':
      return `${keyword(r, e.name)}(${e.property.name},${pick(r, ['', ' '])}${spellLiteral(e.value, r)})${r(3) === 0 ? ` ${keyword(r, 'eq')} ${keyword(r, 'true')}` : ''}`;
    case 'not':
      return `${keyword(r, 'not')}${ws(r)}${paren(spell(e.operand, r), e.operand.kind === 'and' || e.operand.kind === 'or')}`;
    case 'and':
      return `${paren(spell(e.left, r), e.left.kind === 'or')}${ws(r)}${keyword(r, 'and')}${ws(r)}${paren(spell(e.right, r), e.right.kind === 'or' || e.right.kind === 'and')}`;
    case 'or':
      return `${paren(spell(e.left, r), false)}${ws(r)}${keyword(r, 'or')}${ws(r)}${paren(spell(e.right, r), e.right.kind === 'or')}`;
    case 'spatial':
    case 'distance':
      throw new Error('the generator makes no spatial nodes: geo-functions.test.ts covers them');
  }
}
