/**
 * Refusals in the access log, sampled per client (issue 47 item 8): a client sending refused requests as fast as a
 * connection carries them made one log line each. Each client may have LOG_REFUSALS.burst refusal lines at once and
 * LOG_REFUSALS.perSecond after that; a line written after some were left out says how many (`suppressed`), so the
 * counts stay exact. Answers that are not refusals are not sampled here.
 */

export const LOG_REFUSALS = { perSecond: 1, burst: 10, maxClients: 10_000 } as const;

export interface RefusalSampler {
  /** Whether this client's refusal is written, and how many of its refusals were left out since its last line. */
  take(client: string, nowMs: number): { readonly write: boolean; readonly suppressed: number };
}

export function refusalSampler(limits: { readonly perSecond: number; readonly burst: number; readonly maxClients: number } = LOG_REFUSALS): RefusalSampler {
  const buckets = new Map<string, { tokens: number; at: number; suppressed: number }>();
  return {
    take(client, nowMs) {
      let b = buckets.get(client);
      if (!b) {
        // Bounded memory: past maxClients the oldest-inserted client is forgotten (it starts again with a full bucket).
        if (buckets.size >= limits.maxClients) buckets.delete(buckets.keys().next().value!);
        b = { tokens: limits.burst, at: nowMs, suppressed: 0 };
        buckets.set(client, b);
      }
      b.tokens = Math.min(limits.burst, b.tokens + ((nowMs - b.at) / 1000) * limits.perSecond);
      b.at = nowMs;
      if (b.tokens < 1) {
        b.suppressed++;
        return { write: false, suppressed: 0 };
      }
      b.tokens--;
      const suppressed = b.suppressed;
      b.suppressed = 0;
      return { write: true, suppressed };
    },
  };
}
