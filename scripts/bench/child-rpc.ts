/**
 * Requests to a bench child process over its IPC channel (the DuckDB child and the measuring client), one at a
 * time and in order: the parent awaits each answer before it measures anything else, and every figure is timed
 * in the child that does the work.
 */
import { fork, type ChildProcess } from 'node:child_process';

type ToParent = { readonly ready: unknown } | { readonly id: number; readonly value?: unknown; readonly error?: string; readonly progress?: unknown };

export interface Child<Req, Progress = never> {
  /** What the child sent with its `ready` message. */
  readonly ready: unknown;
  /** Sends `req`; `onProgress` sees what the child reports before it answers. */
  ask<T>(req: Req, onProgress?: (p: Progress) => void): Promise<T>;
  /** Disconnects: the child finishes and exits. */
  close(): void;
}

/** Forks `module` through tsx and waits for its `ready`; `name` says which process died in errors. */
export async function forkChild<Req extends object, Progress = never>(module: URL, args: readonly string[], execArgv: readonly string[], name: string): Promise<Child<Req, Progress>> {
  const child: ChildProcess = fork(module.pathname, [...args], {
    execArgv: ['--import', 'tsx', ...execArgv],
    serialization: 'advanced', // bigints, buffers and nested values as they are
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; onProgress?: (p: Progress) => void }>();
  let next = 0;
  let gone: Error | undefined;
  const ready = await new Promise<unknown>((resolve, reject) => {
    child.on('message', (m: ToParent) => {
      if ('ready' in m) return resolve(m.ready);
      const w = waiting.get(m.id);
      if (m.progress !== undefined) return w?.onProgress?.(m.progress as Progress);
      waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(m.error));
      else w?.resolve(m.value);
    });
    child.once('exit', (code) => {
      gone = new Error(`the bench's ${name} process exited with ${code}`);
      reject(gone);
      for (const w of waiting.values()) w.reject(gone);
      waiting.clear();
    });
  });
  return {
    ready,
    ask: <T>(req: Req, onProgress?: (p: Progress) => void) =>
      new Promise<T>((resolve, reject) => {
        if (gone) return reject(gone);
        const id = next++;
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, onProgress });
        child.send({ ...req, id });
      }),
    close: () => {
      if (child.connected) child.disconnect();
    },
  };
}

/**
 * The child's side: answers each request in turn (`progress` reports to the request's `onProgress`), tells the
 * parent `ready`, and runs `closing` once the parent disconnects, then exits.
 */
export function serveParent<Req, Progress = never>(answer: (req: Req, progress: (p: Progress) => void) => Promise<unknown>, ready: unknown, closing: () => unknown): void {
  let queue: Promise<unknown> = Promise.resolve();
  process.on('message', (req: Req & { id: number }) => {
    const progress = (p: Progress) => process.send!({ id: req.id, progress: p });
    queue = queue.then(() =>
      answer(req, progress).then(
        (value) => process.send!({ id: req.id, value }),
        (err: unknown) => process.send!({ id: req.id, error: err instanceof Error ? err.message : String(err) }),
      ),
    );
  });
  process.on('disconnect', () => {
    void Promise.resolve()
      .then(closing)
      .finally(() => process.exit(0));
  });
  process.send!({ ready });
}
