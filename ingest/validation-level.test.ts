import { DuckDBInstance } from '@duckdb/node-api';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIngest } from './pipeline.js';
import { query, tempDir } from './test-support.js';

/**
 * The same generated rows at both validation levels: `upstream` rejects every fault; `storable` rejects only what
 * the API cannot store (an impossible date, a latitude off the globe, an empty CharacteristicName) and counts the
 * rest per check, each row in the rejects file as a warning.
 */

const header = [
  'DatasetName', 'MonitoringLocationID', 'MonitoringLocationName', 'MonitoringLocationLatitude', 'MonitoringLocationLongitude',
  'MonitoringLocationHorizontalCoordinateReferenceSystem', 'MonitoringLocationType', 'ActivityType', 'ActivityMediaName', 'ActivityStartDate',
  'CharacteristicName', 'ResultValue', 'ResultUnit', 'ResultValueType', 'ResultDetectionCondition',
];
const good = ['Gen', 'L1', 'Loc 1', '44.97', '-93.26', 'WGS84', 'River/Stream', 'Field Msr/Obs', 'Surface Water', '2021-06-01', 'Specific conductance', '410', 'uS/cm', 'Actual', ''];
const at = (c: string) => header.indexOf(c);

/** Faults by kind: how many rows of each, and how each row is made. */
const faults = {
  unit: { rows: 7, apply: (r: string[]) => void (r[at('ResultUnit')] = 'us/cm') },
  valueType: { rows: 5, apply: (r: string[]) => void (r[at('ResultValueType')] = '') },
  rule: { rows: 3, apply: (r: string[]) => void (r[at('ResultDetectionCondition')] = 'Not Detected') },
  media: { rows: 2, apply: (r: string[]) => void (r[at('ActivityMediaName')] = 'Water') },
  date: { rows: 4, apply: (r: string[]) => void (r[at('ActivityStartDate')] = '2021-02-30') },
  latitude: { rows: 2, apply: (r: string[]) => void (r[at('MonitoringLocationLatitude')] = '95') },
  name: { rows: 1, apply: (r: string[]) => void (r[at('CharacteristicName')] = '') },
};
const storableRejects = faults.date.rows + faults.latitude.rows + faults.name.rows;
const allFaults = Object.values(faults).reduce((n, f) => n + f.rows, 0);

async function source(dir: string, level?: string): Promise<string> {
  const lines = [header.join(',')];
  for (let i = 0; i < 40; i++) lines.push(good.join(','));
  for (const f of Object.values(faults)) {
    for (let i = 0; i < f.rows; i++) {
      const row = [...good];
      f.apply(row);
      lines.push(row.join(','));
    }
  }
  const folder = join(dir, 'src', 'gen');
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'metadata.json'), JSON.stringify({ DOI: '10.5066/LEVEL', DatasetName: 'Generated', ...(level ? { ValidationLevel: level } : {}) }));
  await writeFile(join(folder, 'data.csv'), `${lines.join('\n')}\n`);
  return join(dir, 'src');
}

async function csvRows(path: string): Promise<Record<string, string>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    return (await conn.runAndReadAll(`SELECT * FROM read_csv('${path}', header = true, all_varchar = true)`)).getRowObjectsJson() as Record<string, string>[];
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('validation levels', () => {
  it('upstream (the default) rejects every fault', async () => {
    const dir = await tempDir();
    const duckdbPath = join(dir, 'u.duckdb');
    const [d] = (await runIngest({ src: await source(dir), duckdbPath })).datasets;
    expect(d).toMatchObject({ status: 'loaded', rowsLoaded: 40, rowsRejected: allFaults });
    expect(await query(duckdbPath, 'SELECT "ValidationLevel" FROM datasets')).toEqual([{ ValidationLevel: 'upstream' }]);
    // The location is in Minneapolis: its memberships are the United States' and Minnesota's.
    expect(await query(duckdbPath, 'SELECT "RegionId" FROM location_regions ORDER BY 1')).toEqual([{ RegionId: 'admin.2.us' }, { RegionId: 'admin.4.us.mn' }]);
  });

  it('storable rejects only what the API cannot store, counts the rest per check, and writes each as a warning line', async () => {
    const dir = await tempDir();
    const duckdbPath = join(dir, 's.duckdb');
    const report = await runIngest({ src: await source(dir, 'storable'), duckdbPath });
    const [d] = report.datasets;
    expect(d).toMatchObject({ status: 'loaded', rowsLoaded: 40 + allFaults - storableRejects, rowsRejected: storableRejects });
    expect(new Set(d!.rejects.map((r) => r.column))).toEqual(new Set(['ActivityStartDate', 'MonitoringLocationLatitude', 'CharacteristicName']));
    const counted = Object.fromEntries(d!.warnings.filter((w) => w.rule).map((w) => [w.rule, w.rows]));
    expect(counted).toMatchObject({
      'value-ResultUnit': faults.unit.rows,
      'required-ResultValueType': faults.valueType.rows,
      'ResultDetectionCondition-ResultValue': faults.rule.rows,
      'value-ActivityMediaName': faults.media.rows,
    });
    expect(d!.warnings.find((w) => w.rule === 'value-ResultUnit')?.message).toBe(`${faults.unit.rows} rows fail upstream check (a warning at ValidationLevel storable) value-ResultUnit (ResultUnit): ResultUnit is not in the ResultUnit vocabulary`);
    const lines = await csvRows(d!.rejectsFile!);
    expect(lines.filter((l) => l.severity === 'error')).toHaveLength(storableRejects);
    const warned = lines.filter((l) => l.severity === 'warning');
    expect(warned).toHaveLength(faults.unit.rows + faults.valueType.rows + faults.rule.rows + faults.media.rows);
    expect(warned.filter((l) => (l.warnings ?? '').includes("ResultUnit 'us/cm' is not in the ResultUnit vocabulary"))).toHaveLength(faults.unit.rows);
    expect(await query(duckdbPath, 'SELECT "ValidationLevel" FROM datasets')).toEqual([{ ValidationLevel: 'storable' }]);
    expect(await query(duckdbPath, `SELECT count(*)::INTEGER AS n FROM observations WHERE "ResultUnit" = 'us/cm'`)).toEqual([{ n: faults.unit.rows }]);
  });

  it('refuses a level it does not know, naming the ones it does', async () => {
    const dir = await tempDir();
    const [d] = (await runIngest({ src: await source(dir, 'lenient'), duckdbPath: join(dir, 'x.duckdb') })).datasets;
    expect(d?.error).toContain("ValidationLevel 'lenient' is not one of upstream, storable");
  });
});
