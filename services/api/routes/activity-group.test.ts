/**
 * ActivityGroupType as DataStream publishes it (upstream's ActivityType → ActivityGroupType lookup), through the
 * API: filters on Metadata and Observations, `$count` and `$apply` (answered from statistics) must agree with the
 * lookup applied to each observation's ActivityType by reference SQL, never with the stored derived column.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { upstreamActivityGroups } from '../../../schemas/index.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

let fixture: FixtureApp;
beforeAll(async () => {
  fixture = await openFixtureApp(inject('apiFixtureDb'));
});
afterAll(() => fixture.close());

const typesOf = (group: string) => Object.entries(upstreamActivityGroups.byActivityType).filter(([, g]) => g === group).map(([t]) => t);

async function reference(sql: string, params: string[]): Promise<Record<string, unknown>[]> {
  return (await fixture.ref.runAndReadAll(sql, params)).getRowObjectsJson() as Record<string, unknown>[];
}

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fixture.app.request(`/v1/odata/v4/${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('ActivityGroupType follows upstream lookup', () => {
  it('the fixture has portable loggers, which upstream counts as Field Measure, beside continuous time series', async () => {
    const [row] = await reference(`SELECT count(*) FILTER (WHERE "ActivityType" = 'Field Msr/Obs-Portable Data Logger') AS portable,
      count(*) FILTER (WHERE "ActivityType" = 'Field Msr/Obs-Continuous Time Series') AS cts FROM observations`, []);
    expect(Number(row?.portable)).toBeGreaterThan(0);
    expect(Number(row?.cts)).toBeGreaterThan(0);
  });

  it.each(upstreamActivityGroups.groups.map((g) => [g]))("Metadata?$filter=ActivityGroupType eq '%s' lists exactly the datasets with such an activity", async (group) => {
    const types = typesOf(group);
    const expected = types.length === 0 ? [] : await reference(`SELECT DISTINCT "DOI" FROM observations WHERE list_contains($1::VARCHAR[], "ActivityType") ORDER BY 1`, [`[${types.map((t) => JSON.stringify(t)).join(',')}]`]);
    const { status, body } = await get(`Metadata?$select=DOI&$filter=${encodeURIComponent(`ActivityGroupType eq '${group}'`)}`);
    expect(status).toBe(200);
    expect((body.value as { DOI: string }[]).map((d) => d.DOI).sort()).toEqual(expected.map((r) => r.DOI));
  });

  it("counts Observations by CharacteristicName and ActivityGroupType as the lookup says, and groups by it", async () => {
    const filter = "CharacteristicName eq 'Temperature, water' and ActivityGroupType eq 'Field Measure'";
    const [row] = await reference(`SELECT count(*) AS n FROM observations WHERE "CharacteristicName" = 'Temperature, water' AND list_contains($1::VARCHAR[], "ActivityType")`, [
      `[${typesOf('Field Measure').map((t) => JSON.stringify(t)).join(',')}]`,
    ]);
    // DataStream's $count=true answers the count alone, as {"value": n}.
    const counted = await get(`Observations?$count=true&$filter=${encodeURIComponent(filter)}`);
    expect(counted.body).toEqual({ value: Number(row?.n) });
    expect(Number(row?.n)).toBeGreaterThan(0);

    const groups = await get(`Observations?$apply=${encodeURIComponent('groupby((ActivityGroupType),aggregate($count as Count))')}`);
    const byType = await reference(`SELECT "ActivityType" AS t, count(*) AS n FROM observations GROUP BY 1`, []);
    const expected = new Map<string, number>();
    for (const r of byType) {
      const group = upstreamActivityGroups.byActivityType[String(r.t)] ?? 'Other';
      expected.set(group, (expected.get(group) ?? 0) + Number(r.n));
    }
    const got = new Map((groups.body.value as { ActivityGroupType: string; Count: number }[]).map((g) => [g.ActivityGroupType, g.Count]));
    expect(got).toEqual(expected);
  });
});
