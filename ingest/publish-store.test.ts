import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentPublication } from './publish-store.js';
import { copyFixtures, publishedDois, startCli, tempDir } from './test-support.js';

/**
 * Publishes into one PUBLICATION_STORE from two machines (two working files), as real processes: the store's
 * current publication must hold both changes, or one run was refused (exit 3) and the other's change is there.
 */

const ALPHA = '10.25976/alph-aa11';
const BETA = '10.25976/beta-bb22';
const GAMMA = '10.25976/gamm-cc33';

/** The store and machine 0's working file after the CLI published alpha from it: made once, copied for each test. */
let alphaPublished: Promise<string> | undefined;
function publishAlpha(): Promise<string> {
  alphaPublished ??= (async () => {
    const dir = await tempDir();
    const first = await startCli(['ingest'], { DUCKDB_PATH: join(dir, 'machines', '0', 'tributary.duckdb'), PUBLICATION_STORE: join(dir, 'store'), SRC: await copyFixtures(join(dir, 'src-alpha'), ['alpha']) }).exit;
    expect(first.code, first.stderr).toBe(0);
    return dir;
  })();
  return alphaPublished;
}

/** A store whose current publication holds alpha, published by the CLI from the working file `machines/0`. */
async function storeWithAlpha() {
  const dir = await tempDir();
  const store = join(dir, 'store');
  const working = (machine: number) => join(dir, 'machines', String(machine), 'tributary.duckdb');
  const src = async (name: string) => copyFixtures(join(dir, `src-${name}`), [name]);
  const made = await publishAlpha();
  for (const part of ['store', 'machines']) await cp(join(made, part), join(dir, part), { recursive: true });
  const served = async () => {
    const current = await currentPublication(store);
    return publishedDois(join(store, current!.objects[0]!.path));
  };
  return { store, working, src, served };
}

describe('two machines publishing into one store', () => {
  it('at once: the current publication holds both changes (or one run is refused and the other is in)', async () => {
    const { store, working, src, served } = await storeWithAlpha();
    const runs = [
      { run: startCli(['ingest'], { DUCKDB_PATH: working(1), PUBLICATION_STORE: store, SRC: await src('beta') }), doi: BETA },
      { run: startCli(['ingest'], { DUCKDB_PATH: working(2), PUBLICATION_STORE: store, SRC: await src('gamma') }), doi: GAMMA },
    ];
    const expected = [ALPHA];
    for (const { run, doi } of runs) {
      const { code, stderr } = await run.exit;
      if (code === 0) expected.push(doi);
      else {
        expect(code, stderr).toBe(3);
        expect(stderr).toMatch(/^refused: another publish holds \S+publish\.lock: pid \d+ on /m);
      }
    }
    expect(expected.length).toBeGreaterThan(1);
    expect(await served()).toEqual(expected.sort());
  });

  it('one after the other: a machine whose working file is behind starts again from the current publication', async () => {
    const { store, working, src, served } = await storeWithAlpha();
    const beta = await startCli(['ingest'], { DUCKDB_PATH: working(1), PUBLICATION_STORE: store, SRC: await src('beta') }).exit;
    expect(beta.code, beta.stderr).toBe(0);
    const afterBeta = (await currentPublication(store))!.id;
    // Machine 0's working file still holds alpha alone: building gamma on it would drop beta from the store.
    const gamma = await startCli(['ingest'], { DUCKDB_PATH: working(0), PUBLICATION_STORE: store, SRC: await src('gamma') }).exit;
    expect(gamma.code, gamma.stderr).toBe(0);
    expect(gamma.stderr).toContain(`started ${working(0)} from publication ${afterBeta} of ${store}`);
    expect(await served()).toEqual([ALPHA, BETA, GAMMA]);
    expect((await currentPublication(store))!.parent).toBe(afterBeta);
  });
});
