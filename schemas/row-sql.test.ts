/**
 * The CSV line every CSV door writes (pages, exports, dataset files), read back by pandas, as a DataStream client in
 * Python reads a CSV page: text that a spreadsheet would run as a formula comes back with a leading quote, and
 * numbers (negative ones too), dates, times and UTC offsets come back as they were stored.
 */
import { execFileSync } from 'node:child_process';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { servedField, type FieldDef } from './field.js';
import { csvHeader, csvRowSql, type SqlNames } from './row-sql.js';

const names: SqlNames = { column: (n) => `t."${n}"`, ident: (n) => `"${n}"`, constant: (t) => `'${t.replaceAll("'", "''")}'` };
const FIELDS: readonly FieldDef[] = [
  servedField('Id', 'integer', false, ''),
  servedField('Name', 'string', true, ''),
  servedField('Keywords', 'string[]', true, ''),
  servedField('Value', 'number', true, ''),
  servedField('Day', 'date', true, ''),
  servedField('At', 'time', true, ''),
  servedField('TimeZone', 'string', true, ''),
];

/** Each row's stored values, and the text a reader must get back for Name and Keywords. */
const ROWS: readonly { name: string; keywords: string[]; value: number; zone: string; nameBack: string; keywordsBack: string }[] = [
  { name: '=1+1', keywords: ['=cmd|x', 'b'], value: -5, zone: '-07:00', nameBack: "'=1+1", keywordsBack: "'=cmd|x;b" },
  { name: '+SUM(A1)', keywords: ['a', '=x'], value: -0.25, zone: '+05:30', nameBack: "'+SUM(A1)", keywordsBack: 'a;=x' },
  { name: '-2+3', keywords: ['-1'], value: 1e-7, zone: '-03:30', nameBack: "'-2+3", keywordsBack: '-1' },
  { name: '@A1', keywords: ['@x'], value: -1234.5, zone: '', nameBack: "'@A1", keywordsBack: "'@x" },
  { name: '\tTab', keywords: [], value: 0, zone: '', nameBack: "'\tTab", keywordsBack: '' },
  { name: '\rCR', keywords: ['"quoted"'], value: 3, zone: '', nameBack: "'\rCR", keywordsBack: '"quoted"' },
  { name: '-42', keywords: ['+7'], value: -42, zone: '', nameBack: '-42', keywordsBack: '+7' },
  { name: 'River "A", =B', keywords: ['plain'], value: 7.5, zone: '', nameBack: 'River "A", =B', keywordsBack: 'plain' },
];

const PANDAS = `
import io, json, sys
import pandas as pd
df = pd.read_csv(io.StringIO(sys.stdin.read()), keep_default_na=False, dtype={'Name': str, 'Keywords': str, 'TimeZone': str})
print(json.dumps({'columns': {c: str(df[c].dtype) for c in df.columns}, 'rows': df.astype(object).where(df.notna(), None).to_dict('records')}, default=str))
`;

describe('a CSV line read back by pandas', () => {
  it('neutralises formula text in string and list cells, and keeps numbers, dates, times and offsets', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    let csv: string;
    try {
      const conn = await instance.connect();
      await conn.run('CREATE TABLE t ("Id" BIGINT, "Name" VARCHAR, "Keywords" VARCHAR[], "Value" DOUBLE, "Day" DATE, "At" TIME, "TimeZone" VARCHAR)');
      for (const [i, r] of ROWS.entries()) {
        const list = `[${r.keywords.map((k) => names.constant(k)).join(', ')}]::VARCHAR[]`;
        await conn.run(`INSERT INTO t VALUES (${i}, ${names.constant(r.name)}, ${list}, ${r.value}, DATE '2020-01-0${i + 1}', TIME '13:0${i}:00', ${r.zone ? names.constant(r.zone) : 'NULL'})`);
      }
      const lines = (await conn.runAndReadAll(`SELECT ${csvRowSql(FIELDS, names)} FROM t ORDER BY "Id"`)).getRows().map((r) => String(r[0]));
      csv = `${csvHeader(FIELDS)}\r\n${lines.join('\r\n')}\r\n`;
    } finally {
      instance.closeSync();
    }
    const read = JSON.parse(execFileSync('python3', ['-c', PANDAS], { input: csv, encoding: 'utf8' })) as { columns: Record<string, string>; rows: Record<string, unknown>[] };
    expect(read.columns['Value']).toBe('float64');
    expect(read.columns['Id']).toBe('int64');
    for (const [i, r] of ROWS.entries()) {
      expect(read.rows[i]).toMatchObject({ Id: i, Name: r.nameBack, Keywords: r.keywordsBack, Value: r.value, Day: `2020-01-0${i + 1}`, At: `13:0${i}:00`, TimeZone: r.zone });
    }
  });
});
