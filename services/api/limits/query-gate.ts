/**
 * The global cap on DuckDB queries running at once, with a short first-come queue. DuckDB already uses every
 * core for one query; more concurrent queries only share the same cores and memory, so beyond the cap a request
 * waits briefly, and when the queue is full (or the wait too long) it is told to come back (503).
 */

export type GateRefusal = 'queue_full' | 'wait_timeout' | 'aborted';

export interface QueryGate {
  /** Resolves with a release function, or with why no slot was given. */
  acquire(signal?: AbortSignal): Promise<(() => void) | GateRefusal>;
  readonly running: number;
  readonly waiting: number;
}

export interface QueryGateOptions {
  readonly maxConcurrent: number;
  readonly maxQueue: number;
  /** Longest wait in the queue. */
  readonly maxWaitMs: number;
}

interface Waiter {
  grant(release: () => void): void;
}

export function createQueryGate(opts: QueryGateOptions): QueryGate {
  if (!Number.isInteger(opts.maxConcurrent) || opts.maxConcurrent < 1) throw new Error(`maxConcurrent must be ≥ 1, got ${opts.maxConcurrent}`);
  if (!Number.isInteger(opts.maxQueue) || opts.maxQueue < 0) throw new Error(`maxQueue must be ≥ 0, got ${opts.maxQueue}`);
  let running = 0;
  const queue: Waiter[] = [];

  function releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = queue.shift();
      if (next) next.grant(releaser()); // the slot passes straight to the next waiter
      else running--;
    };
  }

  return {
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
    async acquire(signal) {
      if (signal?.aborted) return 'aborted';
      if (running < opts.maxConcurrent) {
        running++;
        return releaser();
      }
      if (queue.length >= opts.maxQueue) return 'queue_full';
      return new Promise((resolve) => {
        const leave = (why: GateRefusal) => {
          const i = queue.indexOf(waiter);
          if (i >= 0) queue.splice(i, 1);
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(why);
        };
        const onAbort = () => leave('aborted');
        const waiter: Waiter = {
          grant(release) {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            resolve(release);
          },
        };
        const timer = setTimeout(() => leave('wait_timeout'), opts.maxWaitMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
      });
    },
  };
}
