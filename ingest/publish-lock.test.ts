import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIngest } from './pipeline.js';
import { acquirePublishLock } from './publish-lock.js';
import { copyFixtures, copyPublishedFile, dumpTables, publishedDois, startCli, tempDir, type CliRun } from './test-support.js';

/**
 * Publishes on one DUCKDB_PATH, as real processes at once: each must find the other's change published, or be
 * refused with the lock's message (exit 3) while the other's change is there. Never one change silently lost.
 */

const ALPHA = '10.25976/alph-aa11';
const BETA = '10.25976/beta-bb22';
const GAMMA = '10.25976/gamm-cc33';
const REFUSED = /^refused: another publish holds \S+\.lock: pid \d+ on .+ since .+ Gave up after \d+ ms \(INGEST_LOCK_TIMEOUT_MS\); nothing was published\./m;

/** The fixtures published once per base, copied for each test: the runs under test each change their own copy. */
const bases = new Map<string, Promise<string>>();
function base(datasets: readonly string[]): Promise<string> {
  const key = datasets.join(',');
  if (!bases.has(key)) {
    bases.set(key, (async () => {
      const dir = await tempDir();
      const db = join(dir, 'db', 'tributary.duckdb');
      expect((await runIngest({ src: await copyFixtures(join(dir, 'base'), [...datasets]), duckdbPath: db })).published).toBe(true);
      return db;
    })());
  }
  return bases.get(key)!;
}

/** A published file holding `datasets`, and a source folder per dataset for the runs under test. */
async function published(datasets: readonly string[]) {
  const dir = await tempDir();
  const db = join(dir, 'db', 'tributary.duckdb');
  await copyPublishedFile(await base(datasets), db);
  const src = async (name: string) => copyFixtures(join(dir, `src-${name}`), [name]);
  return { dir, db, src };
}

interface Change {
  readonly run: CliRun;
  /** The published DOIs once this change is in, from those before it. */
  apply(dois: Set<string>): void;
}

/** Every run published or was refused with the lock's message, at least one published, and every published change is in the file. */
async function expectNoLostChange(db: string, before: readonly string[], changes: readonly Change[]): Promise<number> {
  const exits = await Promise.all(changes.map((c) => c.run.exit));
  const expected = new Set(before);
  for (const [i, exit] of exits.entries()) {
    if (exit.code === 0) changes[i]!.apply(expected);
    else {
      expect(exit.code, exit.stderr).toBe(3);
      expect(exit.stderr).toMatch(REFUSED);
    }
  }
  expect(exits.some((e) => e.code === 0)).toBe(true);
  expect(await publishedDois(db)).toEqual([...expected].sort());
  return exits.filter((e) => e.code === 0).length;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const adds = (run: CliRun, doi: string): Change => ({ run, apply: (dois) => dois.add(doi) });
const removes = (run: CliRun, doi: string): Change => ({ run, apply: (dois) => dois.delete(doi) });

describe('two publishes on one DUCKDB_PATH', () => {
  it('two ingests started at once: both datasets are published (or one is refused and the other is)', async () => {
    const { db, src } = await published(['alpha']);
    const env = { DUCKDB_PATH: db };
    const beta = startCli(['ingest'], { ...env, SRC: await src('beta') });
    const gamma = startCli(['ingest'], { ...env, SRC: await src('gamma') });
    await expectNoLostChange(db, [ALPHA], [adds(beta, BETA), adds(gamma, GAMMA)]);
  });

  it('an ingest and a remove started at once: both changes are published (or one is refused and the other is)', async () => {
    const { db, src } = await published(['alpha', 'beta']);
    const gamma = startCli(['ingest'], { DUCKDB_PATH: db, SRC: await src('gamma') });
    const remove = startCli(['remove', ALPHA], { DUCKDB_PATH: db });
    await expectNoLostChange(db, [ALPHA, BETA], [adds(gamma, GAMMA), removes(remove, ALPHA)]);
  });

  it('publishes that find the lock held wait, say for whom, and then publish one after the other', async () => {
    const { db, src } = await published(['alpha']);
    const lock = await acquirePublishLock(`${db}.lock`, { timeoutMs: 0, command: 'a test holding the lock' });
    const beta = startCli(['ingest'], { DUCKDB_PATH: db, SRC: await src('beta') });
    const gamma = startCli(['ingest'], { DUCKDB_PATH: db, SRC: await src('gamma') });
    const holder = new RegExp(`waiting for ${escape(`${db}.lock`)}, held by pid ${process.pid} on ${escape(hostname())} since \\S+ \\(a test holding the lock\\)`);
    await Promise.all([beta.until(holder), gamma.until(holder)]);
    await lock.release();
    expect(await expectNoLostChange(db, [ALPHA], [adds(beta, BETA), adds(gamma, GAMMA)])).toBe(2);
  });

  it('a publish that cannot get the lock within INGEST_LOCK_TIMEOUT_MS exits 3 naming the lock, its holder and the fix', async () => {
    const { db, src } = await published(['alpha']);
    const before = await dumpTables(db);
    const lock = await acquirePublishLock(`${db}.lock`, { timeoutMs: 0, command: 'compact' });
    try {
      const { code, stderr } = await startCli(['ingest'], { DUCKDB_PATH: db, SRC: await src('beta'), INGEST_LOCK_TIMEOUT_MS: '0' }).exit;
      expect(code).toBe(3);
      expect(stderr).toMatch(REFUSED);
      expect(stderr).toContain(`another publish holds ${db}.lock: pid ${process.pid} on ${hostname()} since `);
      expect(stderr).toContain(`(compact). Gave up after 0 ms`);
      expect(stderr).toContain(`only if that process is gone and the lock stays (a network volume whose machine died) remove ${db}.lock.`);
    } finally {
      await lock.release();
    }
    expect(await dumpTables(db)).toEqual(before);
    const bad = await startCli(['ingest'], { DUCKDB_PATH: db, SRC: await src('beta'), INGEST_LOCK_TIMEOUT_MS: 'soon' }).exit;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('INGEST_LOCK_TIMEOUT_MS="soon": must be a whole number of milliseconds');
  });

  it('a holder killed with SIGKILL blocks nobody: its lock ends with its process', async () => {
    const { dir, db, src } = await published(['alpha']);
    // The killed run holds DUCKDB_PATH's lock while it waits for a store's, which this test holds.
    const store = join(dir, 'store');
    const storeLock = await acquirePublishLock(join(store, 'publish.lock'), { timeoutMs: 0, command: 'a test holding the store' });
    const killed = startCli(['ingest'], { DUCKDB_PATH: db, SRC: await src('beta'), PUBLICATION_STORE: store });
    await killed.until(/waiting for \S+publish\.lock/);
    killed.kill('SIGKILL');
    expect((await killed.exit).code).toBeNull();
    await storeLock.release();
    const next = await startCli(['ingest'], { DUCKDB_PATH: db, SRC: await src('gamma'), INGEST_LOCK_TIMEOUT_MS: '0' }).exit;
    expect(next.code, next.stderr).toBe(0);
    expect(await publishedDois(db)).toEqual([ALPHA, GAMMA]);
  });
});
