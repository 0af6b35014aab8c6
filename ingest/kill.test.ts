import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIngest } from './pipeline.js';
import { copyFixtures, dumpTables, tempDir } from './test-support.js';

const root = new URL('..', import.meta.url).pathname;

/** Spawns the CLI and SIGKILLs it once its temp file exists (i.e. mid-build), resolving when it died. */
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
    const gen = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/sample/main.ts'], { cwd: root, env: { ...process.env, ROWS: '300000', OUT: big }, encoding: 'utf8' });
    expect(gen.status, gen.stderr).toBe(0);
    const { killedMidway } = await ingestAndKill({ SRC: big, DUCKDB_PATH: db }, dbDir);
    expect(killedMidway).toBe(true);

    expect(await dumpTables(db)).toEqual(before);
    expect((await readdir(dbDir)).some((n) => n.includes('.tmp-'))).toBe(true);

    // The next ingest removes the dead process's temp file and publishes.
    const next = await runIngest({ src: join(dir, 'fixtures'), duckdbPath: db });
    expect(next.published).toBe(true);
    expect(await dumpTables(db)).toEqual(before);
    expect((await readdir(dbDir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect(existsSync(`${db}.wal`)).toBe(false);
  });
});
