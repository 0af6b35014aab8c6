import { writeTrendsMeta, type TrendsMeta } from './meta-rows.js';
import type { IngestBuild, LoadPart, TrendsPart } from './stage-parts.js';
import { periodsText, recomputeReason, resolvePeriods, type TrendSettings } from './trends/trend-periods.js';
import { latestUsableYear, type TrendSource } from './trends/trend-sql.js';
import { writeTrends } from './trends/write-trends.js';

/**
 * Stage 5c (trends, after guidelines, before files): the trend of every series × period (docs/trends.md; the
 * contract is ../shared/trends/README.md). A series lies in one dataset, so a delta computes only its new and changed
 * datasets' series and the merge drops a leaving dataset's rows by DOI; but EndYear is the whole hub's, and when it
 * or the periods differ from the published file's, every series changes: the delta then holds every series of the
 * hub (the published file's observations without the replaced datasets, plus its own) and replaces the table.
 */
export async function trendsStage(build: IngestBuild, loaded: LoadPart, settings: TrendSettings): Promise<TrendsPart> {
  const conn = build.conn;
  const hub: TrendSource = build.file.delta ? { kind: 'hub', dropped: loaded.loaded.map((d) => d.DOI), withBuild: true } : { kind: 'build' };
  const meta: TrendsMeta = { endYear: settings.endYear ?? (await latestUsableYear(conn, hub)), periods: periodsText(settings.periods) };
  const published = build.previous.trends;
  const why = recomputeReason(build.file.delta, published, meta);
  const source: TrendSource = why === undefined ? { kind: 'build' } : hub;
  const written = await writeTrends(conn, source, resolvePeriods(settings.periods, meta.endYear));
  await writeTrendsMeta(conn, meta);
  const part: TrendsPart = { ...meta, recomputed: why === undefined ? 'changed' : 'all', ...(why ? { reason: why } : {}), ...written };
  return part;
}

/** The stage's line of the ingest's log (pipeline.ts's stageLines). */
export function trendsLine(part: TrendsPart): string {
  const scope = part.recomputed === 'all' ? `every series recomputed (${part.reason})` : "the new and changed datasets' series";
  return `trends: ${part.rows} rows of ${part.series} series, periods ${part.periods} to ${part.endYear ?? '(no data)'}: ${scope}`;
}
