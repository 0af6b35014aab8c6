import type { DuckDBConnection } from '@duckdb/node-api';
import { run } from '../db.js';

/**
 * The guidelines stage's working tables (TEMP, dropped at its end), each made by one step and read by the later
 * ones: the names are here once, so a step says which table it reads by its meaning.
 */
export const workTables = {
  /** The guidelines compared in this build, with what pairing and evaluation read (applicable-guidelines.ts). */
  guidelines: 'gl_g',
  /** ActivityMediaName → the summary's Media Name; MonitoringLocationType → Ecosystem (guideline-pairing.ts). */
  media: 'gl_media',
  ecosystems: 'gl_eco',
  /** Each ambiguous CharacteristicName × a characteristic it may stand for, with why (guideline-pairing.ts). */
  ambiguous: 'gl_amb',
  /** Each location of the build: its ecosystem and its regions. */
  locations: 'gl_loc',
  /** Every publisher of the summary with its rank in name order (a water quality index row's Id). */
  publishers: 'gl_pub',
  /** Which guidelines apply to each pairing key of the build's results, with Term and Alternatives (applicable-guidelines.ts). */
  applicable: 'gl_lg',
  /** Each location-day × formula guideline compared on it (inputs-by-day.ts). */
  formulaDays: 'gl_fkeys',
  /** Each distinct pair of units converted once through UCUM: factor and offset (unit-conversions.ts). */
  units: 'gl_units',
  /** The paired inputs of each location-day a formula is compared on (inputs-by-day.ts). */
  inputs: 'gl_in',
  /** Each formula guideline's value on each location-day it is compared on (formula-values.ts). */
  formulaValues: 'gl_fv',
  /** The governing comparison of each result × publisher × term: (ObservationId, GuidelineId) (comparisons.ts). */
  governing: 'gl_gov',
} as const;

export async function dropWorkTables(conn: DuckDBConnection): Promise<void> {
  for (const t of Object.values(workTables)) await run(conn, `DROP TABLE IF EXISTS ${t}`);
}
