/**
 * How long a publication stays servable after it stops being current (issue 38): a client paging an extract holds
 * next links pinned to the publication its first page came from, so that publication must outlive the publishes
 * that follow for as long as an extract may take. Ingest (which removes old publications from the store and old
 * dataset files from beside a plain file) and the API (which keeps old snapshots open, or reopens them from the
 * store, and answers 410 past this) apply the same rule, so every replica agrees on what is still served.
 */

/** The newest publications always kept, whatever their age: the current one and the two before it. */
export const PUBLICATIONS_KEPT = 3;

/** PUBLICATION_RETENTION_MS's default: an hour, longer than a 10M-row extract at the DataStream clients' pace. */
export const DEFAULT_RETENTION_MS = 60 * 60 * 1000;

export interface PublicationAge {
  readonly id: string;
  /** When it stopped being current (its successor's publication); undefined for the current one. */
  readonly stoppedAt?: Date | undefined;
}

/**
 * The ids still servable among `publications` (oldest first, the last one current): the newest PUBLICATIONS_KEPT,
 * and every one that stopped being current less than `retentionMs` before `now`.
 *
 * @example
 * retainedPublications([{ id: 'a', stoppedAt: twoHoursAgo }, { id: 'b', stoppedAt: tenMinutesAgo }, { id: 'c', stoppedAt: oneMinuteAgo }, { id: 'd' }], now, 3_600_000)
 * // → Set { 'b', 'c', 'd' }: b is past the three newest but stopped ten minutes ago
 */
export function retainedPublications(publications: readonly PublicationAge[], now: Date, retentionMs: number): Set<string> {
  const newest = publications.slice(-PUBLICATIONS_KEPT).map((p) => p.id);
  const recent = publications.filter((p) => p.stoppedAt === undefined || now.getTime() - p.stoppedAt.getTime() < retentionMs).map((p) => p.id);
  return new Set([...newest, ...recent]);
}
