/**
 * Planning on its own: a parsed query and a resource → the typed plan, or a PlanError naming the code, the
 * parameter and the offset. Table-driven, on the real catalogue.
 */
import { describe, expect, it } from 'vitest';
import { getResource } from '../../../schemas/index.js';
import { ODataError } from '../odata/index.js';
import { DEFAULT_TOP, toUtcTimestamp, type Cond } from './plan.js';
import { PlanError, type PlanErrorCode } from './plan-error.js';
import { page, plan } from '../testing/plans.js';

function planError(resource: string, qs: string): PlanError {
  try {
    plan(resource, qs);
  } catch (err) {
    if (err instanceof PlanError) return err;
    throw err;
  }
  throw new Error(`planned without error: ${qs}`);
}

describe('planQuery: plans', () => {
  it('a page by default: every selectable field in catalogue order, the default $top, JSON, from the start', () => {
    const p = plan('Records', '');
    expect(p).toMatchObject({ kind: 'page', selected: false, where: undefined, top: DEFAULT_TOP, after: undefined, format: 'json' });
    if (p.kind !== 'page') throw new Error('not a page');
    expect(p.fields.map((f) => f.name)).toEqual(getResource('Records')!.fields.filter((f) => f.selectable).map((f) => f.name));
  });

  it('$select keeps catalogue order whatever order it was asked in', () => {
    const p = plan('Observations', '$select=ResultValue,Id,CharacteristicName');
    expect(p.kind === 'page' && p.fields.map((f) => f.name)).toEqual(['Id', 'CharacteristicName', 'ResultValue']);
    expect(p.kind === 'page' && p.selected).toBe(true);
  });

  it('$skiptoken is the key: a bigint on integer keys, lower-case UUID text on Metadata', () => {
    expect(plan('Records', '$skiptoken=Id:1234')).toMatchObject({ after: 1234n });
    expect(plan('Metadata', '$skiptoken=Id:0B8E9C56-8A2F-4A8A-9A55-1F2D3C4B5A69')).toMatchObject({ after: '0b8e9c56-8a2f-4a8a-9a55-1f2d3c4b5a69' });
  });

  it('$count=true is a count plan with the same filter', () => {
    const p = plan('Locations', "$filter=CharacteristicName eq 'pH'&$count=true&$top=5");
    expect(p.kind).toBe('count');
    expect((p.where as Extract<Cond, { kind: 'compare' }>).value).toEqual({ sqlType: 'VARCHAR', value: 'pH' });
  });

  it('$apply groups by the groupable dimensions, its filter and $filter joined by and; the cursor counts groups', () => {
    const p = plan('Records', "$apply=filter(ActivityStartYear ge 2015)/groupby((CharacteristicName,RegionId),aggregate($count as N))&$filter=CharacteristicName eq 'pH'&$skiptoken=Id:20");
    expect(p).toMatchObject({ kind: 'apply', aggregates: [{ kind: 'count', alias: 'N' }], after: 20n, top: DEFAULT_TOP });
    if (p.kind !== 'apply') throw new Error('not an apply');
    expect(p.groupBy.map((d) => d.name)).toEqual(['CharacteristicName', 'RegionId']);
    expect(p.where?.kind).toBe('and');
  });

  it.each([
    ['ActivityStartYear eq 2020', { sqlType: 'BIGINT', value: 2020n }],
    // Quoted numbers count as the user means them.
    ["ActivityStartYear eq '2020'", { sqlType: 'BIGINT', value: 2020n }],
    ["Latitude gt '49.5'", { sqlType: 'DOUBLE', value: 49.5 }],
    ["LocationId eq '42'", { sqlType: 'BIGINT', value: 42n }],
  ] as const)('coerces %s to its field type', (filter, value) => {
    const resource = filter.startsWith('Latitude') ? 'Locations' : 'Records';
    expect((plan(resource, `$filter=${filter}`).where as Extract<Cond, { kind: 'compare' }>).value).toEqual(value);
  });

  it('timestamps become UTC with milliseconds, whatever offset they were written in', () => {
    const where = plan('Metadata', '$filter=CreateTimestamp gt 2020-03-23T10:00:00+02:00').where as Extract<Cond, { kind: 'compare' }>;
    expect(where.value).toEqual({ sqlType: 'TIMESTAMP', value: '2020-03-23 08:00:00.000' });
    expect(toUtcTimestamp('2020-03-23')).toBe('2020-03-23 00:00:00.000');
    // Date.parse would roll these over into March.
    expect(toUtcTimestamp('2021-02-30')).toBeUndefined();
    expect(toUtcTimestamp('2021-02-30T10:00')).toBeUndefined();
  });

  it('eq null and ne null are null tests, not comparisons', () => {
    expect(plan('Metadata', '$filter=CreateTimestamp eq null').where).toMatchObject({ kind: 'null', negated: false });
    expect(plan('Metadata', '$filter=CreateTimestamp ne null').where).toMatchObject({ kind: 'null', negated: true });
  });
});

describe('planQuery: errors name the code, the parameter and where', () => {
  const cases: [resource: string, qs: string, code: PlanErrorCode, parameter: string, message: RegExp][] = [
    ['Records', '$select=Id,ResultValu', 'unknown_field', '$select', /'ResultValu' is not a field of Records.*did you mean 'ResultValue'.*Valid fields: Id,/],
    ['Records', "$filter=CharacteristicNme eq 'pH'", 'unknown_field', '$filter', /did you mean 'CharacteristicName'.*Filterable fields of Records:/],
    ['Records', '$filter=ResultComment gt 5', 'not_filterable', '$filter', /'ResultComment' cannot be used in \$filter on Records: /],
    ['Records', "$filter=ActivityStartYear eq 'twenty'", 'invalid_value', '$filter', /ActivityStartYear wants a whole number/],
    ['Records', '$filter=CharacteristicName eq 5', 'invalid_value', '$filter', /quote text values/],
    ['Records', "$filter=RegionId gt 'admin.2.ca'", 'invalid_value', '$filter', /RegionId is a membership test: use eq, ne or in/],
    ['Records', '$filter=RegionId eq null', 'invalid_value', '$filter', /every location's regions are known/],
    ['Records', '$filter=ActivityStartYear lt null', 'invalid_value', '$filter', /null only compares with eq or ne/],
    ['Metadata', "$filter=CreateTimestamp gt '2021-02-30'", 'invalid_value', '$filter', /wants a date or date-time/],
    ['Metadata', '$skiptoken=Id:5', 'invalid_skiptoken', '$skiptoken', /must look like Id:6f1c…\(a UUID\)/],
    ['Records', '$skiptoken=Id:0b8e9c56-8a2f-4a8a-9a55-1f2d3c4b5a69', 'invalid_skiptoken', '$skiptoken', /must look like Id:1234/],
    ['Locations', '$apply=groupby((CharacteristicName),aggregate($count as N))', 'unsupported_apply', '$apply', /offered on Observations, Records/],
    ['Records', '$apply=groupby((ResultValue),aggregate($count as N))', 'unsupported_apply', '$apply', /'ResultValue' is not one of them/],
    ['Records', '$apply=aggregate(CharacteristicName with max as M)', 'unsupported_apply', '$apply', /Records aggregates ResultValue, ResultDetectionQuantitationLimitMeasure, ActivityDepthHeightMeasure, ActivityStartDate \(and \$count\); countdistinct also counts LocationId, DOI, CharacteristicName.*; 'CharacteristicName' with max is not one of them/],
    ['Records', '$apply=aggregate(ActivityStartDate with sum as S)', 'unsupported_apply', '$apply', /sum does not apply to ActivityStartDate \(a date\); use one of min, max, countdistinct, Tributary.countnull/],
    // Issue 56 item 1: a key, a measure, a coordinate or free text is never a group; the limits are named.
    ['GuidelineComparisons', '$apply=groupby((ObservationId),aggregate($count as N))', 'unsupported_apply', '$apply', /groups by its dimensions, DOI, LocationId, GuidelineId.*'ObservationId' is not one of them \(a key, a measure, a coordinate or free text/],
    ['GuidelineComparisons', '$apply=groupby((Inputs),aggregate($count as N))', 'unsupported_apply', '$apply', /'Inputs' is not one of them/],
    ['GuidelineComparisons', '$apply=groupby((Latitude),aggregate($count as N))', 'unsupported_apply', '$apply', /'Latitude' is not one of them/],
    ['WaterQualityIndex', '$apply=groupby((WQI),aggregate($count as N))', 'unsupported_apply', '$apply', /'WQI' is not one of them/],
    [
      'Records', '$apply=groupby((CharacteristicName,ResultUnit,DOI,LocationId,RegionId,ActivityStartYear,ActivityMediaName,ActivityGroupType,MonitoringLocationType),aggregate($count as N))',
      'apply_too_large', '$apply', /groupby lists 9 fields; one request groups by at most 8 \(maxGroupingFields\)/,
    ],
    [
      'Records', '$apply=groupby((ResultUnit),aggregate(ResultValue with Tributary.median as A,ResultValue with Tributary.p10 as B,ResultValue with Tributary.p90 as C,LocationId with countdistinct as D,ResultValue with countdistinct as E))',
      'apply_too_large', '$apply', /5 holistic aggregates \(medians, percentiles, countdistinct: A, B, C, D, E\); one request holds at most 4 \(maxHolisticAggregates\)/,
    ],
    ['Records', '$apply=aggregate(RegionId with countdistinct as R)', 'unsupported_apply', '$apply', /countdistinct also counts LocationId, DOI/],
    ['Guidelines', '$apply=aggregate(Expression with countdistinct as E)', 'unsupported_apply', '$apply', /Guidelines aggregates only \$count; countdistinct also counts CharacteristicName, Publisher; 'Expression' with countdistinct/],
  ];
  it.each(cases)('%s ? %s → %s', (resource, qs, code, parameter, message) => {
    const err = planError(resource, qs);
    expect({ code: err.code, parameter: err.parameter }).toEqual({ code, parameter });
    expect(err.message).toMatch(message);
  });

  it('the offset points at the offending name inside the parameter', () => {
    expect(planError('Records', '$select=Id,Nope').offset).toBe(3);
    expect(planError('Records', "$filter=CharacteristicName eq 'pH' and Nope eq 1").offset).toBe(31);
  });

  it('unknown identifiers are refused by the planner, never quoted into SQL', () => {
    for (const name of ['Foo', 'id', 'observations', 'x"y', 'Id', 'ResultComment']) {
      expect(() => page('Observations', `$filter=${name} eq 1`)).toThrow(name === 'x"y' ? ODataError : PlanError);
    }
  });
});
