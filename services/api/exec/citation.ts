/**
 * A citation on a snapshot: how many of the rows a query matches each dataset contributes (the `$apply` groups of
 * its plan, read page by page, or the per-dataset count of a coarser resource), joined with each dataset's
 * citation fields. Those fields are a function of the publication: read once per snapshot and kept with it, as the
 * downloads' listing is (downloads.ts); the signposting `license` link of every page reads them too.
 */
import type { Snapshot } from '../db/snapshot.js';
import {
  citesDatasets,
  citesGuidelines,
  compileCountByDataset,
  compileDatasetCitations,
  compileGuidelineSources,
  CITATION_FIELDS,
  CITATION_TIMES,
  type CitationField,
} from '../query/compile-citation.js';
import type { CitationPlan } from '../query/plan-citation.js';
import { execute } from './execute.js';
import { resolveLocations } from './resolve-locations.js';

/** A dataset's citation fields as `/Metadata` names them; absent text is null. */
export type DatasetCitation = { readonly [F in CitationField]: string | null } & { readonly DOI: string };

export interface CitedDataset {
  readonly dataset: DatasetCitation;
  /** The rows of the cited result that belong to it. */
  readonly rows: number;
}

const cache = new WeakMap<Snapshot, Promise<ReadonlyMap<string, DatasetCitation>>>();

/** DOI → the dataset's citation fields, for every dataset of the publication. */
export function readDatasetCitations(snapshot: Snapshot): Promise<ReadonlyMap<string, DatasetCitation>> {
  let read = cache.get(snapshot);
  if (!read) {
    read = loadCitations(snapshot);
    // A failed read (interrupted at shutdown) is tried again by the next request.
    read.catch(() => cache.delete(snapshot));
    cache.set(snapshot, read);
  }
  return read;
}

async function loadCitations(snapshot: Snapshot): Promise<ReadonlyMap<string, DatasetCitation>> {
  const cols = await snapshot.columns(compileDatasetCitations());
  const names = [...CITATION_FIELDS, ...CITATION_TIMES];
  const out = new Map<string, DatasetCitation>();
  for (let i = 0; i < (cols['DOI']?.length ?? 0); i++) {
    const entry = Object.fromEntries(names.map((n) => [n, textOrNull(cols[n]?.[i])])) as DatasetCitation;
    out.set(entry.DOI, entry);
  }
  return out;
}

/** Empty text is absent: the free-text fields are stored as '' when a provider left them out. */
function textOrNull(v: unknown): string | null {
  return v === null || v === undefined || v === '' ? null : String(v);
}

/** A guideline's publisher and source a cited result's rows rest on, and how many rows. */
export interface CitedGuideline {
  readonly Publisher: string;
  readonly Source: string | null;
  readonly Rows: number;
}

/** The publishers and sources of the guidelines the result rests on; undefined when its rows rest on none. */
export async function citeGuidelines(plan: CitationPlan, snapshot: Snapshot, signal: AbortSignal): Promise<readonly CitedGuideline[] | undefined> {
  if (!citesGuidelines(plan.resource) || plan.counts.kind !== 'count') return undefined;
  const counts = await resolveLocations(plan.counts, snapshot, signal);
  const cols = await snapshot.columns(compileGuidelineSources(counts), signal);
  return (cols['publisher'] ?? []).map((p, i) => ({ Publisher: String(p), Source: textOrNull(cols['source']![i]), Rows: Number(cols['n']![i]) }));
}

/** Every dataset with rows in the result, by DOI, each with its row count. */
export async function citeResult(plan: CitationPlan, snapshot: Snapshot, signal: AbortSignal): Promise<readonly CitedDataset[]> {
  const [counts, datasets] = await Promise.all([rowsPerDataset(plan, snapshot, signal), readDatasetCitations(snapshot)]);
  return counts.map(([doi, rows]) => ({ dataset: datasets.get(doi) ?? absent(doi), rows }));
}

async function rowsPerDataset(plan: CitationPlan, snapshot: Snapshot, signal: AbortSignal): Promise<[string, number][]> {
  const { counts } = plan;
  if (counts.kind === 'count') {
    // Guidelines belong to no dataset: their citation is their publishers' (citeGuidelines).
    if (!citesDatasets(plan.resource)) return [];
    // A shape or distance becomes the Ids of the locations that pass before any compiler sees it, as for a page
    // (the observations' groups are executed, which resolves them): compiled as it was, it was a 500.
    const resolved = await resolveLocations(counts, snapshot, signal);
    const cols = await snapshot.columns(compileCountByDataset(resolved), signal);
    return (cols['g0'] ?? []).map((doi, i) => [String(doi), Number(cols['n']![i])]);
  }
  const out: [string, number][] = [];
  for (let after: bigint | undefined; ; after = (after ?? 0n) + BigInt(counts.top)) {
    const page = await execute({ ...counts, after }, snapshot, signal);
    if (page.kind !== 'apply') throw new Error(`a citation's groups executed as ${page.kind}`);
    out.push(...page.groups.map((g): [string, number] => [String(g.keys[0]), Number(g.values[0])]));
    if (!page.hasNext) return out.filter(([, rows]) => rows > 0);
  }
}

/** A DOI with rows but no Metadata row cannot be published (ingest writes both); cited by its DOI alone if it were. */
function absent(doi: string): DatasetCitation {
  const none = Object.fromEntries([...CITATION_FIELDS, ...CITATION_TIMES].map((n) => [n, null]));
  return { ...none, DOI: doi } as DatasetCitation;
}
