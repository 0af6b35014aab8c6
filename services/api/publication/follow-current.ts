/**
 * Next links never go back to an older publication. Replicas switch each on its own poll, so for a moment one may
 * serve the new publication while another still serves the previous one; a client whose page came from the new
 * one and whose next link lands on the lagging replica would otherwise continue `$skiptoken=Id:<n>` (or an OGC
 * `cursor=<n>`) in the older publication, where the Ids after n are other rows (a changed dataset is renumbered).
 * So a request that continues a next link (the lease asks the route's rule, http/paths.ts) first makes its replica
 * look at the store and switch if a newer publication is current, as every page after it is then served from it;
 * a switch that cannot finish in `waitMs` answers 503 with Retry-After, which the client retries on a replica that
 * has switched.
 */
import { ApiError } from '../errors.js';

export interface FollowCurrentOptions {
  /** Switches to the current publication if it changed (db/database.ts `refresh`). */
  readonly refresh: () => Promise<boolean>;
  /** Default 10 s. */
  readonly waitMs?: number;
  readonly log?: (msg: string) => void;
}

/** The lease's `beforeNextLink`: resolves once the replica serves the current publication, else throws the 503. */
export function followCurrent(opts: FollowCurrentOptions): () => Promise<void> {
  const waitMs = opts.waitMs ?? 10_000;
  return async function latestPublicationForNextLinks() {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), waitMs)));
    const outcome = await Promise.race([opts.refresh().then(() => 'ok' as const, (err: unknown) => err), timeout]).finally(() => clearTimeout(timer));
    if (outcome !== 'ok') {
      opts.log?.(`next link refused while switching publications: ${outcome === 'timeout' ? `no switch within ${waitMs} ms` : String(outcome)}`);
      throw new ApiError('unavailable', 'A new publication is being switched to on this server: retry this next link after the number of seconds in Retry-After.', {}, { 'Retry-After': '1' });
    }
  };
}
