/**
 * The publication store (`PUBLICATION_STORE`) shared by ingest, which writes it, and every API replica, which
 * reads it: one immutable snapshot per publication, named by its id, and one small file naming the one to serve.
 *
 *   CURRENT                                  the id of the publication to serve (replaced by a rename)
 *   publications/<id>/manifest.json          what the publication is made of (publicationManifest)
 *   objects/sha256-<hex>.duckdb              content-addressed files, shared by every publication that holds them
 *   objects/sha256-<hex>.parquet|csv         each dataset's bulk files (publication-files.ts), shared the same way
 *   publish.lock, publish.lock.json          held by the one ingest publishing (ingest/publish-lock.ts); readers ignore it
 *
 * Content addressing is what lets a publication be incremental (issue 19): a publication made of segments lists
 * the objects it keeps from its parent and the few it adds, and a replica fetching it copies only objects it does
 * not hold yet. Today every publication is one whole DuckDB file (`kind: 'full'`).
 */
import { z } from 'zod';
import { DOWNLOAD_FORMATS } from './publication-files.js';

export const STORE_CURRENT = 'CURRENT';
export const STORE_PUBLICATIONS = 'publications';
export const STORE_OBJECTS = 'objects';
export const STORE_MANIFEST = 'manifest.json';
export const STORE_LOCK = 'publish.lock';

/** Sortable by time: `20261123T112900123Z-1a2b3c4d`. */
export const publicationId = z.string().regex(/^\d{8}T\d{9}Z-[0-9a-f]{8}$/, 'expected a publication id like 20261123T112900123Z-1a2b3c4d');

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const storeObject = z.discriminatedUnion('role', [
  z.object({
    /** `database`: the DuckDB file the API opens. Segments (issue 19) will add roles. */
    role: z.literal('database'),
    /** Relative to the store's root. */
    path: z.string().regex(/^objects\/sha256-[0-9a-f]{64}\.duckdb$/),
    sha256,
    bytes: z.number().int().nonnegative(),
  }),
  z.object({
    /** `dataset-file`: one dataset's Records in one download format (publication-files.ts), listed in dataset_files. */
    role: z.literal('dataset-file'),
    path: z.string().regex(/^objects\/sha256-[0-9a-f]{64}\.(parquet|csv)$/),
    sha256,
    bytes: z.number().int().nonnegative(),
    doi: z.string().min(1),
    format: z.enum(DOWNLOAD_FORMATS),
  }),
]);

export type StoreObject = z.infer<typeof storeObject>;

export const publicationManifest = z.object({
  id: publicationId,
  createdAt: z.string().datetime(),
  /** The publication this one was built on, if any. */
  parent: publicationId.nullable(),
  kind: z.literal('full'),
  objects: z.array(storeObject).min(1),
});

export type PublicationManifest = z.infer<typeof publicationManifest>;

export function newPublicationId(now = new Date(), random = Math.floor(Math.random() * 2 ** 32)): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${stamp}-${random.toString(16).padStart(8, '0')}`;
}

/** The time a publication id was made (its sortable stamp), e.g. for publication_history.CreatedAt. */
export function publicationTime(id: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z-/.exec(publicationId.parse(id));
  const [, y, mo, d, h, mi, s, ms] = m!;
  return new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
}
