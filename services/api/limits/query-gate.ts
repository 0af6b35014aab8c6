/**
 * The global cap on DuckDB queries running at once, with a short first-come queue. DuckDB already uses every
 * core for one query; more concurrent queries only share the same cores and memory, so beyond the cap a request
 * waits briefly, and when the queue is full (or the wait too long) it is told to come back (503).
 *
 * A slot belongs to a query that is working. A response waiting on its client (a full socket) parks: it gives its
 * slot to the next request and takes one again, ahead of new requests, once the client reads. At most `maxParked`
 * responses park at once (each may hold a libuv thread and a page's bytes: limits/thread-pool.ts); beyond that a
 * waiting response keeps its slot. One client holds at most `maxPerClient` slots, working or parked, so stalled
 * responses are bounded per client, and parking places are four times the slots by default: with as many places
 * as slots, eight clients with two stalled pages each parked eight and kept the eight slots (issue 47 item 4), while
 * now it takes twenty clients to pin a slot at all.
 *
 * Keyless calls (a browser's, let in without a key while keys are required: middleware/api-key.ts) may take at most
 * `maxKeylessQueue` of the queue's places, and a keyed request waiting is granted a slot before them: 200 keyless MCP
 * calls from 200 addresses filled the queue and a keyed client was answered 503 (issue 56 item 5). A key is issued to
 * someone and revocable; an address is anyone's.
 */

export type GateRefusal = 'queue_full' | 'wait_timeout' | 'aborted' | 'client_share' | 'keyless_share';

/** A query's place in the gate. */
export interface QuerySlot {
  /** The response waits on its client: the slot goes to the next request if a parking place is free. */
  park(): void;
  /** The client reads again: resolves true once the slot is held again, false when `signal` aborted the wait. */
  resume(signal?: AbortSignal): Promise<boolean>;
  release(): void;
}

export interface QueryGate {
  /**
   * Resolves with the slot, or with why none was given. `client` names who asks (middleware/api-key.ts apiClient);
   * `keyless` when it is a call let in without a key while keys are required.
   */
  acquire(signal?: AbortSignal, client?: string, keyless?: boolean): Promise<QuerySlot | GateRefusal>;
  /** Slots held by working queries. */
  readonly running: number;
  readonly waiting: number;
  /** Responses waiting on their clients without a slot. */
  readonly parked: number;
}

export interface QueryGateOptions {
  readonly maxConcurrent: number;
  readonly maxQueue: number;
  /** Longest wait in the queue. */
  readonly maxWaitMs: number;
  /** Slots, working or parked, one client may hold; default `perClientShare(maxConcurrent)`. */
  readonly maxPerClient?: number;
  /** Responses that may wait on their clients without a slot; default `parkingPlaces(maxConcurrent)`. */
  readonly maxParked?: number;
  /** Places of the queue keyless calls may hold; default `keylessQueue(maxQueue)`. */
  readonly maxKeylessQueue?: number;
}

/**
 * Half the queue (at least one place when there is a queue) for keyless calls: the other half is always there for
 * keyed requests, however many addresses call without a key.
 * @example keylessQueue(64) // → 32
 */
export function keylessQueue(maxQueue: number): number {
  return maxQueue === 0 ? 0 : Math.max(1, Math.floor(maxQueue / 2));
}

/**
 * Four parking places per slot: a stalled response beyond them keeps its slot, so they must outnumber what the
 * clients that fit in the slots' shares can stall (MAX_PARKED_RESPONSES).
 * @example parkingPlaces(8) // → 32
 */
export function parkingPlaces(maxConcurrent: number): number {
  return 4 * maxConcurrent;
}

/**
 * A quarter of the slots per client (at least one): four clients that stop reading at once still leave the slots
 * free once they park, and no one client can fill them.
 * @example perClientShare(8) // → 2
 */
export function perClientShare(maxConcurrent: number): number {
  return Math.max(1, Math.floor(maxConcurrent / 4));
}

interface Waiter {
  grant(): void;
}

export function createQueryGate(opts: QueryGateOptions): QueryGate {
  if (!Number.isInteger(opts.maxConcurrent) || opts.maxConcurrent < 1) throw new Error(`maxConcurrent must be ≥ 1, got ${opts.maxConcurrent}`);
  if (!Number.isInteger(opts.maxQueue) || opts.maxQueue < 0) throw new Error(`maxQueue must be ≥ 0, got ${opts.maxQueue}`);
  const maxPerClient = opts.maxPerClient ?? perClientShare(opts.maxConcurrent);
  const maxParked = opts.maxParked ?? parkingPlaces(opts.maxConcurrent);
  const maxKeyless = opts.maxKeylessQueue ?? keylessQueue(opts.maxQueue);
  let running = 0;
  let parked = 0;
  /** Parked responses taking their slot back go first; then keyed requests; keyless calls last. */
  const resuming: Waiter[] = [];
  const queue: Waiter[] = [];
  const keylessWaiting: Waiter[] = [];
  const held = new Map<string, number>();
  const count = (client: string | undefined, delta: 1 | -1) => {
    if (client === undefined) return;
    const n = (held.get(client) ?? 0) + delta;
    if (n > 0) held.set(client, n);
    else held.delete(client);
  };

  /** A slot was freed: it passes straight to the next waiter, or is counted free. */
  function free(): void {
    const next = resuming.shift() ?? queue.shift() ?? keylessWaiting.shift();
    if (next) next.grant();
    else running--;
  }

  function wait(list: Waiter[], signal: AbortSignal | undefined, maxWaitMs: number | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      const leave = () => {
        const i = list.indexOf(waiter);
        if (i >= 0) list.splice(i, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', leave);
        resolve(false);
      };
      const waiter: Waiter = {
        grant() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', leave);
          resolve(true);
        },
      };
      const timer = maxWaitMs === undefined ? undefined : setTimeout(leave, maxWaitMs);
      signal?.addEventListener('abort', leave, { once: true });
      list.push(waiter);
    });
  }

  function slotFor(client: string | undefined): QuerySlot {
    let state: 'working' | 'parked' | 'resuming' | 'released' = 'working';
    return {
      park() {
        if (state !== 'working' || parked >= maxParked) return;
        state = 'parked';
        parked++;
        free();
      },
      async resume(signal) {
        if (state === 'working') return true;
        if (state !== 'parked' || signal?.aborted) return false;
        if (running < opts.maxConcurrent && resuming.length === 0) {
          running++;
        } else {
          state = 'resuming';
          if (!(await wait(resuming, signal, undefined))) {
            if (state === 'resuming') state = 'parked';
            return false;
          }
          // The slot passed here from free(): `running` already counts it.
          if (state !== 'resuming') return (free(), false);
        }
        parked--;
        state = 'working';
        return true;
      },
      release() {
        if (state === 'released') return;
        const was = state;
        state = 'released';
        count(client, -1);
        if (was === 'working') free();
        else parked--;
      },
    };
  }

  return {
    get running() {
      return running;
    },
    get waiting() {
      return queue.length + keylessWaiting.length;
    },
    get parked() {
      return parked;
    },
    async acquire(signal, client, keyless = false) {
      if (signal?.aborted) return 'aborted';
      if (client !== undefined && (held.get(client) ?? 0) >= maxPerClient) return 'client_share';
      count(client, 1);
      const refuse = (why: GateRefusal): GateRefusal => (count(client, -1), why);
      const waiting = queue.length + keylessWaiting.length;
      if (running < opts.maxConcurrent && resuming.length === 0 && waiting === 0) {
        running++;
        return slotFor(client);
      }
      if (waiting >= opts.maxQueue) return refuse('queue_full');
      if (keyless && keylessWaiting.length >= maxKeyless) return refuse('keyless_share');
      if (await wait(keyless ? keylessWaiting : queue, signal, opts.maxWaitMs)) return slotFor(client);
      return refuse(signal?.aborted ? 'aborted' : 'wait_timeout');
    },
  };
}
