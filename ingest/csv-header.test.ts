import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { mapColumns } from './column-map.js';
import { parseFirstRecord, readCsvHeader } from './csv-header.js';
import { tempDir } from './test-support.js';

describe('parseFirstRecord', () => {
  it.each([
    ['a,b,c\n1,2,3', ['a', 'b', 'c']],
    ['\uFEFFa,b\r\n', ['a', 'b']],
    ['"a,1","b ""q""",c\n', ['a,1', 'b "q"', 'c']],
    ['"multi\nline",b\n', ['multi\nline', 'b']],
    [',\n', ['', '']],
  ])('%j', (text, expected) => expect(parseFirstRecord(text)).toEqual(expected));
  it('waits for the end of the record', () => expect(parseFirstRecord('a,"b\n')).toBeNull());
});

describe('readCsvHeader', () => {
  it('reads plain and gzipped files alike', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.csv'), '\uFEFFDatasetName,CharacteristicName\nx,y\n');
    await writeFile(join(dir, 'a.csv.gz'), gzipSync('DatasetName,CharacteristicName\nx,y\n'));
    expect(await readCsvHeader(join(dir, 'a.csv'))).toEqual(['DatasetName', 'CharacteristicName']);
    expect(await readCsvHeader(join(dir, 'a.csv.gz'))).toEqual(['DatasetName', 'CharacteristicName']);
  });
  it('rejects an empty file', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'e.csv'), '');
    await expect(readCsvHeader(join(dir, 'e.csv'))).rejects.toThrow(/empty/);
  });
});

describe('mapColumns', () => {
  const required = ['DatasetName', 'MonitoringLocationID', 'MonitoringLocationName', 'MonitoringLocationLatitude', 'MonitoringLocationLongitude',
    'MonitoringLocationHorizontalCoordinateReferenceSystem', 'MonitoringLocationType', 'ActivityType', 'ActivityMediaName', 'ActivityStartDate', 'CharacteristicName',
    'ResultValueType'];
  it('maps any order, ignores unknown columns and leaves optional ones null', () => {
    const m = mapColumns(['Extra', ...[...required].reverse(), 'ResultValue']);
    expect(m.errors).toEqual([]);
    expect(m.unknown).toEqual([{ index: 0, name: 'Extra' }]);
    expect(m.indexOf.get('ResultValueType')).toBe(1);
    expect(m.indexOf.get('CharacteristicName')).toBe(2);
    expect(m.indexOf.get('ResultValue')).toBe(required.length + 1);
    expect(m.indexOf.get('ResultUnit')).toBeNull();
    // Schema 3.0.0's columns that the API does not serve are known, not unknown (validated, then not stored).
    expect(mapColumns([...required, 'EventID', 'WellID']).unknown).toEqual([]);
  });
  it('rejects missing required and duplicate columns by name', () => {
    const m = mapColumns([...required.filter((c) => c !== 'ActivityStartDate'), 'DatasetName']);
    expect(m.errors.map((e) => e.column)).toEqual(['DatasetName', 'ActivityStartDate']);
  });
  it('treats Id and DOI as unknown (DOI comes from metadata.json)', () => {
    expect(mapColumns([...required, 'Id', 'DOI']).unknown.map((u) => u.name)).toEqual(['Id', 'DOI']);
  });
});
