import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadColumns } from '../schemas/index.js';
import { checkObservationRow } from '../schemas/observation-row.js';
import { all, run } from './db.js';
import { readSources } from './read.js';
import { ident } from './sql.js';
import { copyFixtures, tempDir } from './test-support.js';
import { prepareValidation, stageDataset } from './validate.js';
import { ajvAccepts, checkableRules } from './rule-oracle.js';
import { failuresSql, rowChecks } from './row-checks.js';
import { columnsOkSql, rowOkSql } from './validate-sql.js';

const base: Record<string, string> = {
  DatasetName: 'D', MonitoringLocationID: 'L1', MonitoringLocationName: 'Loc', MonitoringLocationLatitude: '53.5',
  MonitoringLocationLongitude: '-113.5', MonitoringLocationHorizontalCoordinateReferenceSystem: 'WGS84',
  MonitoringLocationType: 'River/Stream', ActivityType: 'Field Msr/Obs', ActivityMediaName: 'Surface Water',
  ActivityStartDate: '2021-06-01', CharacteristicName: 'pH', ResultValue: '7', ResultUnit: 'None', ResultValueType: 'Actual',
};

/** One column overridden per case; '' means empty (the reader's NULL). */
const cases: [string, string][] = [
  ['ResultValue', '1.'], ['ResultValue', '.5'], ['ResultValue', '+1'], ['ResultValue', '-1e5'], ['ResultValue', '1E+05'],
  ['ResultValue', '00012'], ['ResultValue', '1e-400'], ['ResultValue', '1e400'], ['ResultValue', 'NaN'], ['ResultValue', 'inf'],
  ['ResultValue', '0x10'], ['ResultValue', '1,5'], ['ResultValue', ' 1'], ['ResultValue', '1 '], ['ResultValue', '.'], ['ResultValue', '-'],
  ['ResultValue', ''], ['MonitoringLocationLatitude', '90'], ['MonitoringLocationLatitude', '-90.0000001'], ['MonitoringLocationLatitude', '90.00000000000000001'],
  ['MonitoringLocationLongitude', '180'], ['MonitoringLocationLongitude', '-180.1'], ['MonitoringLocationLatitude', ''],
  ['ActivityStartDate', '2000-02-29'], ['ActivityStartDate', '1900-02-29'], ['ActivityStartDate', '2021-02-30'], ['ActivityStartDate', '0000-02-29'],
  ['ActivityStartDate', '2021-13-01'], ['ActivityStartDate', '2021-00-10'], ['ActivityStartDate', '2021-1-01'], ['ActivityStartDate', '20210101'],
  ['ActivityStartDate', '2021-06-01T00:00'], ['ActivityStartDate', '9999-12-31'], ['ActivityEndDate', '2021-04-31'], ['AnalysisStartDate', '2021-04-30'],
  ['ActivityStartTime', '00:00'], ['ActivityStartTime', '23:59:59'], ['ActivityStartTime', '24:00'], ['ActivityStartTime', '23:60'],
  ['ActivityStartTime', '12:00:60'], ['ActivityStartTime', '7:00'], ['ActivityStartTime', '12:00:00.5'], ['AnalysisStartTime', '12:30'],
  ['ActivityStartTimeZone', 'Z'], ['ActivityStartTimeZone', '+24:00'], ['ActivityStartTimeZone', '-07:00'], ['ActivityStartTimeZone', '+25:00'],
  ['ActivityStartTimeZone', '-7:00'], ['ActivityStartTimeZone', 'UTC'], ['ActivityEndTimeZone', '+05:30'],
  ['ActivityMediaName', 'surface water'], ['ActivityMediaName', 'Surface Water '], ['ActivityMediaName', 'groundwater'],
  ['CharacteristicName', 'Temperature, water'], ['CharacteristicName', 'PH'], ['CharacteristicName', ''],
  ['ResultUnit', 'mg/L'], ['ResultUnit', 'mg/l'], ['ActivityType', 'Sample-Other'], ['ActivityType', 'Field Measure'],
  ['MonitoringLocationHorizontalCoordinateReferenceSystem', 'NAD83'], ['MonitoringLocationHorizontalCoordinateReferenceSystem', 'EPSG:4326'],
  ['ResultDetectionCondition', 'Not Detected'], ['ResultValueType', ''], ['ResultComment', 'anything, "quoted"\nmulti'],
  ['MonitoringLocationName', ''], ['DatasetName', ' '], ['ActivityDepthHeightMeasure', '-1.5'], ['ActivityDepthHeightMeasure', 'deep'],
];

let instance: DuckDBInstance;
let conn: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
  await prepareValidation(conn);
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

describe('the SQL verdicts agree with the references: observationRowSchema per column, ajv per upstream rule', () => {
  it('on every edge case, column by column', async () => {
    const rows = cases.map(([column, value]) => ({ ...base, [column]: value }));
    rows.push({ ...base, ResultValue: '', ResultDetectionCondition: 'Not Detected' }, { ...base, ResultValue: '', ResultDetectionCondition: '' });
    const cols = uploadColumns.map((f) => ident(f.name));
    const width = uploadColumns.length;
    const values = rows.map((_, i) => `(${i}, ${uploadColumns.map((_f, j) => `$${i * width + j + 1}::VARCHAR`).join(', ')})`);
    const params = rows.flatMap((r) => uploadColumns.map((f) => (r[f.name] ? r[f.name] : null) ?? null));
    await run(conn, `CREATE OR REPLACE TEMP TABLE t AS SELECT * FROM (VALUES ${values.join(', ')}) v(i, ${cols.join(', ')})`, params);
    const sql = await all(conn, `SELECT i, (${columnsOkSql()}) AS ok FROM t ORDER BY i`);
    const verdicts = sql.map((r) => ({ i: r.i, ok: r.ok }));
    const reference = rows.map((r, i) => ({ i, ok: checkObservationRow(r).ok }));
    const disagreements = reference.filter((ref, i) => verdicts[i]?.ok !== ref.ok).map((ref) => ({ row: rows[ref.i], zod: ref.ok }));
    expect(disagreements).toEqual([]);
    // The table exercises both verdicts.
    expect(new Set(reference.map((r) => r.ok))).toEqual(new Set([true, false]));
    // The rejects file's checks one by one (row-checks.ts) fail exactly the rows the one verdict rejects, and their
    // messages name each column the reference names.
    const errors = rowChecks.filter((c) => c.kind !== 'quality');
    const split = await all(conn, `SELECT i, (${rowOkSql()}) AS ok, ${failuresSql(errors)} AS why FROM t ORDER BY i`);
    expect(split.filter((r) => r.ok === (r.why !== null)).map((r) => rows[Number(r.i)])).toEqual([]);
    for (const [i, r] of rows.entries()) {
      const verdict = checkObservationRow(r);
      for (const issue of verdict.ok ? [] : verdict.issues) expect(String(split[i]?.why)).toContain(issue.message);
    }
  });

  const errorRulesOf = checkableRules('error');
  it('on every staged fixture row, good and bad', async () => {
    const src = await copyFixtures(await tempDir());
    const { datasets } = await readSources(src);
    let compared = 0;
    for (const [n, ds] of datasets.entries()) {
      const staged = await stageDataset(conn, ds, `fx_${n}`, { maxRejects: 100 });
      const rows = await all(conn, `SELECT * FROM ${staged.table}`);
      for (const staged of rows) {
        const { ok, file_idx: _f, extra_nl: _e, warn: _w, ...values } = staged;
        const row = values as Record<string, string | null>;
        const reference = checkObservationRow(row).ok && errorRulesOf.every((rule) => ajvAccepts(rule, row));
        expect({ file: ds.files[Number(_f)]?.name, row, ok }).toEqual({ file: ds.files[Number(_f)]?.name, row, ok: reference });
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(20);
  });
});
