/**
 * Where a replica finds the publication to serve in the publication store (`PUBLICATION_STORE`, layout in
 * schemas/publication.ts): CURRENT names it, its manifest names the database object, which the replica opens where
 * it lies (a mounted volume). A replica on object storage would first copy the objects it does not hold into a
 * local cache and open them there (docs/deployment.md); the id stays the same.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { publicationId, publicationManifest, publicationTime, STORE_CURRENT, STORE_MANIFEST, STORE_PUBLICATIONS } from '../../../schemas/publication.js';
import { retainedPublications } from '../../../schemas/publication-retention.js';
import type { Located } from '../db/database.js';

/** Reads CURRENT and its manifest; rejects with what is missing and how to publish. */
export async function locateInStore(store: string): Promise<Located> {
  let text: string;
  try {
    text = (await readFile(join(store, STORE_CURRENT), 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`the publication store ${store} has no ${STORE_CURRENT} file yet: publish into it with 'make ingest PUBLICATION_STORE=${store}'`);
    }
    throw err;
  }
  const id = publicationId.safeParse(text);
  if (!id.success) throw new Error(`${join(store, STORE_CURRENT)} does not name a publication (${JSON.stringify(text.slice(0, 80))}: ${id.error.issues[0]?.message}); publish again with make ingest`);
  return { id: id.data, path: await databaseOf(store, id.data) };
}

/**
 * Where publication `id` is, when the store still holds it and the retention (schemas/publication-retention.ts)
 * still covers it: it stopped being current when the next publication in the store was made. Undefined otherwise;
 * ingest removes what the retention no longer covers, by the same rule.
 */
export async function locatePublication(store: string, id: string, retentionMs: number, now = new Date()): Promise<Located | undefined> {
  if (!publicationId.safeParse(id).success) return undefined;
  const ids = (await readdir(join(store, STORE_PUBLICATIONS)).catch(() => [] as string[])).filter((n) => publicationId.safeParse(n).success).sort();
  const at = ids.indexOf(id);
  if (at < 0) return undefined;
  const ages = ids.slice(0, at + 1).map((p, i) => ({ id: p, stoppedAt: ids[i + 1] ? publicationTime(ids[i + 1]!) : undefined }));
  // The ones after `id` count among the newest kept.
  const all = [...ages, ...ids.slice(at + 1).map((p) => ({ id: p }))];
  if (!retainedPublications(all, now, retentionMs).has(id)) return undefined;
  // Removed by a publish since the listing: gone as well.
  const path = await databaseOf(store, id).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)));
  return path === undefined ? undefined : { id, path };
}

async function databaseOf(store: string, id: string): Promise<string> {
  const path = join(store, STORE_PUBLICATIONS, id, STORE_MANIFEST);
  const manifest = publicationManifest.safeParse(JSON.parse(await readFile(path, 'utf8')));
  if (!manifest.success) {
    throw new Error(`${path} is not a manifest this API reads (${manifest.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}); a newer API may be needed`);
  }
  const database = manifest.data.objects.find((o) => o.role === 'database')!;
  return join(store, database.path);
}

/**
 * locateInStore for a running replica: a store it cannot read (a manifest of a newer kind, a missing object) keeps
 * it on the publication it serves, which db/database.ts does silently; this says why, once per distinct reason.
 */
export function storeLocator(store: string, log: (msg: string) => void): () => Promise<Located> {
  let last: string | undefined;
  return async () => {
    try {
      const found = await locateInStore(store);
      last = undefined;
      return found;
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      if (msg !== last) log(`WARNING: cannot read the current publication of ${store}, serving the one before: ${msg}`);
      last = msg;
      throw err;
    }
  };
}
