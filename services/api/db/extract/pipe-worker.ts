/**
 * The body of a pipe's reading thread (pipe-thread.ts), typed and checked here like any other code. The worker runs
 * it from its source text (`pipeWorkerSource`): no file to resolve, the same under vitest, tsx and the compiled
 * build, and no TypeScript loader started per thread (a worker starts with every cursor). So `readPipe` uses nothing
 * but its argument: no imports, nothing of this module's scope.
 */
import type { readSync } from 'node:fs';
import type { MessagePort, receiveMessageOnPort } from 'node:worker_threads';

/** The slots of the state shared with the event loop (an Int32Array over a SharedArrayBuffer). */
export const SLOT = {
  /** 1 while paused. */
  paused: 0,
  /** 1 once discarding: read and drop everything until end-of-file. */
  discard: 1,
  /** Bytes posted and not yet received. */
  inFlight: 2,
  /** 1 when the process exits. */
  stop: 3,
  /** Buffers the thread has allocated (spares reused are not counted). */
  allocated: 4,
} as const;
export const SLOTS = Object.keys(SLOT).length;

export interface PipeWorkerData {
  /** The caller's non-blocking read end. */
  readonly fd: number;
  /** A blocking read end of the same pipe. */
  readonly blocking: number;
  /** Bytes gathered per message. */
  readonly chunk: number;
  /** Bytes posted and not yet taken before the thread waits. */
  readonly inFlight: number;
  readonly state: SharedArrayBuffer;
  /** Where buffers the event loop is done with come back. */
  readonly spares: MessagePort;
  readonly slot: typeof SLOT;
}

export type PipeWorkerMessage = { readonly data: ArrayBuffer; readonly length: number } | { readonly end: true } | { readonly error: string };

export interface PipeWorkerEnv {
  readonly workerData: PipeWorkerData;
  readonly post: (message: PipeWorkerMessage, transfer?: ArrayBuffer[]) => void;
  readonly receiveMessageOnPort: typeof receiveMessageOnPort;
  readonly readSync: typeof readSync;
}

/**
 * Waits for data on the blocking read end without polling, then takes whatever else is already in the pipe through
 * the non-blocking one, so one message carries up to a chunk. Messages wait in a queue until the event loop takes
 * them: bounded by `inFlight`, or the queue would be the read-ahead.
 */
export function readPipe({ workerData, post, receiveMessageOnPort, readSync }: PipeWorkerEnv): void {
  const { fd, blocking, chunk, inFlight, spares, slot } = workerData;
  const state = new Int32Array(workerData.state);
  const free: ArrayBuffer[] = [];
  const nextBuffer = (): Buffer => {
    for (let m = receiveMessageOnPort(spares); m; m = receiveMessageOnPort(spares)) free.push(m.message as ArrayBuffer);
    const spare = free.pop();
    if (spare) return Buffer.from(spare);
    Atomics.add(state, slot.allocated, 1);
    return Buffer.allocUnsafeSlow(chunk);
  };
  const more = (buf: Buffer, at: number): number => {
    try {
      return readSync(fd, buf, at, buf.length - at, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return -1;
      throw err;
    }
  };
  const stopped = () => Atomics.load(state, slot.stop) === 1;
  try {
    for (let ended = false; !ended; ) {
      while (Atomics.load(state, slot.paused) === 1 && !stopped()) Atomics.wait(state, slot.paused, 1);
      for (let q = Atomics.load(state, slot.inFlight); q >= inFlight && Atomics.load(state, slot.discard) === 0 && !stopped(); q = Atomics.load(state, slot.inFlight)) {
        Atomics.wait(state, slot.inFlight, q);
      }
      if (stopped()) break;
      const buf = nextBuffer();
      let filled = readSync(blocking, buf, 0, chunk, null);
      if (filled === 0 || stopped()) break;
      while (filled < chunk) {
        const n = more(buf, filled);
        if (n === 0) ended = true;
        if (n <= 0) break;
        filled += n;
      }
      if (Atomics.load(state, slot.discard) === 0) {
        Atomics.add(state, slot.inFlight, filled);
        const data = buf.buffer as ArrayBuffer;
        post({ data, length: filled }, [data]);
      }
    }
    post({ end: true });
  } catch (err) {
    post({ error: String(err instanceof Error ? err.message : err) });
  }
}

/** The worker's source: `readPipe` called with the worker's own modules. */
export function pipeWorkerSource(): string {
  return [
    `const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');`,
    `const { readSync } = require('node:fs');`,
    // A transpiler may wrap named functions in a naming helper (esbuild's keepNames, which tsx uses).
    `const __name = (f) => f;`,
    `(${readPipe.toString()})({ workerData, post: (m, t) => parentPort.postMessage(m, t), receiveMessageOnPort, readSync });`,
  ].join('\n');
}
