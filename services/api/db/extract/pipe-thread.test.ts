/** The pipe's thread on real named pipes: every byte in order, back-pressure when paused, nothing kept after discard. */
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPipePool, type PipePool } from './pipe-pool.js';
import { PipeThread } from './pipe-thread.js';
import { pipeWorkerSource } from './pipe-worker.js';

let pipes: PipePool;
beforeAll(() => {
  pipes = createPipePool();
});
afterAll(() => pipes.close());

/** A reader thread and a non-blocking writer on a fresh pipe, opened in the order COPY's caller opens them. */
async function pipeWithThread(options?: ConstructorParameters<typeof PipeThread>[2]) {
  const path = await pipes.acquire();
  const readEnd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  const thread = new PipeThread(readEnd, path, options);
  const received: Buffer[] = [];
  thread.on('data', (b: Buffer) => received.push(b));
  const ended = new Promise<void>((resolve) => thread.once('end', resolve));
  return { path, thread, writer, received, ended };
}

/** Writes as much as the pipe takes without blocking; returns the bytes written. */
function fill(fd: number, byte: number): number {
  const block = Buffer.alloc(4096, byte);
  let total = 0;
  for (;;) {
    try {
      total += writeSync(fd, block);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return total;
      throw err;
    }
  }
}

/** Writes every byte, waiting while the pipe is full, then closes the write end. */
async function writeAll(fd: number, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at, Math.min(8192, bytes.length - at));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      await new Promise((r) => setTimeout(r, 1));
    }
  }
  closeSync(fd);
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  return ok();
};

describe('PipeThread', () => {
  it('hands over every byte in order and ends when the last writer closes', async () => {
    const { path, thread, writer, received, ended } = await pipeWithThread({ chunk: 1000 });
    const text = Array.from({ length: 20_000 }, (_, i) => `${i}\n`).join('');
    await writeAll(writer, Buffer.from(text));
    await ended;
    expect(Buffer.concat(received).toString()).toBe(text);
    expect(Math.max(...received.map((b) => b.length))).toBeLessThanOrEqual(1000);
    await thread.finished;
    pipes.release(path);
  });

  it('stops reading while paused, so a writer meets a full pipe; reads again on resume', async () => {
    const { path, thread, writer, received, ended } = await pipeWithThread();
    thread.pause();
    await new Promise((r) => setTimeout(r, 50));
    const first = fill(writer, 1); // the thread may take one read before it sees the pause
    await new Promise((r) => setTimeout(r, 100));
    expect(fill(writer, 2)).toBe(0);
    thread.resume();
    expect(await until(() => received.reduce((n, b) => n + b.length, 0) >= first)).toBe(true);
    closeSync(writer);
    await ended;
    await thread.finished;
    pipes.release(path);
  });

  it('bounds what is in flight: with nobody taking messages the pipe fills', async () => {
    const { path, thread, writer } = await pipeWithThread({ chunk: 4096, inFlight: 16 * 1024 });
    // The event loop is kept from taking messages by this synchronous loop: the thread stops after ~16 KiB and
    // the writer then meets a full pipe instead of an ever-growing queue.
    const deadline = Date.now() + 200;
    let written = 0;
    while (Date.now() < deadline) written += fill(writer, 3);
    expect(written).toBeLessThan(16 * 1024 + 4096 + 1024 * 1024 + 1);
    thread.discard();
    closeSync(writer);
    await thread.finished;
    pipes.release(path);
  });

  it('fills buffers given back again instead of allocating new ones', async () => {
    const { path, thread, writer, received, ended } = await pipeWithThread({ chunk: 4096 });
    let bytes = 0;
    let detached = true;
    thread.on('data', (b: Buffer) => {
      bytes += b.length;
      thread.recycle(b);
      detached &&= b.length === 0; // its memory went back to the thread
    });
    const total = 4096 * 2000;
    await writeAll(writer, Buffer.alloc(total, 5));
    await ended;
    expect(bytes).toBe(total);
    expect(detached).toBe(true);
    // Without recycling every read is a new buffer; with it, only as many as were in flight at once.
    expect(received.length).toBeGreaterThanOrEqual(2000);
    expect(thread.allocated).toBeLessThan(received.length / 4);
    await thread.finished;
    pipes.release(path);
  });

  it('discard drops everything still to come and the thread ends at end-of-file', async () => {
    const { path, thread, writer, received } = await pipeWithThread();
    thread.discard();
    fill(writer, 4);
    closeSync(writer);
    await thread.finished;
    expect(received).toEqual([]);
    pipes.release(path);
  });
});

describe('stopPipeThreadsOnExit', () => {
  it('importing the module registers no exit hook; the call registers one, once', async () => {
    vi.resetModules();
    const before = process.listenerCount('exit');
    const fresh = await import('./pipe-thread.js');
    expect(process.listenerCount('exit')).toBe(before);
    fresh.stopPipeThreadsOnExit();
    fresh.stopPipeThreadsOnExit();
    expect(process.listenerCount('exit')).toBe(before + 1);
  });

  it('the worker runs from its source alone: it names no module but worker_threads and fs', () => {
    const required = [...pipeWorkerSource().matchAll(/require\((['"])(.*?)\1\)/g)].map((m) => m[2]);
    expect(required).toEqual(['node:worker_threads', 'node:fs']);
    expect(pipeWorkerSource()).not.toMatch(/\bimport\b/);
  });
});
