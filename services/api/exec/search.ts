/**
 * Datasets found by their words on a snapshot (issue 56 item 4): one query over the index ingest wrote at publish
 * (`dataset_search`, compile-search.ts), its filter's shapes and distances resolved to locations first as for any
 * other plan; the best `limit` of them ranked, and how many matched.
 */
import type { Snapshot } from '../db/snapshot.js';
import { compileSearch } from '../query/compile-search.js';
import type { CountPlan } from '../query/plan.js';
import { resolveLocations } from './resolve-locations.js';

/** Datasets one answer lists by default, and at most. */
export const SEARCH_TOP = { default: 50, max: 1000 } as const;
/** The longest text searched, and its most words: each word is a parameter and four tests of the query. */
export const SEARCH_TEXT = { maxChars: 500, maxWords: 32 } as const;

export interface FoundDataset {
  readonly Id: string;
  readonly DOI: string;
  readonly DatasetName: string | null;
  readonly Licence: string | null;
  readonly DataCollectionOrganization: string | null;
  readonly DataUploadOrganization: string | null;
  readonly Keywords: readonly string[] | null;
  /** First and last ActivityStartDate, `YYYY-MM-DD`. */
  readonly TemporalExtent: readonly string[] | null;
  /** [west, south, east, north] of its locations, WGS 84 degrees; null when none has a point. */
  readonly Bbox: readonly [number, number, number, number] | null;
  /** What ranked it: 4 per word in its name, 2 in its keywords, 1 in its organisations. */
  readonly Score: number;
}

export interface SearchResult {
  readonly matched: number;
  readonly datasets: readonly FoundDataset[];
}

export async function searchDatasets(plan: CountPlan, words: readonly string[], limit: number, snapshot: Snapshot, signal: AbortSignal): Promise<SearchResult> {
  const resolved = await resolveLocations(plan, snapshot, signal);
  const cols = await snapshot.columns(compileSearch(resolved, words, limit), signal);
  const text = (name: string, i: number) => (cols[name]![i] === null ? null : String(cols[name]![i]));
  const json = <T>(name: string, i: number) => (cols[name]![i] === null ? null : (JSON.parse(String(cols[name]![i])) as T));
  const n = (name: string, i: number) => (cols[name]![i] === null ? null : Number(cols[name]![i]));
  const datasets = (cols['DOI'] ?? []).map((doi, i): FoundDataset => {
    const box = [n('West', i), n('South', i), n('East', i), n('North', i)];
    return {
      Id: String(cols['Id']![i]),
      DOI: String(doi),
      DatasetName: text('DatasetName', i),
      Licence: text('Licence', i),
      DataCollectionOrganization: text('DataCollectionOrganization', i),
      DataUploadOrganization: text('DataUploadOrganization', i),
      Keywords: json<string[]>('Keywords', i),
      TemporalExtent: json<string[]>('TemporalExtent', i),
      Bbox: box.every((v) => v !== null) ? (box as [number, number, number, number]) : null,
      Score: Number(cols['Score']![i]),
    };
  });
  return { matched: Number(cols['Matched']?.[0] ?? 0), datasets };
}
