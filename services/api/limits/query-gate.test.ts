import { describe, expect, it } from 'vitest';
import { createQueryGate, keylessQueue, parkingPlaces, perClientShare, type QuerySlot } from './query-gate.js';

const slot = async (p: Promise<QuerySlot | string>): Promise<QuerySlot> => {
  const s = await p;
  if (typeof s !== 'object') throw new Error(`refused: ${s}`);
  return s;
};

describe('createQueryGate', () => {
  it('admits maxConcurrent, queues the next, and passes a released slot to the first waiter', async () => {
    const gate = createQueryGate({ maxConcurrent: 2, maxQueue: 1, maxWaitMs: 60_000 });
    const a = await slot(gate.acquire());
    await slot(gate.acquire());
    const queued = gate.acquire();
    expect(await gate.acquire()).toBe('queue_full');
    expect(gate.waiting).toBe(1);
    a.release();
    await slot(queued);
    expect([gate.running, gate.waiting]).toEqual([2, 0]);
  });

  it('a response parked on its client lets a waiting query run, and takes a slot back ahead of new requests', async () => {
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 4, maxWaitMs: 60_000 });
    const stalled = await slot(gate.acquire());
    const other = gate.acquire();
    stalled.park();
    const working = await slot(other);
    expect([gate.running, gate.parked]).toEqual([1, 1]);

    const back = stalled.resume();
    const newcomer = gate.acquire();
    working.release();
    expect(await back).toBe(true);
    expect([gate.running, gate.parked, gate.waiting]).toEqual([1, 0, 1]);
    stalled.release();
    (await slot(newcomer)).release();
    expect([gate.running, gate.parked]).toEqual([0, 0]);
  });

  it('parks at most maxParked responses: beyond that a waiting response keeps its slot', async () => {
    expect(parkingPlaces(8)).toBe(32);
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 4, maxWaitMs: 60_000, maxParked: 1 });
    const first = await slot(gate.acquire());
    first.park();
    const second = await slot(gate.acquire());
    second.park();
    expect([gate.running, gate.parked]).toEqual([1, 1]);
    expect(await gate.acquire(AbortSignal.timeout(50))).toBe('aborted');
    first.release();
    second.release();
    expect([gate.running, gate.parked]).toEqual([0, 0]);
  });

  it('one client holds at most its share of the slots, working or parked; others still get theirs', async () => {
    expect(perClientShare(8)).toBe(2);
    expect(perClientShare(1)).toBe(1);
    const gate = createQueryGate({ maxConcurrent: 8, maxQueue: 4, maxWaitMs: 60_000 });
    const mine = [await slot(gate.acquire(undefined, 'k1')), await slot(gate.acquire(undefined, 'k1'))];
    mine[0]!.park();
    expect(await gate.acquire(undefined, 'k1')).toBe('client_share');
    const theirs = await slot(gate.acquire(undefined, 'k2'));
    mine[1]!.release();
    (await slot(gate.acquire(undefined, 'k1'))).release();
    for (const s of [mine[0]!, theirs]) s.release();
    expect([gate.running, gate.parked]).toEqual([0, 0]);
  });

  it('a resume abandoned by its client gives the slot it would have had to the next in line', async () => {
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 4, maxWaitMs: 60_000 });
    const stalled = await slot(gate.acquire());
    stalled.park();
    const working = await slot(gate.acquire());
    const leaving = new AbortController();
    const back = stalled.resume(leaving.signal);
    leaving.abort();
    expect(await back).toBe(false);
    stalled.release();
    const next = gate.acquire();
    working.release();
    (await slot(next)).release();
    expect([gate.running, gate.parked, gate.waiting]).toEqual([0, 0, 0]);
  });

  it('keyless calls hold at most their share of the queue, and a keyed request waiting goes before them (issue 56 item 5)', async () => {
    expect([keylessQueue(64), keylessQueue(1), keylessQueue(0)]).toEqual([32, 1, 0]);
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 4, maxWaitMs: 60_000 });
    const first = await slot(gate.acquire(undefined, 'browser:a', true));
    const keyless = [gate.acquire(undefined, 'browser:b', true), gate.acquire(undefined, 'browser:c', true)];
    expect(await gate.acquire(undefined, 'browser:d', true)).toBe('keyless_share');
    const keyed = gate.acquire(undefined, 'key:k');
    expect(gate.waiting).toBe(3);
    const order: string[] = [];
    for (const [name, p] of [['keyed', keyed], ['b', keyless[0]!], ['c', keyless[1]!]] as const) void p.then(() => order.push(name));
    first.release();
    (await slot(keyed)).release();
    (await slot(keyless[0]!)).release();
    (await slot(keyless[1]!)).release();
    expect(order).toEqual(['keyed', 'b', 'c']);
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
  });

  it('a full queue still refuses a keyed request: the share bounds keyless calls, it adds no places', async () => {
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 2, maxWaitMs: 60_000 });
    await slot(gate.acquire(undefined, 'key:a'));
    void gate.acquire(undefined, 'key:b');
    void gate.acquire(undefined, 'browser:c', true);
    expect(await gate.acquire(undefined, 'key:d')).toBe('queue_full');
  });
});
