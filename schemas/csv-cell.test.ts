import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { isFormulaText, neutralisedCellSql, neutraliseCell } from './csv-cell.js';

/**
 * OWASP's rule (https://owasp.org/www-community/attacks/CSV_Injection), written here from its text: a cell starting
 * with = + - @ tab or CR is prefixed with a single quote. Its exception, from what a spreadsheet does: a cell that is
 * wholly a number (sign, digits, one decimal point, an exponent) or a ±hh:mm offset is a value, not a formula.
 */
function oracle(text: string): string {
  const first = text.charAt(0);
  if (!['=', '+', '-', '@', '\t', '\r'].includes(first)) return text;
  const body = first === '+' || first === '-' ? text.slice(1) : '';
  const numberLike = (s: string) => {
    const [mantissa, exponent, ...more] = s.split(/[eE]/);
    if (more.length || mantissa === undefined) return false;
    const [whole, frac, ...dots] = mantissa.split('.');
    if (dots.length || (whole === '' && (frac === undefined || frac === ''))) return false;
    const digits = (d: string | undefined) => d === undefined || /^[0-9]*$/.test(d);
    const exp = exponent === undefined || /^[+-]?[0-9]+$/.test(exponent);
    return digits(whole) && digits(frac) && exp && /[0-9]/.test(mantissa);
  };
  const offset = /^[0-9][0-9]:[0-9][0-9]$/.test(body);
  return (first === '+' || first === '-') && (numberLike(body) || offset) ? text : `'${text}`;
}

/** Strings over the characters the rule reads (seeded), so the SQL's regex-free number and offset tests meet the TypeScript's regex. */
function randomCells(count: number): string[] {
  const alphabet = '+-=@\t\r0123456789.eE: x٣';
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, () => Array.from({ length: Math.floor(next() * 9) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''));
}

const CASES = [
  '=1+1', '=HYPERLINK("http://evil.example","click")', '+1+cmd|\' /C calc\'!A0', '-2+3', '@SUM(A1:A2)', '\tleading tab', '\rcarriage',
  '-5', '+5', '-5.25', '-.5', '+1e10', '-1.5E-3', '-07:00', '+05:30', '-7:00', '-07:00:00', '- 5', '-', '+', '=', '@', '-e5', '-1e', '--1', '-1.2.3', '-inf', '-NaN', '-0x10',
  'plain', ' =leading space', 'a=b', '', "'=already", 'é=', '5-3', '1e5',
];

describe('a CSV cell a spreadsheet will not run', () => {
  it('TypeScript follows OWASP’s rule with its exception for numbers and offsets', () => {
    for (const text of CASES) expect([text, neutraliseCell(text)]).toEqual([text, oracle(text)]);
    expect(isFormulaText('=1')).toBe(true);
    expect(isFormulaText('-1')).toBe(false);
  });

  it('the SQL gives what TypeScript gives, for every case and NULL', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    try {
      const conn = await instance.connect();
      const literal = (t: string) => `'${t.replaceAll("'", "''")}'`;
      await conn.run('CREATE TABLE t (i INTEGER, s VARCHAR)');
      const appender = await conn.createAppender('t');
      const cells = [...CASES, ...randomCells(5000)];
      cells.forEach((c, i) => (appender.appendInteger(i), appender.appendVarchar(c), appender.endRow()));
      appender.appendInteger(cells.length);
      appender.appendNull();
      appender.endRow();
      appender.closeSync();
      const rows = (await conn.runAndReadAll(`SELECT ${neutralisedCellSql('s', literal)} FROM t ORDER BY i`)).getRows().map((r) => r[0]);
      expect(rows).toEqual([...cells.map(neutraliseCell), null]);
    } finally {
      instance.closeSync();
    }
  });
});
