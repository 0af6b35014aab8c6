/**
 * Where a replica finds the publication to serve in the publication store (`PUBLICATION_STORE`, layout in
 * schemas/publication.ts): CURRENT names it, its manifest names the database object, which the replica opens where
 * it lies (a mounted volume). A replica on object storage would first copy the objects it does not hold into a
 * local cache and open them there (docs/deployment.md); the id stays the same.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { publicationId, publicationManifest, STORE_CURRENT, STORE_MANIFEST, STORE_PUBLICATIONS } from '../../../schemas/publication.js';

export interface Located {
  /** The publication id (or, for a plain DUCKDB_PATH, the file's identity). */
  readonly id: string;
  readonly path: string;
}

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
  const path = join(store, STORE_PUBLICATIONS, id.data, STORE_MANIFEST);
  const manifest = publicationManifest.safeParse(JSON.parse(await readFile(path, 'utf8')));
  if (!manifest.success) {
    throw new Error(`${path} is not a manifest this API reads (${manifest.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}); a newer API may be needed`);
  }
  const database = manifest.data.objects.find((o) => o.role === 'database')!;
  return { id: id.data, path: join(store, database.path) };
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
