import { qualityControlSql } from '../schemas/index.js';
import { writeComparisonStats } from './comparison-stats.js';
import { all, scalarNumber } from './db.js';
import { applicableGuidelines } from './guidelines/applicable-guidelines.js';
import { writeComparisons } from './guidelines/comparisons.js';
import { formulaValues } from './guidelines/formula-values.js';
import { pairedCharacteristics } from './guidelines/guideline-pairing.js';
import { servedGuidelines } from './guidelines/guideline-table.js';
import { formulaDays, inputsByDay } from './guidelines/inputs-by-day.js';
import { unitConversions } from './guidelines/unit-conversions.js';
import { writeWaterQualityIndex } from './guidelines/water-quality-index.js';
import { dropWorkTables, workTables } from './guidelines/work-tables.js';
import { writeGuidelines } from './guidelines/write-guidelines.js';
import type { GuidelinesPart, IngestBuild } from './stage-parts.js';

/**
 * The guidelines stage (after statistics; docs/guidelines.md): the summary into `guidelines`, every observation of
 * the build (the new and changed datasets: a delta holds nothing else) compared with every guideline that applies to
 * it into `guideline_comparisons`, their statistics, and the CCME Water Quality Index of each location-year into
 * `water_quality_index`. Quality-control results (blanks, replicates, spikes) are not water: set aside, counted in
 * the part. Each step is a file of ingest/guidelines/ that makes one working table (work-tables.ts) or writes one
 * published table:
 *
 *   summary → pairing → formula days → unit conversions → inputs by day → formula values → comparisons
 *           (with the governing verdicts) → statistics → index
 */
export async function guidelinesStage(build: IngestBuild, options: { readonly comparisons?: boolean } = {}): Promise<GuidelinesPart> {
  const conn = build.conn;
  const guidelines = servedGuidelines();
  await writeGuidelines(conn, guidelines);
  const none: GuidelinesPart = { guidelines: guidelines.length, comparisons: 0, indexRows: 0, qualityControlSetAside: 0 };
  if (options.comparisons === false) return none;
  const setAside = await scalarNumber(conn, `SELECT sum(n) FROM all_stats WHERE ${qualityControlSql('"ActivityGroupType"')}`);
  // Only the guidelines of characteristics the build measured (a publish of a few datasets pairs with few).
  const measured = pairedCharacteristics((await all(conn, 'SELECT DISTINCT "CharacteristicName" AS c FROM all_stats')).map((r) => String(r.c)));
  await applicableGuidelines(conn, guidelines.filter((g) => measured.has(g.CharacteristicName)), guidelines);
  try {
    if ((await scalarNumber(conn, `SELECT count(*) FROM ${workTables.applicable}`)) === 0) return { ...none, qualityControlSetAside: setAside };
    await formulaDays(conn);
    await unitConversions(conn);
    await inputsByDay(conn);
    await formulaValues(conn, guidelines);
    const comparisons = await writeComparisons(conn);
    await writeComparisonStats(conn);
    const indexRows = await writeWaterQualityIndex(conn);
    return { guidelines: guidelines.length, comparisons, indexRows, qualityControlSetAside: setAside };
  } finally {
    await dropWorkTables(conn);
  }
}
