import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';

/**
 * SHA-256 over metadata.json and the data files (sorted by name; name and bytes), so an unchanged dataset is
 * recognised on re-ingest and keeps its Ids. Bytes, not parsed rows: any edit is a change.
 */
export async function contentHash(metadataBytes: Buffer, files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`metadata.json\0${metadataBytes.length}\0`).update(metadataBytes);
  for (const file of [...files].sort()) {
    hash.update(`\0${basename(file)}\0`);
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}
