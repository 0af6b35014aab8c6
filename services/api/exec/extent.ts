/** The published extent (query/compile-extent.ts) read as values; nothing at all is published: no extent. */
import type { Snapshot } from '../db/snapshot.js';
import { compileExtent } from '../query/compile-extent.js';

export interface Extent {
  /** [west, south, east, north] in WGS 84 degrees. */
  readonly bbox: readonly [number, number, number, number];
  /** First and last ActivityStartDate, `YYYY-MM-DD`. */
  readonly interval: readonly [string | null, string | null];
}

export async function readExtent(snapshot: Snapshot, signal?: AbortSignal): Promise<Extent | undefined> {
  const cols = await snapshot.columns(compileExtent(), signal);
  const value = (name: string) => cols[name]?.[0] ?? null;
  const box = ['west', 'south', 'east', 'north'].map((k) => value(k));
  if (box.some((v) => v === null)) return undefined;
  const date = (k: string) => (value(k) === null ? null : String(value(k)));
  return { bbox: box.map(Number) as unknown as Extent['bbox'], interval: [date('first_date'), date('last_date')] };
}
