/**
 * items-query.ts: OGC parameters plan exactly as the equivalent `$filter` does (one planner), and the values that
 * cannot be read are refused naming their parameter.
 */
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../odata/index.js';
import { planQuery, type PagePlan } from '../query/plan.js';
import { ApiError } from '../errors.js';
import { featureCollection } from './feature-collections.js';
import { datetimeExpr, ITEMS_LIMIT, itemsPlan, parseBbox } from './items-query.js';

const locations = featureCollection('locations')!;
const observations = featureCollection('observations')!;

function odataWhere(resource: PagePlan['resource'], filter: string) {
  const plan = planQuery(parseQuery(`$filter=${encodeURIComponent(filter)}`), resource);
  return plan.where;
}

describe('itemsPlan: the same plan as $filter', () => {
  it.each([
    ['bbox=-80.5,43.2,-79.1,44', 'Latitude ge 43.2 and Latitude le 44 and (Longitude ge -80.5 and Longitude le -79.1)'],
    ['bbox=170,-50,-170,-30', 'Latitude ge -50 and Latitude le -30 and (Longitude ge 170 or Longitude le -170)'],
    ['CharacteristicName=pH', "CharacteristicName eq 'pH'"],
    ['CharacteristicName=pH&CharacteristicName=Temperature', "CharacteristicName in ('pH','Temperature')"],
    ['datetime=2020-06-01/2020-09-01&ActivityStartYear=2020', 'ActivityStartDate ge 2020-06-01 and ActivityStartDate le 2020-09-01 and ActivityStartYear eq 2020'],
    ['RegionId=admin.4.ca.ab&ResultValue=9.5', "RegionId eq 'admin.4.ca.ab' and ResultValue eq 9.5"],
  ])('locations?%s ≡ $filter=%s', (query, filter) => {
    const { plan } = itemsPlan(query, locations);
    expect(plan.where).toEqual(odataWhere(locations.resource, filter));
    expect(plan.format).toBe('geojson');
  });

  it("observations: a bbox filters the location's coordinates as the Records carry them", () => {
    const { plan } = itemsPlan('bbox=-80,43,-79,44', observations);
    const filter = 'MonitoringLocationLatitude ge 43 and MonitoringLocationLatitude le 44 and (MonitoringLocationLongitude ge -80 and MonitoringLocationLongitude le -79)';
    expect(plan.where).toEqual(odataWhere(observations.resource, filter));
  });

  it('limit, properties and cursor are $top, $select and $skiptoken', () => {
    const { plan } = itemsPlan('limit=25&properties=ResultValue,CharacteristicName&cursor=99', observations);
    const odata = planQuery(parseQuery('$top=25&$select=ResultValue,CharacteristicName&$skiptoken=Id:99'), observations.resource) as PagePlan;
    expect({ ...plan, format: 'json' }).toEqual(odata);
    expect(itemsPlan('', observations).plan.top).toBe(ITEMS_LIMIT.default);
    expect(itemsPlan('limit=999999', observations).plan.top).toBe(ITEMS_LIMIT.max);
  });
});

describe('parameters read on their own', () => {
  it('bbox: 4 or 6 numbers (heights ignored), antimeridian boxes kept as given', () => {
    expect(parseBbox('-80,43,-79,44')).toEqual({ west: -80, south: 43, east: -79, north: 44 });
    expect(parseBbox('-80,43,0,-79,44,100')).toEqual({ west: -80, south: 43, east: -79, north: 44 });
    expect(parseBbox('170,-50,-170,-30')).toEqual({ west: 170, south: -50, east: -170, north: -30 });
    for (const bad of ['', '1,2,3', 'a,b,c,d', '-190,0,0,1', '0,91,1,92', '0,10,1,5', '1,2,3,4,5']) {
      expect(() => parseBbox(bad), bad).toThrow(ApiError);
    }
  });

  it('datetime: instants and intervals, open ends, a date-time as its UTC day', () => {
    const day = (op: string, value: string) => ({ kind: 'compare', op, property: { kind: 'property', name: 'ActivityStartDate', offset: 0 }, value: { kind: 'date', value, offset: 0 }, offset: 0 });
    expect(datetimeExpr('2020-06-01')).toEqual(day('eq', '2020-06-01'));
    expect(datetimeExpr('2020-06-01T23:30:00-02:00')).toEqual(day('eq', '2020-06-02'));
    expect(datetimeExpr('2020-06-01/..')).toEqual(day('ge', '2020-06-01'));
    expect(datetimeExpr('/2020-06-01')).toEqual(day('le', '2020-06-01'));
    expect(datetimeExpr('../..')).toBeUndefined();
    expect(datetimeExpr('2020-01-01/2020-12-31')).toEqual({ kind: 'and', left: day('ge', '2020-01-01'), right: day('le', '2020-12-31') });
    for (const bad of ['..', '2020-13-01', '2020-06-01/2020-01-01', 'a/b/c', 'yesterday']) {
      expect(() => datetimeExpr(bad), bad).toThrow(ApiError);
    }
  });
});
