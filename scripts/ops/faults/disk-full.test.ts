/**
 * A disk that fills during an ingest: the published hub and its dataset files on a small tmpfs of this test's own,
 * served by the API, and `make ingest`'s CLI replacing every dataset on it. The space runs out at one step or another
 * (the delta, the dataset files, the copy of the hub the merge needs) as the free space and timing decide; each must fail the ingest
 * with a message that names the full file system, leave the published file byte for byte as it was and served,
 * and give back the space the run took, so that the same command publishes once there is room.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../../services/api/app.js';
import { openDatabase, type Database } from '../../../services/api/db/database.js';
import { copyPublished, REPO_ROOT } from '../../../services/api/testing/fixture-db.js';
import { mountSmallFs, mountUnavailable, type Mount } from './mounts.js';

const run = promisify(execFile);
const unavailable = await mountUnavailable();
const MB = 1_000_000;
let dir: string;
let src: string;
let disk: Mount | undefined;
let db: Database | undefined;
let hub: string;

const used = (path: string) => {
  const s = statfsSync(path);
  return (s.blocks - s.bfree) * s.bsize;
};
const bytesOf = (path: string): number =>
  statSync(path).isDirectory() ? readdirSync(path).reduce((n, name) => n + bytesOf(join(path, name)), 0) : statSync(path).size;
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const listing = (path: string) => readdirSync(path, { recursive: true }).map(String).sort();

/** Every dataset of the sample hub with its last row dropped: all of them change, so the ingest rewrites them all. */
function changedSources(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  for (const name of readdirSync(to, { recursive: true }).map(String).filter((n) => n.endsWith('.csv'))) {
    const path = join(to, name);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/\n[^\n]+\n?$/, '\n'));
  }
}

async function ingest(): Promise<{ code: number; stderr: string }> {
  const env = { ...process.env, SRC: src, DUCKDB_PATH: hub, REGIONS_FILE: join(REPO_ROOT, 'scripts/sample/hubs.geojson') };
  return run(process.execPath, [inject('ingestCli'), 'ingest'], { cwd: REPO_ROOT, env }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );
}

/** The hub as a client sees it: the first page of Records, and the publication's ETag. */
async function served(): Promise<{ status: number; etag: string | null; body: string }> {
  const app = createApp({ acquire: () => db!.acquire(), links: { trustProxy: false } });
  const res = await app.request('/v1/odata/v4/Records?$top=500');
  return { status: res.status, etag: res.headers.get('etag'), body: await res.text() };
}

beforeAll(async () => {
  if (unavailable) return;
  dir = mkdtempSync(join(tmpdir(), 'tributary-disk-full-'));
  src = join(dir, 'src');
  changedSources(inject('sampleHub').src, src);
  const published = inject('sampleHub').duckdbPath;
  const hubBytes = bytesOf(published) + bytesOf(`${published}.files`);
  disk = await mountSmallFs(join(dir, 'disk'), 2 * hubBytes);
  hub = join(disk.path, 'tributary.duckdb');
  copyPublished(published, hub);
  db = await openDatabase(hub);
});

afterAll(async () => {
  await db?.close();
  await disk?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(unavailable !== undefined)(`a disk that fills during an ingest${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let before: { sha: string; listing: string[]; page: Awaited<ReturnType<typeof served>>; used: number };
  beforeAll(async () => {
    before = { sha: sha256(hub), listing: listing(disk!.path), page: await served(), used: used(disk!.path) };
    expect(before.page.status).toBe(200);
  });

  it.each([1, 4, 8])('%d MB free: the ingest fails naming the full file system; the published hub stays served and intact, the space is given back', async (free) => {
    await run('mount', ['-o', `remount,size=${Math.ceil((before.used + free * MB) / 4096) * 4096}`, disk!.path]);
    const { code, stderr } = await ingest();
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/No space left on device/);
    // The folder of the file that could not be written: the hub's, or its files folder.
    expect(stderr).toMatch(new RegExp(`\\nthe file system holding ${disk!.path}(/tributary\\.duckdb\\.files)? is full: free space there`));
    expect(stderr).toContain(`${hub} is unchanged and still served`);
    expect(sha256(hub)).toBe(before.sha);
    // The run's temp builds, copy and dataset files are gone; only the publish lock it created stays.
    expect(listing(disk!.path).filter((n) => !n.endsWith('.lock'))).toEqual(before.listing);
    expect(used(disk!.path) - before.used).toBeLessThanOrEqual(64 * 1024);
    expect(await served()).toEqual(before.page);
  });

  it('with room again, the same command publishes and the API serves it', async () => {
    // Every dataset changed: the served hub, its copy, a delta as large as the hub (its build's tables and WAL before
    // the checkpoint) and the new dataset files all stand at once.
    await run('mount', ['-o', `remount,size=${Math.ceil((before.used * 4) / 4096) * 4096}`, disk!.path]);
    const { code, stderr } = await ingest();
    expect(code, stderr).toBe(0);
    expect(await db!.refresh()).toBe(true);
    const after = await served();
    expect(after.status).toBe(200);
    expect(after.etag).not.toBe(before.page.etag);
  });
});
