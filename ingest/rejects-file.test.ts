import { DuckDBInstance } from '@duckdb/node-api';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIngest, summaryLine } from './pipeline.js';
import { tempDir } from './test-support.js';

/**
 * The rejects file, on generated rows: 3,000 rows of which a known set fail one, two or three checks, with quoted
 * newlines and a malformed record shifting the lines after them, the report capped at 10 rejects. The file must hold
 * one line per rejected row, each with every reason and the line the report's own line numbering gives.
 */

const header = [
  'DatasetName', 'MonitoringLocationID', 'MonitoringLocationName', 'MonitoringLocationLatitude', 'MonitoringLocationLongitude',
  'MonitoringLocationHorizontalCoordinateReferenceSystem', 'MonitoringLocationType', 'ActivityType', 'ActivityMediaName', 'ActivityStartDate',
  'CharacteristicName', 'ResultValue', 'ResultUnit', 'ResultValueType', 'ResultComment', 'ResultDetectionCondition',
];
const good = ['Gen', 'L1', 'Loc 1', '53.5', '-113.5', 'WGS84', 'River/Stream', 'Field Msr/Obs', 'Surface Water', '2021-06-01', 'pH', '7.1', 'None', 'Actual', '', ''];
const at = (name: string) => header.indexOf(name);
const csvCell = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

interface Generated {
  readonly text: string;
  /** Physical line of each rejected row, with the substrings its reasons must hold. */
  readonly rejected: Map<number, string[]>;
  /** Physical lines of valid rows that fail a quality-control rule, with the rule. */
  readonly warned: Map<number, string>;
}

function generate(rows: number): Generated {
  const lines = [header.join(',')];
  let physical = 2;
  const rejected = new Map<number, string[]>();
  const warned = new Map<number, string>();
  for (let i = 0; i < rows; i++) {
    const row = [...good];
    const expect: string[] = [];
    if (i % 7 === 3) (row[at('ResultValue')] = 'abc'), expect.push("ResultValue 'abc' is not a finite number");
    if (i % 11 === 5) (row[at('ResultUnit')] = 'mg/l'), expect.push("ResultUnit 'mg/l' is not in the");
    if (i % 13 === 6) (row[at('ActivityStartDate')] = '2021-02-30'), expect.push("ActivityStartDate '2021-02-30' is not a calendar date");
    if (i % 17 === 8) (row[at('ResultValueType')] = ''), expect.push('ResultValueType is required');
    if (i % 19 === 9) (row[at('ResultDetectionCondition')] = 'Not Detected'), expect.push('upstream rule ResultDetectionCondition-ResultValue');
    if (i % 29 === 2 && expect.length === 0) (row[at('ResultValue')] = '15'), warned.set(physical, "upstream rule ResultValue-pH-Range (ResultValue '15')");
    if (i % 23 === 1) (row[at('ResultComment')] = 'two\nlines'), expect.length === 0 && warned.set(physical, 'upstream rule WhiteSpace-ResultComment');
    if (i === 1500) {
      lines.push(`${good.join(',')},one too many`);
      rejected.set(physical, ['malformed CSV record']);
      physical += 1;
    }
    if (expect.length > 0) rejected.set(physical, expect);
    const line = row.map(csvCell).join(',');
    lines.push(line);
    physical += 1 + (line.match(/\n/g)?.length ?? 0);
  }
  return { text: `${lines.join('\n')}\n`, rejected, warned };
}

async function readCsv(path: string): Promise<Record<string, string>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const reader = await conn.runAndReadAll(`SELECT * FROM read_csv('${path.replaceAll("'", "''")}', header = true, all_varchar = true)`);
    return reader.getRowObjectsJson() as Record<string, string>[];
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function dataset(dir: string, text: string): Promise<string> {
  const src = join(dir, 'src');
  await mkdir(join(src, 'gen'), { recursive: true });
  await writeFile(join(src, 'gen', 'metadata.json'), JSON.stringify({ DOI: '10.5066/GEN(1)', DatasetName: 'Generated' }));
  await writeFile(join(src, 'gen', 'data.csv'), text);
  return src;
}

describe('the rejects file', () => {
  it('holds every rejected row once, with every reason and its physical line, named in the report and the summary', async () => {
    const dir = await tempDir();
    const generated = generate(3000);
    const src = await dataset(dir, generated.text);
    const duckdbPath = join(dir, 'db', 't.duckdb');
    const report = await runIngest({ src, duckdbPath, maxRejects: 10 });
    const [d] = report.datasets;
    const path = join(dir, 'db', 't.duckdb.rejects', 'gen.csv');
    expect(d?.rejectsFile).toBe(path);
    expect(summaryLine(d!)).toContain(`(every reject: ${path})`);
    expect(d?.rejects.length).toBe(10);
    expect(d?.rowsRejected).toBe(generated.rejected.size);

    const lines = await readCsv(path);
    expect(Object.keys(lines[0] ?? {})).toEqual(['file', 'line', 'severity', 'errors', 'warnings']);
    expect(lines.map((l) => Number(l.line))).toEqual([...generated.rejected.keys()]);
    for (const l of lines) {
      expect(l.file).toBe('gen/data.csv');
      expect(l.severity).toBe('error');
      for (const reason of generated.rejected.get(Number(l.line)) ?? []) expect(l.errors).toContain(reason);
    }
    // A row failing three checks names all three.
    const triple = lines.find((l) => (l.errors ?? '').split(' | ').length >= 3);
    expect(triple).toBeDefined();
    // The report's sample agrees with the file on lines and first reasons.
    for (const r of d!.rejects) expect(lines.find((l) => Number(l.line) === r.line)?.errors).toContain(r.reason.split(':')[0]);
    expect((await readdir(join(dir, 'db', 't.duckdb.rejects'))).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('adds a warning line per valid row that fails a quality-control rule when asked, and drops the file once clean', async () => {
    const dir = await tempDir();
    const generated = generate(600);
    const src = await dataset(dir, generated.text);
    const duckdbPath = join(dir, 't.duckdb');
    const report = await runIngest({ src, duckdbPath, rejectsWarnings: true });
    const lines = await readCsv(report.datasets[0]!.rejectsFile!);
    const warnings = lines.filter((l) => l.severity === 'warning');
    expect(warnings.map((l) => Number(l.line))).toEqual([...generated.warned.keys()]);
    for (const w of warnings) expect(w.warnings).toContain(generated.warned.get(Number(w.line)));
    expect(lines.filter((l) => l.severity === 'error')).toHaveLength(generated.rejected.size);

    await writeFile(join(src, 'gen', 'data.csv'), `${header.join(',')}\n${good.map(csvCell).join(',')}\n`);
    const clean = await runIngest({ src, duckdbPath });
    expect(clean.datasets[0]?.rejectsFile).toBeUndefined();
    expect(await readdir(join(dir, 't.duckdb.rejects'))).toEqual([]);
  });

  it('writes a formula in a folder or file name as text: a leading quote, as OWASP asks of a CSV cell', async () => {
    const dir = await tempDir();
    const src = join(dir, 'src');
    const folder = '=HYPERLINK("evil.example")';
    await mkdir(join(src, folder), { recursive: true });
    await writeFile(join(src, folder, 'metadata.json'), JSON.stringify({ DOI: '10.5066/FORMULA', DatasetName: 'Formula' }));
    const bad = [...good];
    bad[at('ResultValue')] = 'abc';
    await writeFile(join(src, folder, '@data.csv'), `${header.join(',')}\n${good.map(csvCell).join(',')}\n${bad.map(csvCell).join(',')}\n`);
    const report = await runIngest({ src, duckdbPath: join(dir, 't.duckdb') });
    expect(report.datasets[0], JSON.stringify(report.datasets[0])).toMatchObject({ rowsRejected: 1 });
    const lines = await readCsv(report.datasets[0]!.rejectsFile!);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ file: `'${folder}/@data.csv`, line: '3', severity: 'error' });
    expect(lines[0]!.errors).toContain("ResultValue 'abc' is not a finite number");
  });
});
