import { describe, expect, it } from 'vitest';
import { ingestMemory, loadIngestSettings, parseSize } from './settings.js';
import { periodsText } from './trends/trend-periods.js';

describe('ingest settings', () => {
  it.each([
    ['8GB', 8e9],
    ['512MiB', 512 * 2 ** 20],
    ['1.5 gb', 1.5e9],
    ['2TiB', 2 * 2 ** 40],
    ['8', undefined],
    ['8 GBs', undefined],
    ['-1GB', undefined],
  ])('parses the size %s', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it('defaults to 512 MiB whatever the machine, batches a quarter of the limit, and refuses what DuckDB could not work in', () => {
    expect(ingestMemory(undefined)).toEqual({ limitBytes: 512 * 2 ** 20, batchBytes: 128 * 2 ** 20 });
    expect(ingestMemory(loadIngestSettings({ INGEST_MEMORY_LIMIT: '4GB' }).INGEST_MEMORY_LIMIT)).toEqual({ limitBytes: 4e9, batchBytes: 1e9 });
    expect(() => loadIngestSettings({ INGEST_MEMORY_LIMIT: '64MB' })).toThrow(/at least 128MiB/);
    expect(() => loadIngestSettings({ INGEST_MEMORY_LIMIT: 'lots' })).toThrow(/INGEST_MEMORY_LIMIT="lots": must be a size/);
  });

  it('has defaults for an empty environment, an empty value meaning the default', () => {
    expect(loadIngestSettings({ DUCKDB_PATH: '', REPORT_MAX_REJECTS: '' })).toEqual({
      SRC: undefined, DUCKDB_PATH: 'data/tributary.duckdb', PUBLICATION_STORE: undefined, REGIONS_FILE: undefined, REPORT: undefined,
      REPORT_MAX_REJECTS: 1000, DOI_PATTERN: undefined, REJECTS_DIR: undefined, REJECTS_WARNINGS: false, INGEST_MEMORY_LIMIT: undefined, INGEST_TRACE: false, INGEST_LOCK_TIMEOUT_MS: 600_000,
      PUBLICATION_RETENTION_MS: 3_600_000, METRICS_TEXTFILE: undefined, TRENDS_END_YEAR: undefined,
      TRENDS_PERIODS: [{ kind: 'years', years: 5 }, { kind: 'years', years: 10 }, { kind: 'years', years: 15 }],
    });
  });

  it('reads TRENDS_PERIODS as numbers of years and ranges, in one order whatever the spelling, and refuses anything else', () => {
    const text = (v: string) => periodsText(loadIngestSettings({ TRENDS_PERIODS: v }).TRENDS_PERIODS);
    expect(text('15, 5,10')).toBe('5,10,15');
    expect(text('2015-2024,3,2010-2019,3')).toBe('3,2010-2019,2015-2024');
    expect(loadIngestSettings({ TRENDS_END_YEAR: '2024' }).TRENDS_END_YEAR).toBe(2024);
    for (const bad of ['5,,10', '0', 'five', '2024-2015', '100']) expect(() => loadIngestSettings({ TRENDS_PERIODS: bad }), bad).toThrow(/TRENDS_PERIODS=/);
    for (const bad of ['2024.5', 'last', '-1']) expect(() => loadIngestSettings({ TRENDS_END_YEAR: bad }), bad).toThrow(/TRENDS_END_YEAR=.*must be a year such as 2024/);
  });

  it('reads DOI_PATTERN as a regular expression the whole DOI must match, and refuses one that is not', () => {
    const pattern = loadIngestSettings({ DOI_PATTERN: '10\\.(25976|81029)/.+' }).DOI_PATTERN;
    expect(pattern?.test('10.25976/ab12-cd34')).toBe(true);
    expect(pattern?.test('10.5066/P9ABCDEF')).toBe(false);
    expect(pattern?.test('x10.25976/ab12-cd34')).toBe(false);
    expect(() => loadIngestSettings({ DOI_PATTERN: '10.(' })).toThrow(/DOI_PATTERN="10.\(": must be a JavaScript regular expression/);
  });

  it('names every bad variable in one message', () => {
    expect(() => loadIngestSettings({ REPORT_MAX_REJECTS: '-3', INGEST_MEMORY_LIMIT: 'lots', INGEST_TRACE: 'yes' })).toThrow(
      /^invalid settings:\n {2}REPORT_MAX_REJECTS="-3": must be a whole number\n {2}INGEST_MEMORY_LIMIT="lots": .*\n {2}INGEST_TRACE="yes": /,
    );
  });
});
