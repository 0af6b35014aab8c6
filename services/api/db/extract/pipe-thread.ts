/**
 * Reads a named pipe on a worker thread, for a cursor's long-running COPY (db/extract/cursor.ts).
 *
 * Why: a Linux pipe holds 64 KiB, about 40 rows of Records JSON. Read on the event loop, the pipe is drained only
 * when the loop is free, so DuckDB's single render thread stalled whenever this process was writing a batch to
 * the socket or collecting garbage. A larger pipe would help, but resizing one needs fcntl, which Node cannot call.
 * A thread that does nothing but drain the pipe into the cursor's read-ahead decouples the renderer from the event
 * loop (docs/performance.md, Alternatives measured and rejected). It costs a worker's memory while a cursor is open.
 *
 * The thread waits for data on a blocking read end, then takes what else the pipe holds through the caller's
 * non-blocking one, up to 64 KiB per message (polling the non-blocking end instead capped the extract below the event
 * loop's rate). Messages wait until the event loop takes them, which it does between writes of a page to the socket:
 * up to 8 MiB may be in flight before the thread waits (less starves the renderer again), as much as the cursor's own
 * read-ahead (cursor.ts READ_AHEAD). `pause()` stops it reading (the pipe fills and blocks DuckDB's writer: the
 * read-ahead's back-pressure); `discard()` makes it read and drop everything until end-of-file, which comes once
 * every write end is closed. The descriptors are closed when the thread has ended.
 */
import { EventEmitter } from 'node:events';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { pipeWorkerSource, SLOT, SLOTS, type PipeWorkerData, type PipeWorkerMessage } from './pipe-worker.js';

const { paused: PAUSED, discard: DISCARD, inFlight: IN_FLIGHT, stop: STOP, allocated: ALLOCATED } = SLOT;
/** Built once: the same text for every thread. */
let workerSource: string | undefined;

export interface PipeThreadOptions {
  /** Bytes gathered per message. */
  readonly chunk?: number;
  /** Bytes posted and not yet taken by the event loop before the thread waits (on top of the read-ahead). */
  readonly inFlight?: number;
}

const live = new Set<PipeThread>();
let exitHooked = false;

/**
 * Makes every pipe thread still running end when the process exits: Node joins worker threads on exit, and one
 * blocked in read() would hold the process. Called by main.ts (the one file with side effects); idempotent.
 */
export function stopPipeThreadsOnExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const thread of live) thread.stopNow();
  });
}

/** The reading end of a pipe, as the subset of a socket's events and flow control that cursors use. */
export class PipeThread extends EventEmitter {
  private readonly state = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  private readonly worker: Worker;
  private readonly path: string;
  private readonly chunk: number;
  /** Where spent buffers go back to the thread. */
  private readonly spares: MessagePort;
  /** Settles when the thread has ended (the descriptor is closed). */
  readonly finished: Promise<void>;

  /**
   * Takes over `fd`, a non-blocking read end of the pipe at `path`, and opens a blocking one beside it: call it
   * once a write end is open (the open waits for a writer). Both are closed once the thread has ended.
   */
  constructor(fd: number, path: string, options: PipeThreadOptions = {}) {
    super();
    const blocking = openSync(path, constants.O_RDONLY);
    // An error after the consumer has gone has nobody left to tell (as for the socket reader).
    this.on('error', () => {});
    this.chunk = options.chunk ?? 64 * 1024;
    const { port1, port2 } = new MessageChannel();
    this.spares = port1;
    const workerData: PipeWorkerData = {
      fd,
      blocking,
      chunk: this.chunk,
      inFlight: options.inFlight ?? 8 * 1024 * 1024,
      state: this.state.buffer as SharedArrayBuffer,
      spares: port2,
      slot: SLOT,
    };
    this.worker = new Worker((workerSource ??= pipeWorkerSource()), {
      eval: true,
      workerData,
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
      stdout: false,
      stderr: false,
    });
    this.worker.unref();
    live.add(this);
    this.path = path;
    this.worker.on('message', (m: PipeWorkerMessage) => {
      if ('data' in m) {
        Atomics.sub(this.state, IN_FLIGHT, m.length);
        Atomics.notify(this.state, IN_FLIGHT);
        this.emit('data', Buffer.from(m.data, 0, m.length));
      } else if ('end' in m) this.emit('end');
      else this.emit('error', new Error(`reading the pipe: ${m.error}`));
    });
    this.finished = new Promise((resolve) => {
      this.worker.once('error', (err) => this.emit('error', err));
      // Closed here, where they were opened (Node warns when another thread closes them).
      this.worker.once('exit', () => {
        live.delete(this);
        this.spares.close();
        closeSync(blocking);
        closeSync(fd);
        resolve();
      });
    });
  }

  pause(): this {
    this.set(PAUSED, 1);
    return this;
  }

  resume(): this {
    this.set(PAUSED, 0);
    return this;
  }

  /** Buffers allocated so far (for tests: recycled ones are filled again instead). */
  get allocated(): number {
    return Atomics.load(this.state, ALLOCATED);
  }

  isPaused(): boolean {
    return Atomics.load(this.state, PAUSED) === 1;
  }

  /**
   * Gives a buffer this thread emitted back to be filled again, once nothing refers to it any more (its memory
   * moves to the thread: every view of it becomes empty). Without this each 64 KiB read was a new allocation that
   * waited for the garbage collector: a whole page's bytes per page.
   */
  recycle(read: Buffer): void {
    if (read.byteOffset !== 0 || read.buffer.byteLength !== this.chunk || Atomics.load(this.state, DISCARD) === 1) return;
    const buffer = read.buffer as ArrayBuffer;
    this.spares.postMessage(buffer, [buffer]);
  }

  /** Fails the reader (the COPY failed): the error is reported and everything still to come is dropped. */
  destroy(err?: Error): void {
    if (err) this.emit('error', err);
    this.discard();
  }

  /** Drops everything still to come; the thread ends at end-of-file. */
  discard(): void {
    this.removeAllListeners('data');
    this.set(DISCARD, 1);
    this.resume();
  }

  /**
   * Makes the thread end now, from the process's exit (stopPipeThreadsOnExit): Node joins worker threads on exit,
   * and one blocked in read() would hold the process. Shutdown closes cursors first (db/database.ts), so this only
   * matters when that timed out. Wakes its waits, and a blocked read with one byte.
   */
  stopNow(): void {
    this.set(STOP, 1);
    try {
      const fd = openSync(this.path, constants.O_WRONLY | constants.O_NONBLOCK);
      try {
        writeSync(fd, '\n');
      } finally {
        closeSync(fd);
      }
    } catch {
      // No reader left or the pipe is full: the thread is not blocked in read().
    }
  }

  private set(slot: number, value: number): void {
    Atomics.store(this.state, slot, value);
    Atomics.notify(this.state, PAUSED);
    Atomics.notify(this.state, IN_FLIGHT);
  }
}
