/**
 * Named pipes (FIFOs) for DuckDB's `COPY … TO` to write pages into, reused between queries. Node has no
 * mkfifo(3), so a new pipe costs a `mkfifo` process (a few ms): the pool keeps that off the per-request path.
 * Each pool owns a private directory (mode 700) under the system temp dir, removed by `close`; its name carries
 * the process id, so a later pool removes the directories of a process that was killed before it could close.
 */
import { execFile } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const mkfifo = promisify(execFile);

export interface PipePool {
  /** A pipe no one else is using; give it back with `release` once both ends are closed. */
  acquire(): Promise<string>;
  release(path: string): void;
  /** Pipes handed out and not yet released (for tests: an abandoned page must give its pipe back). */
  readonly inUse: number;
  readonly dir: string;
  close(): void;
}

const PREFIX = 'tributary-pipes-';

export function createPipePool(maxIdle = 16): PipePool {
  removeOrphans();
  const dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  const idle: string[] = [];
  let made = 0;
  let inUse = 0;
  return {
    dir,
    get inUse() {
      return inUse;
    },
    async acquire() {
      const reused = idle.pop();
      if (reused) {
        inUse++;
        return reused;
      }
      const path = join(dir, `p${made++}`);
      try {
        await mkfifo('mkfifo', ['-m', '600', path]);
      } catch (err) {
        throw new Error(`cannot create a named pipe in ${dir} (mkfifo from coreutils is needed): ${(err as Error).message}`);
      }
      inUse++;
      return path;
    },
    release(path) {
      inUse--;
      try {
        // DuckDB may remove a file whose COPY failed: only a pipe that is still there goes back to the pool.
        if (lstatSync(path).isFIFO() && idle.length < maxIdle) {
          idle.push(path);
          return;
        }
      } catch {
        return;
      }
      rmSync(path, { force: true });
    },
    close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The pipe directories of processes that no longer run (SIGKILL, a crash): nothing else would ever remove them. */
function removeOrphans(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(/^tributary-pipes-(\d+)-/.exec(name)?.[1]);
    if (pid && !running(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/** Signal 0 checks that a process exists; EPERM means it does, under another user. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
