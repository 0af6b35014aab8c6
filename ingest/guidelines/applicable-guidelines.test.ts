import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicableGuidelines, pairedObservations } from './applicable-guidelines.js';
import { addObservations, rowsOf, stepDb, testSummary, type StepDb } from './step-test-support.js';
import { workTables } from './work-tables.js';

/**
 * The pairing step: which guideline applies to which observation, by characteristic, fraction and speciation,
 * medium, ecosystem and jurisdiction (docs/guidelines.md, "Pairing"), each case written out by hand.
 */

const summary = testSummary([
  /* 1 */ { characteristic: 'Zinc', value: '30', unit: 'ug/L', fraction: 'Dissolved', region: 'CA' },
  /* 2 */ { characteristic: 'Zinc', value: '10', unit: 'ug/L', region: 'CA-AB' },
  /* 3 */ { characteristic: 'Zinc', value: '7', unit: 'ug/L', region: 'CA-ON' },
  /* 4 */ { characteristic: 'Zinc', value: '55', unit: 'ug/L', region: 'CA', ecosystem: 'Marine' },
  /* 5 */ { characteristic: 'Zinc', value: '120', unit: 'mg/kg', region: 'CA', media: 'Sediment' },
  /* 6 */ { characteristic: 'Nitrate', value: '3', speciation: 'as N', region: 'CA' },
  /* 7 */ { characteristic: 'Nitrate', value: '13', speciation: 'as NO3', region: 'CA' },
  /* 8 */ { characteristic: 'Copper', value: '', region: 'CA' },
]);

// Location 1: a river in Alberta; 2: an estuary in Alberta; 3: a river in Ontario; 4: a well in Alberta.
const locations = {
  1: {},
  2: { type: 'Estuary' },
  3: { regions: ['admin.2.ca', 'admin.4.ca.on'] },
  4: { type: 'Well' },
};
const observations = [
  { Id: 1, LocationId: 1, date: '2022-05-03', characteristic: 'Zinc', fraction: 'Dissolved', value: 12, unit: 'ug/L' },
  { Id: 2, LocationId: 1, date: '2022-05-03', characteristic: 'Zinc', fraction: 'Total', value: 12, unit: 'ug/L' },
  { Id: 3, LocationId: 1, date: '2022-05-03', characteristic: 'Zinc', value: 12, unit: 'ug/L' },
  { Id: 4, LocationId: 1, date: '2022-05-03', characteristic: 'Zinc', fraction: 'Dissolved', value: 12, unit: 'ug/L', media: 'Ocean Water' },
  { Id: 5, LocationId: 1, date: '2022-05-03', characteristic: 'Zinc', value: 80, unit: 'mg/kg', media: 'Surface Water Sediment' },
  { Id: 6, LocationId: 1, date: '2022-05-03', characteristic: 'Zinc', value: 12, unit: 'ug/L', media: 'Rainwater' },
  { Id: 7, LocationId: 2, date: '2022-05-03', characteristic: 'Zinc', fraction: 'Dissolved', value: 12, unit: 'ug/L' },
  { Id: 8, LocationId: 3, date: '2022-05-03', characteristic: 'Zinc', fraction: 'Dissolved', value: 12, unit: 'ug/L' },
  { Id: 9, LocationId: 4, date: '2022-05-03', characteristic: 'Zinc', fraction: 'Dissolved', value: 12, unit: 'ug/L', media: 'Groundwater' },
  { Id: 10, LocationId: 1, date: '2022-05-03', characteristic: 'Nitrate', speciation: 'as N', value: 1, unit: 'mg/L' },
  { Id: 11, LocationId: 1, date: '2022-05-03', characteristic: 'Nitrate', value: 1, unit: 'mg/L' },
  { Id: 12, LocationId: 1, date: '2022-05-03', characteristic: 'Copper', value: 1, unit: 'ug/L' },
  { Id: 13, LocationId: 1, date: '2022-05-03', characteristic: 'Zinc', fraction: 'Dissolved', value: 12, unit: 'ug/L', activityType: 'Quality Control Sample-Field Blank' },
  { Id: 14, LocationId: 1, date: '2022-05-03', characteristic: 'Zinc', fraction: 'Dissolved', value: 12, unit: 'ug/L', activityType: 'Quality Control Field Replicate Msr/Obs' },
];

/** Observation Id → the guideline Ids that apply to it, by the rules of docs/guidelines.md. */
const expected: Record<number, number[]> = {
  1: [1, 2], // Dissolved: CCME's dissolved and Alberta's any-fraction; not Ontario's, not marine, not sediment
  2: [2], // Total: not the dissolved one
  3: [1, 2], // no fraction: any
  4: [4], // Ocean Water is marine wherever it is taken
  5: [5], // sediment
  6: [], // rain has no aquatic-life guideline
  7: [4], // an estuary is marine
  8: [1, 3], // Ontario: CCME's and Ontario's
  9: [], // groundwater at a well
  10: [6], // as N: not as NO3
  11: [6, 7], // no speciation: either
  12: [], // a guideline with no value is served, never compared
  13: [], // a field blank is not water
  14: [], // nor a field replicate
};

let db: StepDb;
beforeAll(async () => {
  db = await stepDb();
  await addObservations(db.conn, observations, locations);
  await applicableGuidelines(db.conn, summary, summary);
});
afterAll(() => db.close());

describe('the pairing step', () => {
  it('pairs each observation with exactly the guidelines that apply to it', async () => {
    const got = await rowsOf(db.conn, `SELECT o."Id" AS o, list(g.GuidelineId ORDER BY g.GuidelineId) AS g ${pairedObservations()} GROUP BY o."Id"`);
    const byObservation = Object.fromEntries(got.map((r) => [r.o as number, (r.g as bigint[]).map(Number)]));
    for (const o of observations) expect(byObservation[o.Id] ?? [], `observation ${o.Id}`).toEqual(expected[o.Id]);
  });

  it('decides once per pairing key (location, characteristic, medium, fraction, speciation), and ranks every publisher of the summary', async () => {
    const keys = await rowsOf(
      db.conn,
      `SELECT count(*) AS n, count(DISTINCT ("LocationId", "CharacteristicName", "ActivityMediaName", "ResultSampleFraction", "MethodSpeciation", GuidelineId)) AS k FROM ${workTables.applicable}`,
    );
    expect(keys[0]!.n).toBe(keys[0]!.k);
    // Observation 1 (Dissolved zinc at the river) stands among two long-term CCME rows (Canada's, Alberta's): each names the other.
    const alternatives = await rowsOf(db.conn, `SELECT GuidelineId, Term, Alternatives FROM ${workTables.applicable} WHERE "LocationId" = 1 AND "ResultSampleFraction" = 'Dissolved' AND "ActivityMediaName" = 'Surface Water' ORDER BY GuidelineId`);
    expect(alternatives).toEqual([{ GuidelineId: 1, Term: 'long-term', Alternatives: '2 Chronic' }, { GuidelineId: 2, Term: 'long-term', Alternatives: '1 Chronic' }]);
    expect(await rowsOf(db.conn, `SELECT Publisher, rank FROM ${workTables.publishers} ORDER BY rank`)).toEqual([{ Publisher: 'CCME', rank: 0 }]);
  });
});
