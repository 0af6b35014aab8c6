/**
 * The query gate as the metrics see it: the same gate, each acquire timed and each refusal counted, so the gate
 * itself (limits/query-gate.ts) stays free of metrics.
 */
import type { QueryGate } from '../limits/query-gate.js';
import type { ApiMetrics } from './api-metrics.js';

export function observeGate(gate: QueryGate, metrics: Pick<ApiMetrics, 'gateWaited' | 'gateRefused'>, now: () => number = () => performance.now()): QueryGate {
  return {
    get running() {
      return gate.running;
    },
    get waiting() {
      return gate.waiting;
    },
    get parked() {
      return gate.parked;
    },
    async acquire(signal, client, keyless) {
      const start = now();
      const slot = await gate.acquire(signal, client, keyless);
      metrics.gateWaited((now() - start) / 1000);
      if (typeof slot !== 'object') metrics.gateRefused(slot);
      return slot;
    },
  };
}
