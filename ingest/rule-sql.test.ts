import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadColumns, upstreamRules, type UpstreamRule } from '../schemas/index.js';
import { all, run } from './db.js';
import { ajvAccepts, checkableRules } from './rule-oracle.js';
import { applicableRules, compileRules, errorRules, re2Pattern, UnsupportedRule, warningRules } from './rule-sql.js';
import { ident } from './sql.js';

/** A row upstream accepts: every rule passes on it (checked below). */
const base: Record<string, string> = {
  DatasetName: 'D', MonitoringLocationID: 'L1', MonitoringLocationName: 'Loc', MonitoringLocationLatitude: '53.5',
  MonitoringLocationLongitude: '-113.5', MonitoringLocationHorizontalCoordinateReferenceSystem: 'WGS84',
  MonitoringLocationType: 'River/Stream', ActivityType: 'Field Msr/Obs', ActivityMediaName: 'Surface Water',
  ActivityStartDate: '2021-06-01', CharacteristicName: 'pH', ResultValue: '7', ResultUnit: 'None', ResultValueType: 'Actual',
  ResultStatusID: 'Validated',
};

/** Deterministic pseudo-random numbers (mulberry32), so a failure names a reproducible row. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Values worth trying per column of a rule: every enum/const value the rule names for it (and a few past its
 * bounds), text that the whitespace, injection and length checks judge differently, and absence.
 */
function candidates(rule: UpstreamRule): Map<string, string[]> {
  const found = new Map<string, Set<string>>();
  const add = (column: string, value: string) => {
    if (!found.has(column)) found.set(column, new Set(['', base[column] ?? 'x']));
    found.get(column)?.add(value);
  };
  const visit = (node: unknown, column: string | null) => {
    if (Array.isArray(node)) return node.forEach((n) => visit(n, column));
    if (typeof node !== 'object' || node === null) return;
    const s = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(s)) {
      if (key === 'properties' && typeof value === 'object' && value !== null) {
        for (const [c, sub] of Object.entries(value)) {
          add(c, base[c] ?? 'x');
          visit(sub, c);
        }
      } else if ((key === 'required' || key === 'dependencies') && column === null) {
        const names = Array.isArray(value) ? value : Object.entries(value as object).flat(2);
        for (const c of names) if (typeof c === 'string') add(c, base[c] ?? 'x');
      } else if (column && (key === 'enum' || key === 'const')) {
        for (const v of (key === 'enum' ? (value as unknown[]) : [value]).slice(0, 6)) add(column, String(v));
      } else if (column && ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].includes(key)) {
        for (const d of [-1, 0, 0.5, 1]) add(column, String(Number(value) + d));
      } else if (column && key === 'maxLength') {
        add(column, 'y'.repeat(Math.min(Number(value) + 1, 5000)));
      } else if (column && key === 'format') {
        for (const v of ['2021-02-30', '2020-02-29', '2021-2-3', '20210101', '2021-06-01T00:00']) add(column, v);
      } else if (column && key === 'pattern') {
        for (const v of [' lead', 'trail ', 'a\u00a0', '=cmd', '-1', 'fine text', 'two\nlines', 'tab\there', '\u3000x']) add(column, v);
      } else visit(value, column);
    }
  };
  visit(rule.schema, null);
  return new Map([...found].map(([c, v]) => [c, [...v]]));
}

const compilable = checkableRules();

let instance: DuckDBInstance;
let conn: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
  await run(conn, `CREATE TABLE t (i INTEGER, ${uploadColumns.map((f) => `${ident(f.name)} VARCHAR`).join(', ')})`);
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

/** The rule's SQL over `rows`, loaded by DuckDB's appender (a VALUES list of 300 × 70 bound parameters took most of this file's time). */
async function sqlVerdicts(sql: string, rows: readonly Record<string, string>[]): Promise<boolean[]> {
  await run(conn, 'DELETE FROM t');
  const appender = await conn.createAppender('t');
  rows.forEach((row, i) => {
    appender.appendInteger(i);
    for (const f of uploadColumns) {
      const value = row[f.name];
      if (value) appender.appendVarchar(value);
      else appender.appendNull();
    }
    appender.endRow();
  });
  appender.closeSync();
  return (await all(conn, `SELECT (${sql}) AS ok FROM t ORDER BY i`)).map((r) => r.ok as boolean);
}

describe('upstream rules compiled to SQL', () => {
  it('compiles every conditional rule upstream publishes, and every column definition but those of the WQX package', () => {
    const { compiled, skipped } = compileRules();
    expect(compiled.map((r) => r.name)).toEqual(expect.arrayContaining(upstreamRules.map((r) => r.name)));
    expect(skipped.every((r) => r.name.startsWith('column-') && /epa\.gov\/wqx/.test(r.reason)), JSON.stringify(skipped)).toBe(true);
    expect(compiled.length + skipped.length).toBe(applicableRules().length);
    expect(errorRules.length + warningRules.length).toBe(compiled.length);
    expect(upstreamRules.filter((r) => r.severity === 'error').length).toBeGreaterThan(30);
    expect(upstreamRules.filter((r) => r.severity === 'warning').length).toBeGreaterThan(40);
  });

  it('refuses what it does not understand by name, rather than guessing', () => {
    const rule = (schema: Record<string, unknown>): UpstreamRule => ({ name: 'x', severity: 'error', source: 's', description: '', schema });
    expect(compileRules([rule({ patternProperties: { a: true } })]).skipped[0]?.reason).toMatch(/row keyword patternProperties/);
    expect(compileRules([rule({ properties: { ResultValue: { multipleOf: 2 } } })]).skipped[0]?.reason).toMatch(/value keyword multipleOf/);
    expect(compileRules([rule({ properties: { Nope: true }, required: ['Nope'] })]).skipped[0]?.reason).toMatch(/column Nope/);
    expect(compileRules([rule({ $ref: 'https://epa.gov/wqx/definitions.json#/definitions/X' })]).skipped[0]?.reason).toMatch(/WQX/);
    expect(() => re2Pattern('^(?=a)')).toThrow(UnsupportedRule);
  });

  it('passes the base row under every rule (ajv agrees)', async () => {
    for (const rule of compilable) expect(ajvAccepts(rule, base), rule.name).toBe(true);
    const { compiled } = compileRules();
    const verdicts = await sqlVerdicts(compiled.map((r) => `(${r.sql})`).join(' AND '), [base]);
    expect(verdicts).toEqual([true]);
  });

  it.each(compilable.map((r) => [`${r.severity} ${r.name}`, r] as const))('%s: SQL and ajv agree on 300 rows built from the rule', async (_name, rule) => {
    const next = random([...rule.name].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) | 0, 7));
    const choices = [...candidates(rule)];
    const rows = Array.from({ length: 300 }, () => {
      const row = { ...base };
      for (const [column, values] of choices) if (next() < 0.7) row[column] = values[Math.floor(next() * values.length)] as string;
      return row;
    });
    const [compiled] = compileRules([rule]).compiled;
    const sql = await sqlVerdicts(compiled?.sql ?? 'NULL', rows);
    const disagreements = rows.flatMap((row, i) => (sql[i] === ajvAccepts(rule, row) ? [] : [{ row: Object.fromEntries(choices.map(([c]) => [c, row[c]])), sql: sql[i] }]));
    expect(disagreements.slice(0, 3)).toEqual([]);
  });

  it('the rows built from the rules fail most rules at least once, so the agreement above means something', async () => {
    let failing = 0;
    for (const rule of compilable) {
      const next = random(1);
      const choices = [...candidates(rule)];
      for (let i = 0; i < 300; i++) {
        const row = { ...base };
        for (const [column, values] of choices) if (next() < 0.7) row[column] = values[Math.floor(next() * values.length)] as string;
        if (!ajvAccepts(rule, row)) {
          failing++;
          break;
        }
      }
    }
    expect(failing / compilable.length).toBeGreaterThan(0.9);
  });
});

describe('docs/upstream-rules.md', () => {
  it('lists every compiled rule as implemented and every other one as not, with its severity', () => {
    const doc = readFileSync(new URL('../docs/upstream-rules.md', import.meta.url), 'utf8');
    const [implemented = '', notImplemented = ''] = doc.split('## Not implemented');
    const { compiled, skipped } = compileRules();
    for (const r of compiled) expect(implemented, r.name).toContain(`| \`${r.name}\` | ${r.severity} |`);
    for (const r of skipped) expect(notImplemented, r.name).toContain(`| \`${r.name}\` |`);
  });
});

describe('re2Pattern', () => {
  it.each([['ok'], [' lead'], ['trail '], ['a\u00a0'], ['\u3000x'], ['two\nlines'], ['x'], [' '], ['a b']])('the trim check agrees with JavaScript on %j', async (value) => {
    const js = new RegExp('^(?!\\s).+(?<!\\s)$', 'u').test(value);
    const [row] = await all(conn, `SELECT regexp_matches($1, ${`'${re2Pattern('^(?!\\s).+(?<!\\s)$').replaceAll("'", "''")}'`}) AS ok`, [value]);
    expect(row?.ok).toBe(js);
  });
});
