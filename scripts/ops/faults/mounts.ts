/**
 * File systems the fault tests mount for themselves: a small tmpfs that fills (a disk that runs out of space) and a
 * bind mount switched read-only and back (a volume remounted read-only under its writers). Real mounts, so the
 * kernel answers ENOSPC and EROFS to DuckDB and Node exactly as a full or read-only volume would; a chmod would not
 * stop root, which the tests may run as.
 *
 * Mounting needs CAP_SYS_ADMIN in the mount namespace the processes under test share (the test, the API and the
 * ingest CLI), so the mounts are made in the test's own namespace and removed by the test. Where that is not
 * allowed (an unprivileged user, a container without the capability), `mountUnavailable()` says why and the tests
 * that need it are skipped with that reason (docs/deployment.md, Faults).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Why this process cannot mount, or undefined when it can (probed once: a 1 MB tmpfs mounted and removed). */
export async function mountUnavailable(): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-mount-probe-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    await run('umount', [dir]);
    return undefined;
  } catch (err) {
    return `cannot mount a tmpfs here (${(err as Error).message.split('\n')[0]}): run the fault tests as root or with CAP_SYS_ADMIN`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Mount {
  readonly path: string;
  /** Unmounts (lazily: a process still holding a file there keeps it until it closes it). */
  remove(): Promise<void>;
}

/** A tmpfs of `bytes` at `path` (created): writes beyond it fail with ENOSPC. */
export async function mountSmallFs(path: string, bytes: number): Promise<Mount> {
  mkdirSync(path, { recursive: true });
  await run('mount', ['-t', 'tmpfs', '-o', `size=${Math.ceil(bytes / 4096) * 4096}`, 'tmpfs', path]);
  return { path, remove: () => unmount(path) };
}

export interface Volume extends Mount {
  /** Every write under `path` fails with EROFS from now on (a process holding a file open for writing: EBUSY). */
  readOnly(): Promise<void>;
  writable(): Promise<void>;
}

/** `dir` bind-mounted at `path` (created), so that it can be switched read-only and back under its readers. */
export async function mountVolume(dir: string, path: string): Promise<Volume> {
  mkdirSync(path, { recursive: true });
  await run('mount', ['--bind', dir, path]);
  return {
    path,
    readOnly: () => run('mount', ['-o', 'remount,bind,ro', path]).then(() => undefined),
    writable: () => run('mount', ['-o', 'remount,bind,rw', path]).then(() => undefined),
    remove: () => unmount(path),
  };
}

async function unmount(path: string): Promise<void> {
  await run('umount', ['-l', path]).catch(() => undefined);
}
