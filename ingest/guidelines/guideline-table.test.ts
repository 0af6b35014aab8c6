import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import corrections from './corrections.json' with { type: 'json' };
import { ExpressionError, inputsOf, parseExpression } from './guideline-expression.js';
import { compileGuideline } from './guideline-sql.js';
import { loadGuidelines, type Correction } from './guideline-table.js';

const csv = readFileSync(new URL('./guidelines.csv', import.meta.url), 'utf8');

describe('the guideline summary as loaded', () => {
  const guidelines = loadGuidelines();

  it('has every row of the vendored summary, Ids 1…1913 in file order', () => {
    expect(guidelines).toHaveLength(1913);
    expect(guidelines.map((g) => g.Id)).toEqual(Array.from({ length: 1913 }, (_, i) => i + 1));
  });

  it('parses and compiles every expression it serves (corrections applied)', () => {
    const served = guidelines.filter((g) => g.formula);
    expect(served.length).toBeGreaterThan(1800);
    for (const g of served) expect(() => compileGuideline(g.formula!), String(g.Id)).not.toThrow();
  });

  it('keeps the expression as published and says what each correction changed', () => {
    const zinc = guidelines.find((g) => g.Id === 1452)!;
    expect(zinc.Expression).toContain('0.240[max(0.3, min(DOC, 17.3))]');
    expect(zinc.Correction).toMatch(/natural logarithm.*Source: https:\/\//);
    expect(guidelines.filter((g) => g.Correction !== null)).toHaveLength(corrections.length);
  });

  it('derives inputs, bound and jurisdictions', () => {
    const zinc = guidelines.find((g) => g.Id === 1907)!;
    expect(zinc.Inputs).toEqual(['hardness', 'pH', 'DOC']);
    expect(zinc.Jurisdictions).toEqual(['CA', 'CA-NB', 'CA-NL', 'CA-NT', 'CA-NS', 'CA-PE', 'CA-YT']);
    expect(guidelines.find((g) => g.Id === 1213)!.Bound).toBe('range');
    expect(guidelines.find((g) => g.Id === 621)!.Bound).toBe('minimum');
    expect(guidelines.find((g) => g.Id === 383)!.Bound).toBe('maximum');
    expect(new Set(guidelines.map((g) => g.Publisher))).not.toContain('USEPA');
  });

  it('refuses a correction whose row no longer says what it was written for', () => {
    const moved: Correction[] = [{ ...(corrections[0] as Correction), key: { ...(corrections[0] as Correction).key, Publisher: 'Someone else' } }];
    expect(() => loadGuidelines(csv, moved)).toThrow(new RegExp(`corrections\\.json: row ${(corrections[0] as Correction).id} is .*review the corrections`));
  });

  it('refuses an expression that does not parse, naming the row and asking for a correction', () => {
    expect(() => loadGuidelines(csv, [])).toThrow(/guidelines\.csv row 216 \(Cadmium, US EPA Chronic\): .* does not parse: .*corrections\.json/);
  });

});

describe('the notation', () => {
  it('reads implicit multiplication, \\over, e^, ranges and if/else', () => {
    expect(parseExpression('0.2e^{x}'.replace('x', 'hardness'))).toEqual({
      kind: 'binary', op: '*', left: { kind: 'number', value: 0.2 }, right: { kind: 'call', fn: 'exp', args: [{ kind: 'input', name: 'hardness' }] },
    });
    expect(parseExpression('{1 \\over 2+pH}')).toEqual({
      kind: 'binary', op: '/', left: { kind: 'number', value: 1 }, right: { kind: 'binary', op: '+', left: { kind: 'number', value: 2 }, right: { kind: 'input', name: 'pH' } },
    });
    expect(parseExpression('[6.5,9]')).toEqual({ kind: 'range', lo: { kind: 'number', value: 6.5 }, hi: { kind: 'number', value: 9 } });
    const chain = parseExpression('if (0 ≤ hardness ≤ 60) \\{ 1 \\} else \\{ 2 \\}');
    expect(chain.kind).toBe('if');
    expect(inputsOf(parseExpression('if (hardness != null) \\{ 0.286pH^{2} \\} else \\{ 2 \\}'))).toEqual(['hardness', 'pH']);
  });

  it('names what is wrong and where', () => {
    expect(() => parseExpression('e^{1)')).toThrow(new ExpressionError("expected '}' at ')' (character 4)"));
    expect(() => parseExpression('2 * salinity')).toThrow(/unknown name 'salinity'/);
    expect(() => parseExpression('1 + [1,2]')).toThrow(/a range \[lo,hi\] is only a whole value/);
    expect(() => parseExpression('max(1)')).toThrow(/max takes 2 argument\(s\), not 1/);
  });
});
