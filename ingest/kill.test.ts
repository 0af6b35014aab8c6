import { spawn } from 'node:child_process';
import { existsSync, watch } from 'node:fs';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runIngest } from './pipeline.js';
import { runRemove } from './remove.js';
import { plainFilesDir } from '../schemas/publication-files.js';
import { cliArgs, copyFixtures, copyPublishedFile, dumpTables, listedFilesMissing, tableFingerprints, tempDir } from './test-support.js';

const root = new URL('..', import.meta.url).pathname;

/**
 * The steps of a publish onto a published file, each the appearance of a name that the test is told of by
 * inotify (fs.watch) and kills the CLI at: no delay to guess, and every step is hit on every run.
 */
const KILL_POINTS = {
  /** The copy of the published file that the change is merged into (merge.ts, startCopy). */
  copy: { dir: dirname, is: (name: string, db: string, pid: number) => name === `${basename(db)}.tmp-${pid}` },
  /** The delta build, which the load, derive and statistics stages write (publish.ts, openBuild). */
  build: { dir: dirname, is: (name: string, db: string, pid: number) => name === `${basename(db)}.tmp-${pid}-delta` },
  /** A dataset file while DuckDB writes it, before it is hashed and renamed (dataset-files.ts). */
  file: { dir: plainFilesDir, is: (name: string, _db: string, pid: number) => name.startsWith(`.tmp-${pid}-`) },
  /** The merged copy renamed over DUCKDB_PATH: the new publication is in place, its clean-up not yet done. */
  rename: { dir: dirname, is: (name: string, db: string) => name === basename(db) },
} as const;
type KillPoint = keyof typeof KILL_POINTS;

/** Runs the CLI on `db` and SIGKILLs it when `point` happens, resolving once it died: whether the kill ended it. */
function killAt(point: KillPoint, args: readonly string[], env: NodeJS.ProcessEnv, db: string): Promise<{ killed: boolean }> {
  const { dir, is } = KILL_POINTS[point];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArgs(args), { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
    // Watching from the tick that spawned it: the child is still starting Node, far from its first file.
    const watcher = watch(dir(db), (_event, name) => {
      if (name && is(name, db, child.pid!)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      watcher.close();
      resolve({ killed: signal === 'SIGKILL' });
    });
  });
}

describe('an ingest killed midway', () => {
  it('leaves the published file intact and does not break the next ingest', async () => {
    const dir = await tempDir();
    const dbDir = join(dir, 'db');
    const db = join(dbDir, 'tributary.duckdb');
    const first = await runIngest({ src: await copyFixtures(join(dir, 'fixtures')), duckdbPath: db });
    expect(first.published).toBe(true);
    const before = await dumpTables(db);

    // Two of the sample hub's datasets, new to this file: killed while it builds them.
    const big = join(dir, 'new');
    const hub = inject('sampleHub').src;
    for (const name of (await readdir(hub)).filter((n) => !n.startsWith('.')).sort().slice(0, 2)) await cp(join(hub, name), join(big, name), { recursive: true });
    expect((await killAt('build', ['ingest'], { SRC: big, DUCKDB_PATH: db }, db)).killed).toBe(true);
    expect(await dumpTables(db)).toEqual(before);
    expect((await readdir(dbDir)).some((n) => n.includes('.tmp-'))).toBe(true);

    // Killed while it writes the dataset files: none of them is listed, every listed one is complete.
    expect((await killAt('file', ['ingest'], { SRC: big, DUCKDB_PATH: db }, db)).killed).toBe(true);
    expect(await dumpTables(db)).toEqual(before);
    expect(await listedFilesMissing(db)).toEqual([]);
    expect((await readdir(plainFilesDir(db))).some((n) => n.startsWith('.tmp-'))).toBe(true);

    // The next ingest removes the dead process's temp files and publishes.
    const next = await runIngest({ src: join(dir, 'fixtures'), duckdbPath: db });
    expect(next.published).toBe(true);
    expect(await dumpTables(db)).toEqual(before);
    expect((await readdir(dbDir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect((await readdir(plainFilesDir(db))).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    expect(await listedFilesMissing(db)).toEqual([]);
    expect(existsSync(`${db}.wal`)).toBe(false);
  }, 180_000);
});

describe('an incremental publish killed at each of its steps', () => {
  it('leaves either the previous publication or the complete new one, and no temp file after the next run', async () => {
    const dir = await tempDir();
    const dbDir = join(dir, 'db');
    const db = join(dbDir, 'tributary.duckdb');
    const hub = inject('sampleHub');
    await copyPublishedFile(hub.duckdbPath, db);
    const pool = hub.src;
    const [first, second, ...rest] = (await readdir(pool)).filter((n) => !n.startsWith('.')).sort();
    const only = async (name: string, edit = false) => {
      const src = join(dir, `src-${name}`);
      await cp(join(pool, name), join(src, name), { recursive: true });
      // A new version: the last ten rows of its CSV gone.
      const csv = join(src, name, `${name}.csv`);
      if (edit) await writeFile(csv, `${(await readFile(csv, 'utf8')).trimEnd().split('\n').slice(0, -10).join('\n')}\n`);
      return src;
    };
    await runRemove({ duckdbPath: db, doi: await doiOf(join(pool, first!)) });

    // Each trial: a change (re-add the removed dataset, remove another, replace a third), run to the end in this
    // process for the state it publishes, then by the CLI killed at each of its steps from the same start: killed
    // before the rename the previous publication is intact, after it the complete new one is in place.
    const add = await only(first!);
    const replace = await only(rest[0]!, true);
    const removed = await doiOf(join(pool, second!));
    const trials: { args: string[]; env: NodeJS.ProcessEnv; alone: () => Promise<{ published: boolean }>; points: KillPoint[] }[] = [
      { args: ['ingest'], env: { SRC: add }, alone: () => runIngest({ src: add, duckdbPath: db }), points: ['copy', 'build', 'file', 'rename'] },
      { args: ['remove', removed], env: {}, alone: () => runRemove({ duckdbPath: db, doi: removed }), points: ['copy', 'rename'] },
      { args: ['ingest'], env: { SRC: replace }, alone: () => runIngest({ src: replace, duckdbPath: db }), points: ['copy', 'build', 'file', 'rename'] },
    ];
    for (const trial of trials) {
      const before = await tableFingerprints(db);
      const backup = `${db}.backup`;
      await cp(db, backup);
      expect((await trial.alone()).published).toBe(true);
      const after = await tableFingerprints(db);
      expect(after).not.toEqual(before);
      for (const point of trial.points) {
        await cp(backup, db);
        const { killed } = await killAt(point, trial.args, { DUCKDB_PATH: db, ...trial.env }, db);
        expect(killed, `${trial.args.join(' ')} killed at ${point}`).toBe(true);
        expect(await tableFingerprints(db), `${trial.args.join(' ')} killed at ${point}`).toEqual(point === 'rename' ? after : before);
        expect(await listedFilesMissing(db)).toEqual([]);
        expect(existsSync(`${db}.wal`)).toBe(false);
      }
      await rm(backup);
    }

    // The next run removes what killed runs left behind.
    expect((await runIngest({ src: await only(rest[1]!), duckdbPath: db })).published).toBe(true);
    expect((await readdir(dbDir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect((await readdir(plainFilesDir(db))).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    expect(await listedFilesMissing(db)).toEqual([]);
  }, 180_000);
});

async function doiOf(folder: string): Promise<string> {
  return (JSON.parse(await readFile(join(folder, 'metadata.json'), 'utf8')) as { DOI: string }).DOI;
}
