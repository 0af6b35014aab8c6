/**
 * §7's summaries (issue 52): what LocationSummaries cost at publish with non-detects counted (Kaplan–Meier where
 * results are censored, quality control left out: ingest/location-summaries.ts's own SQL) against the summaries of
 * the detected values alone that preceded them (issue 48's definition, kept here as the reference), both over the
 * hub's observations and materialised as the statistics stage materialises its groups; and the statistics stage's
 * share of the ingest that built the hub.
 */
import { summaryGroupsSql } from '../../ingest/location-summaries.js';
import type { IngestTiming } from './cache.js';
import type { Duck } from './duck.js';
import { summarise } from './stats.js';
import { verdict, type Figure } from './table.js';

/** Issue 48's summaries: every value of the group, non-detects left out, grouped by ResultUnit as stored. */
const DETECTED_ONLY = `SELECT "LocationId", "DOI", "CharacteristicName", "ResultSampleFraction", "MethodSpeciation", "ResultUnit",
  count(*), count(*) - count("ResultValue"), min("ActivityStartDate"), max("ActivityStartDate"), min("ResultValue"), max("ResultValue"), avg("ResultValue"),
  quantile_cont("ResultValue", 0.5), quantile_cont("ResultValue", 0.1), quantile_cont("ResultValue", 0.9),
  arg_max({'id': "Id", 'value': "ResultValue"}, {'date': "ActivityStartDate", 'time': coalesce("ActivityStartTime", TIME '00:00:00'), 'id': "Id"})
  FROM observations GROUP BY ALL`;

export interface SummariesContext {
  readonly rows: number;
  readonly runs: number;
  readonly duck: Duck;
  readonly ingest: IngestTiming;
  readonly figures: Figure[];
  readonly log: (line: string) => void;
}

export async function summariesSection(ctx: SummariesContext): Promise<void> {
  ctx.log(`§7 location summaries: ${ctx.runs} run(s) each, with non-detects and detected values only`);
  const time = async (sql: string) => (await ctx.duck.timed(`CREATE OR REPLACE TEMP TABLE bench_summaries AS ${sql}`)).ms;
  const withKm: number[] = [];
  const detected: number[] = [];
  for (let i = 0; i < ctx.runs; i++) {
    detected.push(await time(DETECTED_ONLY));
    withKm.push(await time(summaryGroupsSql()));
  }
  await ctx.duck.all('DROP TABLE IF EXISTS bench_summaries');
  const [km, today] = [summarise(withKm), summarise(detected)];
  const stage = ctx.ingest.timingsMs?.['statistics'];
  // Issue 52 asks for the cost, not a bound: the extra time is set beside the whole ingest's, what a publish pays.
  const extra = km.median - today.median;
  ctx.figures.push({
    section: '7',
    name: `LocationSummaries with non-detects (Kaplan–Meier, quality control left out), against detected values only, over ${ctx.rows} rows`,
    unit: 'ms',
    value: km,
    ratio: km.median / today.median,
    ratioOf: 'of detected values only',
    verdict: verdict(undefined),
    note:
      `detected values only ${Math.round(today.median)} ms; the difference is ${((100 * extra) / ctx.ingest.wallMs).toFixed(1)} % of the ingest's ${(ctx.ingest.wallMs / 1000).toFixed(1)} s wall` +
      (stage === undefined ? '' : `, whose statistics stage took ${(stage / 1000).toFixed(1)} s`),
  });
}
