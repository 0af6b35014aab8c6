import { describe, expect, it } from 'vitest';
import { uploadColumns } from './upload-columns.js';
import { checkObservationRow, isCalendarDate, observationRowSchema, requiredUploadColumns } from './observation-row.js';

const valid = {
  DatasetName: 'Lac Témiscouata Monitoring',
  MonitoringLocationID: 'LT-01',
  MonitoringLocationName: 'Lac Témiscouata, north basin',
  MonitoringLocationLatitude: '47.68',
  MonitoringLocationLongitude: '-68.87',
  MonitoringLocationHorizontalCoordinateReferenceSystem: 'NAD83',
  MonitoringLocationType: 'Lake/Pond',
  ActivityType: 'Field Msr/Obs',
  ActivityMediaName: 'Surface Water',
  ActivityStartDate: '2020-02-29',
  ActivityStartTime: '09:30',
  ActivityStartTimeZone: '-05:00',
  CharacteristicName: 'Temperature, water',
  ResultValue: '4.25',
  ResultUnit: 'deg C',
  ResultValueType: 'Actual',
};

function issuesOf(patch: Record<string, string | null | undefined>): string[] {
  const result = checkObservationRow({ ...valid, ...patch });
  return result.ok ? [] : result.issues.map((i) => `${i.column}: ${i.message}`);
}

describe('observationRowSchema', () => {
  it('accepts a valid row and normalises it', () => {
    const result = observationRowSchema.parse({ ...valid, Unknown: 'ignored' });
    expect(result.MonitoringLocationLatitude).toBe(47.68);
    expect(result.ActivityStartTime).toBe('09:30:00');
    expect(result.ResultComment).toBeNull();
    expect(Object.keys(result)).toEqual(uploadColumns.map((f) => f.name));
  });

  it('requires exactly the columns upstream requires', () => {
    expect(requiredUploadColumns).toEqual(uploadColumns.filter((f) => !f.nullable).map((f) => f.name));
    expect([...requiredUploadColumns].sort()).toEqual(
      [
        'DatasetName', 'MonitoringLocationID', 'MonitoringLocationName', 'MonitoringLocationType', 'MonitoringLocationLatitude',
        'MonitoringLocationLongitude', 'MonitoringLocationHorizontalCoordinateReferenceSystem', 'ActivityType', 'ActivityMediaName',
        'ActivityStartDate', 'CharacteristicName', 'ResultValueType',
      ].sort(),
    );
    for (const column of requiredUploadColumns) {
      expect(issuesOf({ [column]: '' })).toEqual([`${column}: ${column} is required`]);
      expect(issuesOf({ [column]: undefined })).toEqual([`${column}: ${column} is required`]);
    }
  });

  it.each([
    [{ ActivityStartDate: '2021-02-30' }, "ActivityStartDate: ActivityStartDate '2021-02-30' is not a calendar date (YYYY-MM-DD)"],
    [{ ActivityStartDate: '2021-2-3' }, "ActivityStartDate: ActivityStartDate '2021-2-3' is not a calendar date (YYYY-MM-DD)"],
    [{ ActivityEndDate: '1900-02-29' }, "ActivityEndDate: ActivityEndDate '1900-02-29' is not a calendar date (YYYY-MM-DD)"],
    [{ ActivityStartTime: '24:00' }, "ActivityStartTime: ActivityStartTime '24:00' is not a time (HH:MM, HH:MM:SS or HH:MM:SS.sss, 00:00 to 23:59:59.999)"],
    [{ ActivityStartTime: '9:30' }, "ActivityStartTime: ActivityStartTime '9:30' is not a time (HH:MM, HH:MM:SS or HH:MM:SS.sss, 00:00 to 23:59:59.999)"],
    [{ ActivityStartTimeZone: 'EST' }, "ActivityStartTimeZone: ActivityStartTimeZone 'EST' is not a UTC offset (Z or ±HH:MM)"],
    [{ MonitoringLocationLatitude: '90.5' }, "MonitoringLocationLatitude: MonitoringLocationLatitude '90.5' is out of range (-90 to 90)"],
    [{ MonitoringLocationLongitude: '-180.01' }, "MonitoringLocationLongitude: MonitoringLocationLongitude '-180.01' is out of range (-180 to 180)"],
    [{ ResultValue: 'NaN' }, "ResultValue: ResultValue 'NaN' is not a finite number"],
    [{ ResultValue: 'Infinity' }, "ResultValue: ResultValue 'Infinity' is not a finite number"],
    [{ ResultValue: '1e999' }, "ResultValue: ResultValue '1e999' is not a finite number"],
    [{ ResultValue: ' 4' }, "ResultValue: ResultValue ' 4' is not a finite number"],
    [{ ResultValue: '0x10' }, "ResultValue: ResultValue '0x10' is not a finite number"],
    [{ ResultValue: '1,5' }, "ResultValue: ResultValue '1,5' is not a finite number"],
    [{ CharacteristicName: 'ph' }, "CharacteristicName: CharacteristicName 'ph' is not in the CharacteristicName vocabulary"],
    [{ ResultUnit: 'degC' }, "ResultUnit: ResultUnit 'degC' is not in the ResultUnit vocabulary"],
    [{ MonitoringLocationType: 'Lake' }, "MonitoringLocationType: MonitoringLocationType 'Lake' is not in the MonitoringLocationType vocabulary"],
    [{ ActivityType: 'Sample-Continuous Time Series' }, "ActivityType: ActivityType 'Sample-Continuous Time Series' is not in the ActivityType vocabulary"],
  ])('rejects %o', (patch, message) => {
    expect(issuesOf(patch)).toEqual([message]);
  });

  it.each([
    [{ ResultValue: '-0.5e-3' }],
    [{ ResultValue: '.5' }],
    [{ ResultValue: '+7.' }],
    [{ ActivityStartDate: '2024-02-29', ActivityStartTime: '23:59:59', ActivityStartTimeZone: 'Z' }],
    [{ ResultValue: '', ResultDetectionCondition: 'Not Detected', ResultDetectionQuantitationLimitMeasure: '0.002', ResultDetectionQuantitationLimitUnit: 'mg/L', ResultDetectionQuantitationLimitType: 'Method Detection Level' }],
    [{ MonitoringLocationLatitude: '-90', MonitoringLocationLongitude: '180' }],
    [{ ResultComment: 'Ice, "thin"\nsampled, at edge' }],
  ])('accepts %o', (patch) => {
    expect(issuesOf(patch)).toEqual([]);
  });

  it('reports every problem of a row', () => {
    expect(issuesOf({ ActivityStartDate: '2021-13-01', ResultValue: null, MonitoringLocationName: '' })).toEqual([
      'MonitoringLocationName: MonitoringLocationName is required',
      "ActivityStartDate: ActivityStartDate '2021-13-01' is not a calendar date (YYYY-MM-DD)",
    ]);
  });

  it('leaves rules across columns to upstream (ingest/rule-sql.ts): a row with neither value nor condition passes its columns', () => {
    expect(issuesOf({ ResultValue: '' })).toEqual([]);
  });

  it.each([['10:30:00.5'], ['10:30:00.125'], ['00:00']])('accepts upstream time-strict %s', (time) => {
    expect(issuesOf({ ActivityStartTime: time })).toEqual([]);
  });

  it('rejects non-text values with the column named', () => {
    const result = observationRowSchema.safeParse({ ...valid, ResultValue: 4 });
    expect(result.error?.issues.map((i) => i.message)).toEqual(['ResultValue must be text or empty']);
  });

  it.each([
    [2024, 2, 29, true], [2023, 2, 29, false], [2000, 2, 29, true], [1900, 2, 29, false], [2021, 4, 31, false], [2021, 12, 31, true], [2021, 0, 1, false],
  ])('isCalendarDate(%i, %i, %i) = %s', (y, m, d, expected) => {
    expect(isCalendarDate(y, m, d)).toBe(expected);
  });
});
