/**
 * Property tests: whatever arrives, parsing ends (no hang, no stack overflow) with an expression or an ODataError,
 * never another exception; and any tree CQL2 can say, written as CQL2-Text, parses back to itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompareOp, Expr, FunctionName, Literal, Property } from '../odata/ast.js';
import { ODataError } from '../odata/odata-error.js';
import { stripOffsets } from '../testing/odata-ast.js';
import { GEOMETRY_PROPERTY, parseCql2Text } from './parse-cql2.js';
import { RESERVED } from './parse-scalar.js';

function parsesOrODataError(text: string): boolean {
  try {
    parseCql2Text(text);
    return true;
  } catch (err) {
    if (err instanceof ODataError) return true;
    throw err;
  }
}

const PIECES = [
  'A', '"A"', 'eo:x', '=', '<>', '<', '<=', '>', '>=', '!', 'AND', 'OR', 'NOT', 'IN', 'LIKE', 'BETWEEN', 'IS', 'NULL', 'TRUE',
  '(', ')', ',', "'x'", "'", "''", "\\'", '"', '1', '-', '+', '.', '1.5E3', '*', '/', '^', 'div', "DATE('2020-01-01')", 'DATE(',
  "TIMESTAMP('2020-01-01T00:00:00Z')", "'%x%'", "'a_b'", 'S_INTERSECTS(', 'geometry', 'BBOX(', 'ENVELOPE(', 'POINT(', '0 0',
  'POLYGON((', 'T_AFTER(', 'CASEI(', 'INTERVAL(', 'foo(', ';', '--', '😀', '\u00A0', '\\',
];
const joined = (sep: string) => fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((p) => p.join(sep));

describe('fuzz: parseCql2Text only ever throws ODataError', () => {
  it('on arbitrary and CQL2-shaped text', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), joined(' '), joined(''));
    fc.assert(fc.property(text, parsesOrODataError), { numRuns: 5000 });
  });

  it('on deep and long input, without a stack overflow', () => {
    const deep = fc.tuple(fc.constantFrom('(', 'NOT ', 'NOT (', 'S_INTERSECTS(', 'A IN (', 'avg('), fc.integer({ min: 60, max: 20_000 }));
    fc.assert(fc.property(deep, ([open, n]) => parsesOrODataError(`${open.repeat(n)}A = 1`)), { numRuns: 50 });
  });
});

// ---- Trees CQL2 can say, written out, parsed back ----

const name = fc
  .stringMatching(/^[A-Za-z_][A-Za-z0-9_:.]{0,10}$/)
  .filter((n) => !RESERVED.has(n.toLowerCase()) && n !== GEOMETRY_PROPERTY);
const property: fc.Arbitrary<Property> = name.map((n) => ({ kind: 'property', name: n, offset: 0 }));
// A backslash right before the closing quote would read as CQL2's \' escape: such text cannot be written.
const text = fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !/\\('|$)/.test(s));
const numberText = fc.oneof(
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.tuple(fc.integer({ min: -1e6, max: 1e6 }), fc.stringMatching(/^[0-9]{1,6}$/)).map(([i, f]) => `${i}.${f}`),
  fc.tuple(fc.integer({ min: -99, max: 99 }), fc.constantFrom('e', 'E'), fc.integer({ min: -400, max: 400 })).map(([m, e, x]) => `${m}${e}${x}`),
);
const dates = fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
const value: fc.Arbitrary<Literal> = fc.oneof(
  text.map((v) => ({ kind: 'string', value: v, offset: 0 }) as const),
  numberText.map((t) => ({ kind: 'number', text: t, value: Number(t), integer: /^-?[0-9]+$/.test(t), offset: 0 }) as const),
  fc.boolean().map((v) => ({ kind: 'boolean', value: v, offset: 0 }) as const),
  dates.map((d) => ({ kind: 'date', value: d.toISOString().slice(0, 10), offset: 0 }) as const),
  dates.map((d) => ({ kind: 'datetime', value: d.toISOString(), offset: 0 }) as const),
);
const offset = fc.constant(0);

const { expr } = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', maxDepth: 8 },
    fc.record({ kind: fc.constant('compare' as const), op: fc.constantFrom<CompareOp>('eq', 'ne', 'lt', 'gt', 'le', 'ge'), property, value, offset }),
    fc.record({ kind: fc.constant('compare' as const), op: fc.constantFrom<CompareOp>('eq', 'ne'), property, value: fc.constant({ kind: 'null', offset: 0 } as const), offset }),
    fc.record({ kind: fc.constant('in' as const), property, values: fc.array(value, { minLength: 1, maxLength: 5 }), offset }),
    fc.record({
      kind: fc.constant('function' as const),
      name: fc.constantFrom<FunctionName>('startswith', 'endswith', 'contains'),
      property,
      // LIKE '%' alone is contains(F, ''), whatever function was meant.
      value: text.filter((v) => v !== '').map((v) => ({ kind: 'string', value: v, offset: 0 }) as const),
      offset,
    }),
    fc.record({ kind: fc.constant('and' as const), left: tie('expr'), right: tie('expr') }),
    fc.record({ kind: fc.constant('or' as const), left: tie('expr'), right: tie('expr') }),
    fc.record({ kind: fc.constant('not' as const), operand: tie('expr') }),
  ),
}));

const OPERATORS: Readonly<Record<CompareOp, string>> = { eq: '=', ne: '<>', lt: '<', gt: '>', le: '<=', ge: '>=' };
const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;

function literalText(lit: Literal): string {
  switch (lit.kind) {
    case 'string': return quote(lit.value);
    case 'number': return lit.text;
    case 'boolean': return lit.value ? 'TRUE' : 'false';
    case 'date': return `DATE('${lit.value}')`;
    case 'datetime': return `timestamp('${lit.value}')`;
    case 'null': return 'NULL';
  }
}

/** CQL2-Text for a tree: every operand of AND, OR and NOT in parentheses, names quoted at random. */
function cql2(e: Expr, quoted: boolean): string {
  const p = (prop: Property) => (quoted ? `"${prop.name}"` : prop.name);
  switch (e.kind) {
    case 'compare':
      if (e.value.kind === 'null') return `${p(e.property)} IS ${e.op === 'ne' ? 'NOT ' : ''}NULL`;
      return `${p(e.property)} ${OPERATORS[e.op]} ${literalText(e.value)}`;
    case 'in':
      return `${p(e.property)} IN (${e.values.map(literalText).join(', ')})`;
    case 'function': {
      const escaped = e.value.value.replace(/[\\%_]/g, (c) => `\\${c}`);
      const pattern = e.name === 'startswith' ? `${escaped}%` : e.name === 'endswith' ? `%${escaped}` : `%${escaped}%`;
      return `${p(e.property)} LIKE ${quote(pattern)}`;
    }
    case 'and':
    case 'or':
      return `(${cql2(e.left, !quoted)}) ${e.kind.toUpperCase()} (${cql2(e.right, quoted)})`;
    case 'not':
      return `NOT (${cql2(e.operand, quoted)})`;
    case 'spatial':
    case 'distance':
      throw new Error('the generator makes no spatial nodes: parse-cql2-spatial.test.ts covers them');
  }
}

describe('fuzz: CQL2-Text round trip', () => {
  it('parseCql2Text(cql2(e)) equals e', () => {
    fc.assert(
      fc.property(expr, fc.boolean(), (e, quoted) => {
        expect(stripOffsets(parseCql2Text(cql2(e, quoted)))).toEqual(stripOffsets(e));
      }),
      { numRuns: 2000 },
    );
  });
});
