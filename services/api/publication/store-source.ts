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
  let id: string;
  try {
    id = publicationId.parse((await readFile(join(store, STORE_CURRENT), 'utf8')).trim());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`the publication store ${store} has no ${STORE_CURRENT} file yet: publish into it with 'make ingest PUBLICATION_STORE=${store}'`);
    }
    throw err;
  }
  const manifest = publicationManifest.parse(JSON.parse(await readFile(join(store, STORE_PUBLICATIONS, id, STORE_MANIFEST), 'utf8')));
  const database = manifest.objects.find((o) => o.role === 'database')!;
  return { id, path: join(store, database.path) };
}
