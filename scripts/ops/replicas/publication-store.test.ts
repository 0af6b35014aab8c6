/**
 * The publication store end to end without a balancer: ingest's side (publishToStore, seedFromStore) writes it,
 * the API's side (locateInStore, openDatabase, followCurrent) serves from it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PublishRefused } from '../../../ingest/publish-lock.js';
import { publishToStore, seedFromStore } from '../../../ingest/publish-store.js';
import { query } from '../../../ingest/test-support.js';
import { newPublicationId, publicationManifest } from '../../../schemas/publication.js';
import { createApp } from '../../../services/api/app.js';
import { acquirer, openDatabase, type Database } from '../../../services/api/db/database.js';
import { followCurrent } from '../../../services/api/publication/follow-current.js';
import { locateInStore, locatePublication, storeLocator } from '../../../services/api/publication/store-source.js';
import { copyPublished, REPO_ROOT } from '../../../services/api/testing/fixture-db.js';

const run = promisify(execFile);
let dir: string;
let store: string;
let first: string;
let second: string;
const dbs: Database[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-store-'));
  store = join(dir, 'store');
  first = join(dir, 'first.duckdb');
  second = join(dir, 'second.duckdb');
  copyPublished(inject('apiFixtureDb'), first);
  copyPublished(first, second);
  // Different content: the real ingest CLI removes the dataset holding the first Ids.
  await run(process.execPath, [inject('ingestCli'), 'remove', '10.25976/231z-py15'], { cwd: REPO_ROOT, env: { ...process.env, DUCKDB_PATH: second } });
});
afterAll(async () => {
  for (const db of dbs) await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const readyz = async (db: Database) => (await createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }).request('/readyz')).json() as Promise<{ publication?: string }>;

/** The object files the publications list, as the store's objects/ folder should hold them. */
function objectNames(...publications: { objects: readonly { path: string }[] }[]): string[] {
  return [...new Set(publications.flatMap((p) => p.objects.map((o) => basename(o.path))))].sort();
}

describe('publication store', () => {
  it('publishes immutable, content-addressed publications; CURRENT names the newest; a replica serves it and reports its id', async () => {
    await expect(locateInStore(store)).rejects.toThrow(/no CURRENT file yet: publish into it with 'make ingest PUBLICATION_STORE=/);
    const p1 = await publishToStore(store, first);
    expect(p1.parent).toBeNull();
    expect(readFileSync(join(store, 'CURRENT'), 'utf8').trim()).toBe(p1.id);
    const db = await openDatabase(join(dir, 'unused.duckdb'), { locate: () => locateInStore(store) });
    dbs.push(db);
    expect(await readyz(db)).toMatchObject({ status: 'ready', publication: p1.id });

    const p2 = await publishToStore(store, second);
    expect(p2.parent).toBe(p1.id);
    expect(p2.objects[0]!.sha256).not.toBe(p1.objects[0]!.sha256);
    expect(await db.refresh()).toBe(true);
    expect(await readyz(db)).toMatchObject({ publication: p2.id });
    expect(await db.refresh()).toBe(false);

    // The same content again is a new publication over the same object.
    const p3 = await publishToStore(store, first);
    expect(p3.objects[0]!.path).toBe(p1.objects[0]!.path);
    expect(readdirSync(join(store, 'objects')).filter((n) => !n.includes('.tmp-')).sort()).toEqual(objectNames(p1, p2));
    expect(p1.objects.filter((o) => o.role === 'database')).toHaveLength(1);
    expect(p1.objects.filter((o) => o.role === 'dataset-file').length).toBeGreaterThan(0);
    const manifest = publicationManifest.parse(JSON.parse(readFileSync(join(store, 'publications', p3.id, 'manifest.json'), 'utf8')));
    expect(manifest).toEqual(p3);
  });

  it('keeps the newest three publications and the objects they use; leaves no temp files of a killed publish', async () => {
    // What a publish killed with SIGKILL leaves: a temp object and a temp publication directory of a gone pid.
    mkdirSync(join(store, 'objects'), { recursive: true });
    writeFileSync(join(store, 'objects', '.tmp-999999999-dead'), 'half');
    mkdirSync(join(store, 'publications', '20000101T000000000Z-00000000.tmp-999999999'), { recursive: true });
    const kept = [];
    for (let i = 0; i < 3; i++) kept.push(await publishToStore(store, i % 2 ? first : second));
    expect(readdirSync(join(store, 'publications'))).toHaveLength(3);
    // Both contents still used (their databases and dataset files), nothing else.
    expect(readdirSync(join(store, 'objects')).sort()).toEqual(objectNames(...kept));
    expect(readdirSync(store).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('a new ingest machine starts its working file from the current publication', async () => {
    const working = join(dir, 'fresh', 'tributary.duckdb');
    mkdirSync(join(dir, 'fresh'));
    const current = readFileSync(join(store, 'CURRENT'), 'utf8').trim();
    expect(await seedFromStore(store, working)).toEqual({ current, started: true });
    expect(existsSync(working)).toBe(true);
    // A working file that holds the current publication (its own publication_id, as ingest publishes) is kept.
    const own = String((await query(working, "SELECT value FROM tributary_meta WHERE key = 'publication_id'"))[0]!.value);
    await publishToStore(store, working, { id: own });
    expect(await seedFromStore(store, working)).toEqual({ current: own, started: false });
    // One that holds another (a machine that published before another one did) is started again from the current.
    const next = await publishToStore(store, second);
    expect(await seedFromStore(store, working)).toEqual({ current: next.id, started: true });
  });

  it('make remove with PUBLICATION_STORE on a machine without a working file: starts from the current publication, publishes the result', async () => {
    const before = (await publishToStore(store, first)).id; // holds the dataset removed below
    const working = join(dir, 'other-machine', 'tributary.duckdb');
    const { stderr } = await run(process.execPath, [inject('ingestCli'), 'remove', '10.25976/231z-py15'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DUCKDB_PATH: working, PUBLICATION_STORE: store },
    });
    expect(stderr).toContain(`started ${working} from publication ${before}`);
    const after = readFileSync(join(store, 'CURRENT'), 'utf8').trim();
    expect(after).not.toBe(before);
    expect(stderr).toContain(`published ${after} into ${store}`);
    const manifest = publicationManifest.parse(JSON.parse(readFileSync(join(store, 'publications', after, 'manifest.json'), 'utf8')));
    expect(manifest.parent).toBe(before);
    expect(existsSync(join(store, manifest.objects[0]!.path))).toBe(true);
  });

  it('a next link reaching a replica that has not switched yet switches it first: pages never go back a publication', async () => {
    const before = (await publishToStore(store, first)).id;
    const lagging = await openDatabase(join(dir, 'unused.duckdb'), { locate: () => locateInStore(store), pollMs: 0 });
    dbs.push(lagging);
    expect((await readyz(lagging)).publication).toBe(before);
    const published = await publishToStore(store, second);
    const app = createApp({ acquire: () => lagging.acquire(), links: { trustProxy: false }, beforeNextLink: followCurrent({ refresh: () => lagging.refresh() }) });
    expect((await app.request('/v1/odata/v4/Records?$top=1')).status).toBe(200);
    expect((await readyz(lagging)).publication).toBe(before); // a first page does not wait for the switch
    const res = await app.request('/v1/odata/v4/Records?$top=1&$skiptoken=Id:1');
    expect(res.status).toBe(200);
    expect((await readyz(lagging)).publication).toBe(published.id);
  });

  it('a GIS client following OGC next links across two replicas while a publication lands gets every page from the publication it started on', async () => {
    const before = (await publishToStore(store, first)).id;
    const replica = async () => {
      const db = await openDatabase(join(dir, 'unused.duckdb'), { locate: () => locateInStore(store), locateOne: (id) => locatePublication(store, id, 3_600_000), pollMs: 0 });
      dbs.push(db);
      return { db, app: createApp({ acquire: acquirer(db), links: { trustProxy: false }, beforeNextLink: followCurrent({ refresh: () => db.refresh() }) }) };
    };
    const [a, b] = [await replica(), await replica()];
    // The balancer alternates; each page's ETag names the publication it was read from.
    const served: string[] = [];
    let next: string | undefined = '/v1/features/collections/observations/items?limit=40';
    let after: string | undefined;
    for (let page = 0; next && page < 6; page++) {
      if (page === 2) {
        after = (await publishToStore(store, second)).id;
        expect(await a.db.refresh()).toBe(true); // a polls first; b still serves the publication before
        expect((await readyz(b.db)).publication).toBe(before);
      }
      const res = await (page % 2 ? b : a).app.request(next);
      expect(res.status).toBe(200);
      served.push(res.headers.get('etag')!);
      const body = (await res.json()) as { links: { rel: string; href: string }[] };
      const href = body.links.find((l) => l.rel === 'next')?.href;
      next = href ? new URL(href).pathname + new URL(href).search : undefined;
    }
    // The next links are pinned: a, which has switched, answers them from the publication it still holds.
    expect(after).toBeDefined();
    expect(served).toEqual([before, before, before, before, before, before].map((id) => `W/"${id}"`));
  });

  it('a switch that cannot finish answers 503 with Retry-After, not a page of the older publication', async () => {
    const db = dbs[0]!;
    const app = createApp({
      acquire: () => db.acquire(),
      links: { trustProxy: false },
      beforeNextLink: followCurrent({ refresh: () => Promise.reject(new Error('cannot open the new publication')) }),
    });
    const res = await app.request('/v1/odata/v4/Records?$top=1&$skiptoken=Id:1');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('unavailable');
  });

  it('a store the replica cannot read keeps it on its publication, and says why once', async () => {
    const logs: string[] = [];
    const locate = storeLocator(store, (m) => logs.push(m));
    const db = await openDatabase(join(dir, 'unused.duckdb'), { locate, pollMs: 0 });
    dbs.push(db);
    const serving = (await readyz(db)).publication;
    const current = readFileSync(join(store, 'CURRENT'), 'utf8');
    writeFileSync(join(store, 'CURRENT'), 'not-an-id\n');
    try {
      expect(await db.refresh()).toBe(false);
      expect(await db.refresh()).toBe(false);
      expect((await readyz(db)).publication).toBe(serving);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(/cannot read the current publication .*serving the one before: .*CURRENT does not name a publication \("not-an-id": expected a publication id/);
    } finally {
      writeFileSync(join(store, 'CURRENT'), current);
    }
  });

  it('replaces CURRENT only while it names the publication the new one was built on', async () => {
    const current = readFileSync(join(store, 'CURRENT'), 'utf8').trim();
    const ids = readdirSync(join(store, 'publications'));
    for (const parent of [newPublicationId(), null]) {
      const refused = publishToStore(store, second, { parent });
      await expect(refused).rejects.toBeInstanceOf(PublishRefused);
      await expect(refused).rejects.toThrow(`names ${current}, not ${parent ?? 'none (an empty store)'} that this publication was built on`);
    }
    expect(readFileSync(join(store, 'CURRENT'), 'utf8').trim()).toBe(current);
    expect(readdirSync(join(store, 'publications'))).toEqual(ids);
    expect((await publishToStore(store, second, { parent: current })).parent).toBe(current);
  });
});
