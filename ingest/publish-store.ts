/**
 * Publishes the file ingest has just written into the publication store (`PUBLICATION_STORE`, layout in
 * schemas/publication.ts), so that every API replica switches to it: the file is copied to a content-addressed
 * object (hashed while it is copied, fsynced, renamed into place), its manifest written the same way, and CURRENT
 * replaced by a rename last, only if it still names the publication the new one was built on. A publish killed at any
 * point leaves CURRENT naming the previous, complete publication; what it left behind is removed by the next publish.
 * The dataset files the file lists (dataset_files) become objects too, listed in the manifest and shared by content.
 * Old publications beyond the newest `keep` are removed, and every object no kept manifest lists (a replica still
 * reading one keeps its open file).
 * Ingest holds the store's lock (STORE_LOCK, publish-lock.ts) from seedFromStore to publishToStore, so publishes from
 * several machines take turns; the check of CURRENT catches a writer that does not take it.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { alive, fsyncPath } from './build-file.js';
import { readMeta } from './meta-rows.js';
import { PublishRefused } from './publish-lock.js';
import {
  newPublicationId,
  publicationId,
  publicationManifest,
  publicationTime,
  STORE_CURRENT,
  STORE_LOCK,
  STORE_MANIFEST,
  STORE_OBJECTS,
  STORE_PUBLICATIONS,
  type PublicationManifest,
  type StoreObject,
} from '../schemas/publication.js';
import { datasetFileName, DOWNLOAD_EXTENSIONS, DOWNLOAD_FORMATS, plainFilesDir } from '../schemas/publication-files.js';
import { retainedPublications } from '../schemas/publication-retention.js';
import { z } from 'zod';

const TMP = '.tmp-';

async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}${TMP}${process.pid}`;
  await writeFile(tmp, text);
  await fsyncPath(tmp);
  await rename(tmp, path);
}

/** The id CURRENT names; null in an empty store. */
async function currentId(store: string): Promise<string | null> {
  try {
    return publicationId.parse((await readFile(join(store, STORE_CURRENT), 'utf8')).trim());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The publication CURRENT names, or undefined in an empty store. */
export async function currentPublication(store: string): Promise<PublicationManifest | undefined> {
  const id = await currentId(store);
  if (id === null) return undefined;
  return publicationManifest.parse(JSON.parse(await readFile(join(store, STORE_PUBLICATIONS, id, STORE_MANIFEST), 'utf8')));
}

/** Refuses unless CURRENT names `expected` (null: the store is empty); `undefined` expects nothing. */
async function expectCurrent(store: string, expected: string | null | undefined): Promise<void> {
  if (expected === undefined) return;
  const current = await currentId(store);
  if (current === expected) return;
  throw new PublishRefused(
    `${join(store, STORE_CURRENT)} names ${current ?? 'no publication'}, not ${expected ?? 'none (an empty store)'} that this publication was built on: ` +
      `another publish replaced it meanwhile without taking ${join(store, STORE_LOCK)}. Nothing was published into the store; ` +
      'publish again: ingest starts its working file again from the current publication.',
  );
}

/** Copies `file` into the store as an object named by its SHA-256 (one pass: hashed while copied). */
async function putObject(store: string, file: string, ext = 'duckdb'): Promise<{ path: string; sha256: string; bytes: number }> {
  const dir = join(store, STORE_OBJECTS);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `${TMP}${process.pid}-${randomBytes(4).toString('hex')}`);
  const hash = createHash('sha256');
  let bytes = 0;
  const tee = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), tee, createWriteStream(tmp));
    const sha256 = hash.digest('hex');
    const path = `${STORE_OBJECTS}/sha256-${sha256}.${ext}`;
    if (existsSync(join(store, path))) await rm(tmp);
    else {
      await fsyncPath(tmp);
      await rename(tmp, join(store, path));
    }
    return { path, sha256, bytes };
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * The dataset files `file` lists (dataset_files) as objects of the store: content-addressed like the database, so a
 * file an earlier publication put there (an unchanged dataset's) is listed again, not copied. The others are copied
 * from the files folder beside `file`, where ingest wrote them, and checked against their listed hash.
 */
async function putDatasetFiles(store: string, file: string): Promise<StoreObject[]> {
  const rows = await readOnly(file, 'SELECT "DOI", "Format", "Sha256", "Bytes" FROM dataset_files ORDER BY "DOI", "Format"');
  const objects: StoreObject[] = [];
  for (const [doi, format, sha256, bytes] of rows) {
    const f = downloadFormat.parse(format);
    const name = datasetFileName(String(sha256), f);
    const object = { role: 'dataset-file' as const, path: `${STORE_OBJECTS}/${name}`, sha256: String(sha256), bytes: Number(bytes), doi: String(doi), format: f };
    if (!existsSync(join(store, object.path))) {
      const source = join(plainFilesDir(file), name);
      if (!existsSync(source)) throw new Error(`${file} lists ${name} for ${String(doi)}, which is neither in ${plainFilesDir(file)} nor in ${join(store, STORE_OBJECTS)}: ingest the dataset again`);
      const put = await putObject(store, source, DOWNLOAD_EXTENSIONS[f]);
      if (put.sha256 !== object.sha256) throw new Error(`${source} does not hash to the ${object.sha256} that ${file} lists: ingest the dataset again`);
    }
    objects.push(object);
  }
  return objects;
}

const downloadFormat = z.enum(DOWNLOAD_FORMATS);

/** The rows of one query against a DuckDB file opened read-only for it. */
async function readOnly(file: string, sql: string): Promise<unknown[][]> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  try {
    const conn = await instance.connect();
    try {
      return (await conn.runAndReadAll(sql)).getRows();
    } finally {
      conn.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/** Temp files of publishes that were killed (their process gone). */
async function removeStale(store: string): Promise<void> {
  for (const dir of [store, join(store, STORE_OBJECTS), join(store, STORE_PUBLICATIONS)]) {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const at = name.indexOf(TMP);
      if (at < 0) continue;
      const pid = Number.parseInt(name.slice(at + TMP.length), 10);
      if (pid === process.pid || !alive(pid)) await rm(join(dir, name), { recursive: true, force: true });
    }
  }
}

/**
 * Keeps what the retention covers (schemas/publication-retention.ts: the newest three, and those replaced less than
 * `retentionMs` ago, each replaced when the next one was made) and CURRENT's, and the objects they use; removes the
 * rest. The API applies the same rule before reopening an old publication, so it never reads one removed here.
 */
async function removeOld(store: string, retentionMs: number, current: string, now: Date): Promise<void> {
  const ids = (await readdir(join(store, STORE_PUBLICATIONS)).catch(() => [] as string[])).filter((n) => publicationId.safeParse(n).success).sort();
  const ages = ids.map((id, i) => ({ id, stoppedAt: ids[i + 1] ? publicationTime(ids[i + 1]!) : undefined }));
  const kept = new Set([...retainedPublications(ages, now, retentionMs), current]);
  const used = new Set<string>();
  for (const id of kept) {
    const manifest = await readFile(join(store, STORE_PUBLICATIONS, id, STORE_MANIFEST), 'utf8').catch(() => undefined);
    if (manifest) for (const o of publicationManifest.parse(JSON.parse(manifest)).objects) used.add(o.path);
  }
  for (const id of ids) if (!kept.has(id)) await rm(join(store, STORE_PUBLICATIONS, id), { recursive: true, force: true });
  for (const name of await readdir(join(store, STORE_OBJECTS)).catch(() => [] as string[])) {
    if (name.startsWith('sha256-') && !used.has(`${STORE_OBJECTS}/${name}`)) await rm(join(store, STORE_OBJECTS, name), { force: true });
  }
}

export interface PublishOptions {
  /** PUBLICATION_RETENTION_MS: replaced publications stay this long (the newest three always); default 0. */
  readonly retentionMs?: number;
  readonly now?: Date;
  /** The id the file carries (tributary_meta.publication_id), so the store and the file name it alike. */
  readonly id?: string;
  /**
   * The publication `file` was built on (null: none, an empty store). Given, CURRENT is replaced only if it still
   * names it, else PublishRefused; omitted, the new publication follows whatever is current.
   */
  readonly parent?: string | null;
}

/** Publishes `file` (a complete, checkpointed DuckDB file) as the store's new current publication. */
export async function publishToStore(store: string, file: string, opts: PublishOptions = {}): Promise<PublicationManifest> {
  await mkdir(join(store, STORE_PUBLICATIONS), { recursive: true });
  await removeStale(store);
  await expectCurrent(store, opts.parent);
  const parent = opts.parent === undefined ? await currentId(store) : opts.parent;
  const object = await putObject(store, file);
  const files = await putDatasetFiles(store, file);
  const manifest: PublicationManifest = {
    id: opts.id ?? newPublicationId(opts.now),
    createdAt: (opts.now ?? new Date()).toISOString(),
    parent,
    kind: 'full',
    objects: [{ role: 'database', ...object }, ...files],
  };
  const dir = join(store, STORE_PUBLICATIONS, manifest.id);
  const tmpDir = `${dir}${TMP}${process.pid}`;
  await mkdir(tmpDir, { recursive: true });
  await writeAtomically(join(tmpDir, STORE_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(tmpDir, dir);
  await fsyncPath(join(store, STORE_PUBLICATIONS));
  try {
    await expectCurrent(store, opts.parent);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  await writeAtomically(join(store, STORE_CURRENT), `${manifest.id}\n`);
  await fsyncPath(store);
  await removeOld(store, opts.retentionMs ?? 0, manifest.id, new Date());
  return manifest;
}

/**
 * Makes the working file the store's current publication unless it holds it already (its
 * tributary_meta.publication_id is CURRENT's id): on a new ingest machine or container, after another machine has
 * published, or when a change reached the working file but not the store. Ingest then builds on what the replicas
 * serve and keeps the Ids of unchanged datasets. `current`: what a publish built on the file must find in CURRENT
 * (publishToStore's `parent`); `started`: the file was copied from the store.
 */
export async function seedFromStore(store: string, file: string): Promise<{ readonly current: string | null; readonly started: boolean }> {
  const current = await currentPublication(store);
  const database = current?.objects.find((o) => o.role === 'database');
  if (!current || !database) return { current: current?.id ?? null, started: false };
  if (existsSync(file) && (await publicationOf(file)) === current.id) return { current: current.id, started: false };
  // Named as ingest's own builds are (build-file.ts removes them when their process is gone).
  const tmp = `${file}.tmp-${process.pid}-seed`;
  await mkdir(dirname(file), { recursive: true });
  await copyFile(join(store, database.path), tmp);
  if ((await stat(tmp)).size !== database.bytes) throw new Error(`copy of ${database.path} is incomplete`);
  await rename(tmp, file);
  return { current: current.id, started: true };
}

/** tributary_meta.publication_id of a published file; undefined when it has no valid one or cannot be read. */
export async function publicationOf(file: string): Promise<string | undefined> {
  try {
    const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
    try {
      const conn = await instance.connect();
      const meta = await readMeta(conn).finally(() => conn.closeSync());
      const id = publicationId.safeParse(meta.get('publication_id'));
      return id.success ? id.data : undefined;
    } finally {
      instance.closeSync();
    }
  } catch {
    return undefined;
  }
}
