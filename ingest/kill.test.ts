import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIngest } from './pipeline.js';
import { runRemove } from './remove.js';
import { plainFilesDir } from '../schemas/publication-files.js';
import { copyFixtures, dumpTables, listedFilesMissing, tempDir } from './test-support.js';

const root = new URL('..', import.meta.url).pathname;

/**
 * Spawns the CLI and SIGKILLs it once a temp file of its own exists in `dbDir` (its build: mid-build; the files
 * folder: while it writes a dataset file), resolving when it died.
 */
function ingestAndKill(env: NodeJS.ProcessEnv, dbDir: string): Promise<{ killedMidway: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'ingest/main.ts', 'ingest'], { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
    let killedMidway = false;
    const poll = setInterval(async () => {
      const names = await readdir(dbDir).catch(() => [] as string[]);
      if (names.some((n) => n.includes(`.tmp-${child.pid}`))) {
        killedMidway = true;
        child.kill('SIGKILL');
      }
    }, 20);
    child.on('error', reject);
    child.on('exit', () => {
      clearInterval(poll);
      resolve({ killedMidway });
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

    const big = join(dir, 'big');
    const gen = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/sample/main.ts'], { cwd: root, env: { ...process.env, ROWS: '100000', OUT: big }, encoding: 'utf8' });
    expect(gen.status, gen.stderr).toBe(0);
    const { killedMidway } = await ingestAndKill({ SRC: big, DUCKDB_PATH: db }, dbDir);
    expect(killedMidway).toBe(true);

    expect(await dumpTables(db)).toEqual(before);
    expect((await readdir(dbDir)).some((n) => n.includes('.tmp-'))).toBe(true);

    // Killed while it writes the dataset files: none of them is listed, every listed one is complete.
    const killedWriting = await ingestAndKill({ SRC: big, DUCKDB_PATH: db }, plainFilesDir(db));
    expect(killedWriting.killedMidway).toBe(true);
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
  });
});

/**
 * Runs the CLI; with `killAfterMs`, SIGKILLs it that long after its publish lock exists (the run has started work:
 * a kill during the process's start-up would test nothing). Resolves with when the lock appeared, the whole run's
 * time and whether it was killed.
 */
function runAndKill(args: string[], env: NodeJS.ProcessEnv, db: string, killAfterMs?: number): Promise<{ killed: boolean; code: number | null; startMs: number; fullMs: number }> {
  return new Promise((resolve, reject) => {
    // A killed run leaves its holder note behind; this run writes its own once it holds the lock.
    rmSync(`${db}.lock.json`, { force: true });
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'ingest/main.ts', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
    let startMs = NaN;
    let timer: NodeJS.Timeout | undefined;
    const poll = setInterval(() => {
      if (!Number.isNaN(startMs) || !existsSync(`${db}.lock.json`)) return;
      startMs = performance.now() - t0;
      if (killAfterMs !== undefined) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    }, 5);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ killed: signal === 'SIGKILL', code, startMs, fullMs: performance.now() - t0 });
    });
  });
}

describe('an incremental publish killed at a random point', () => {
  it('leaves either the previous publication or the complete new one, and no temp file after the next run', async () => {
    const dir = await tempDir();
    const dbDir = join(dir, 'db');
    const db = join(dbDir, 'tributary.duckdb');
    const pool = join(dir, 'pool');
    const gen = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/sample/main.ts'], { cwd: root, env: { ...process.env, ROWS: '60000', OUT: pool, SEED: '3' }, encoding: 'utf8' });
    expect(gen.status, gen.stderr).toBe(0);
    const [first, second, ...rest] = (await readdir(pool)).filter((n) => !n.startsWith('.')).sort();
    const only = async (name: string, edit = false) => {
      const src = join(dir, `src-${name}`);
      await cp(join(pool, name), join(src, name), { recursive: true });
      // A new version: the last ten rows of its CSV gone.
      const csv = join(src, name, `${name}.csv`);
      if (edit) await writeFile(csv, `${(await readFile(csv, 'utf8')).trimEnd().split('\n').slice(0, -10).join('\n')}\n`);
      return src;
    };
    expect((await runIngest({ src: pool, duckdbPath: db })).published).toBe(true);
    await runRemove({ duckdbPath: db, doi: await doiOf(join(pool, first!)) });

    // Each trial: a change (re-add the removed dataset, or remove another), killed after a seeded delay within
    // the time it takes when left alone; the outcome must be one of the two complete states.
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const trials = [
      { args: ['ingest'], env: { SRC: await only(first!) } },
      { args: ['remove', await doiOf(join(pool, second!))], env: {} },
      { args: ['ingest'], env: { SRC: await only(rest[0]!, true) } },
    ];
    let killedMidway = 0;
    for (const trial of trials) {
      const before = await dumpTables(db);
      const backup = `${db}.backup`;
      await cp(db, backup);
      const alone = await runAndKill(trial.args, { DUCKDB_PATH: db, ...trial.env }, db);
      expect(alone.code).toBe(0);
      const after = await dumpTables(db);
      expect(after).not.toEqual(before);
      // Kill points within the work itself (after the lock is taken, before the run would end).
      const workMs = Number.isNaN(alone.startMs) ? alone.fullMs : alone.fullMs - alone.startMs;
      for (let k = 0; k < 2; k++) {
        await cp(backup, db);
        const { killed } = await runAndKill(trial.args, { DUCKDB_PATH: db, ...trial.env }, db, Math.round(random() * workMs));
        const now = await dumpTables(db);
        if (killed && JSON.stringify(now) === JSON.stringify(before)) killedMidway++;
        expect([before, after]).toContainEqual(now);
        expect(await listedFilesMissing(db)).toEqual([]);
        expect(existsSync(`${db}.wal`)).toBe(false);
      }
      await rm(backup);
    }
    expect(killedMidway).toBeGreaterThan(0);

    // The next run removes what killed runs left behind.
    expect((await runIngest({ src: await only(rest[1]!), duckdbPath: db })).published).toBe(true);
    expect((await readdir(dbDir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect((await readdir(plainFilesDir(db))).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    expect(await listedFilesMissing(db)).toEqual([]);
  }, 240_000);
});

async function doiOf(folder: string): Promise<string> {
  return (JSON.parse(await readFile(join(folder, 'metadata.json'), 'utf8')) as { DOI: string }).DOI;
}
