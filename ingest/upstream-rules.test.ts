import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIngest } from './pipeline.js';
import type { DatasetReport } from './report.js';
import { query, tempDir } from './test-support.js';

/** A groundwater dataset in DataStream schema 3.0.0, with the template's new columns, one row per case. */
const header = [
  'DatasetName', 'MonitoringLocationID', 'MonitoringLocationName', 'MonitoringLocationLatitude', 'MonitoringLocationLongitude',
  'MonitoringLocationHorizontalCoordinateReferenceSystem', 'MonitoringLocationType', 'WellID', 'WellIDContext', 'WellUseType',
  'WellDepthMeasure', 'WellDepthUnit', 'EventID', 'ActivityType', 'ActivityMediaName', 'ActivityStartDate', 'ActivityStartTime',
  'SampleCondition', 'CharacteristicName', 'ResultValue', 'ResultUnit', 'ResultValueType', 'ResultStatusID', 'LaboratoryName',
  'ResultAnalyticalMethodName', 'LaboratorySampleID',
];
const well = ['Delta Aquifer Survey', 'W-1', 'Well one', '50.1', '-110.2', 'OTHER', 'Well', '12345', 'AB', 'Monitoring - Ambient', '-35', 'm', 'E-1'];
const rows: Record<string, string[]> = {
  // line 2: a valid groundwater sample (Groundwater, Well, SampleCondition and OTHER are new in 3.0.0)
  valid: [...well, 'Sample-Routine', 'Groundwater', '2024-05-01', '10:00', 'Static, before pumping or purging', 'pH', '7.1', 'None', 'Actual', 'Validated', 'Delta Lab', 'Undefined', 'DL-1'],
  // line 3: a lab sample without a laboratory (error rule ActivityType-ResultAnalyticalMethod)
  noLab: [...well, 'Sample-Routine', 'Groundwater', '2024-05-02', '10:00', 'Static, before pumping or purging', 'pH', '7.2', 'None', 'Actual', 'Validated', '', '', ''],
  // line 4: groundwater fields on surface water (error rule GroundwaterFields-ActivityMediaName-Groundwater)
  surface: [...well, 'Field Msr/Obs', 'Surface Water', '2024-05-03', '10:00', '', 'pH', '7.3', 'None', 'Actual', 'Validated', '', '', ''],
  // line 5: valid, but a pH of 15 (warning rule ResultValue-pH-Range) and a deprecated status (ResultStatusID-Deprecated)
  warned: [...well, 'Field Msr/Obs', 'Groundwater', '2024-05-04', '10:00', 'Flowing', 'pH', '15', 'None', 'Actual', 'Accepted', '', '', ''],
  // line 6: a lab sample id with a tab (error rule column-LaboratorySampleID: upstream's definition of the column)
  tab: [...well, 'Sample-Routine', 'Groundwater', '2024-05-05', '10:00', 'Flowing', 'pH', '7.4', 'None', 'Actual', 'Validated', 'Delta Lab', 'Undefined', 'DL\t5'],
};

async function ingestWell(): Promise<{ report: DatasetReport; db: string }> {
  const dir = await tempDir();
  await mkdir(join(dir, 'src', 'delta'), { recursive: true });
  await writeFile(join(dir, 'src', 'delta', 'metadata.json'), JSON.stringify({ DOI: '10.25976/delt-dd44', DatasetName: 'Delta Aquifer Survey' }));
  const field = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  const csv = [header, ...Object.values(rows)].map((r) => r.map(field).join(',')).join('\n');
  await writeFile(join(dir, 'src', 'delta', 'data.csv'), `${csv}\n`);
  const db = join(dir, 'tributary.duckdb');
  const result = await runIngest({ src: join(dir, 'src'), duckdbPath: db });
  expect(result.published).toBe(true);
  return { report: result.datasets[0] as DatasetReport, db };
}

describe('DataStream schema 3.0.0 upload', () => {
  it('loads groundwater rows, rejects rows breaking upstream error rules by rule name, counts warnings', async () => {
    const { report, db } = await ingestWell();
    expect([report.rowsRead, report.rowsLoaded, report.rowsRejected]).toEqual([5, 2, 3]);
    expect(report.rejects.map((r) => [r.file, r.line, r.column, r.reason.split(':')[0]])).toEqual([
      ['delta/data.csv', 3, 'LaboratoryName', 'upstream rule ActivityType-ResultAnalyticalMethod'],
      ['delta/data.csv', 4, 'ActivityMediaName', 'upstream rule GroundwaterFields-ActivityMediaName-Groundwater'],
      ['delta/data.csv', 6, 'LaboratorySampleID', 'upstream rule column-LaboratorySampleID'],
    ]);
    const counted = report.warnings.filter((w) => w.rule !== undefined).map((w) => [w.file, w.rule, w.rows]);
    expect(counted).toEqual([
      // pH measured in a lab sample (line 2) is worth a look, upstream says, not a rejection.
      ['delta/data.csv', 'CharacteristicName-pH-ActivityType-Sample', 1],
      ['delta/data.csv', 'ResultStatusID-Deprecated', 1],
      ['delta/data.csv', 'ResultValue-pH-Range', 1],
    ]);
    const unserved = report.warnings.filter((w) => w.rule === undefined);
    expect(unserved).toHaveLength(1);
    expect(unserved[0]?.message).toMatch(/WellID, WellIDContext, WellUseType, WellDepthMeasure, WellDepthUnit, EventID, SampleCondition are validated .* not stored/);
    const stored = await query(db, `SELECT "ActivityMediaName" AS m, "ResultValue" AS v, "ActivityGroupType" AS g FROM observations ORDER BY "Id"`);
    expect(stored).toEqual([
      { m: 'Groundwater', v: 7.1, g: 'Lab Sample' },
      { m: 'Groundwater', v: 15, g: 'Field Measure' },
    ]);
  });
});
