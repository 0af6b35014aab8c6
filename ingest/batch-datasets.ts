import { open, stat } from 'node:fs/promises';
import { constants, gunzipSync } from 'node:zlib';
import type { SourceDataset } from './stage-parts.js';

/** Compressed bytes inflated to estimate a gzipped file's size. */
const PROBE = 1 << 20;

/**
 * Estimated uncompressed bytes of a file: its size, or for a `.gz` its size times the ratio of its first MiB
 * (the gzip trailer's length is modulo 4 GiB, and ratios differ widely between real exports and the sample). A
 * file gone since it was read counts 0 (its INSERT then says why).
 */
export async function fileBytes(path: string): Promise<number> {
  const size = await stat(path).then((s) => s.size, () => 0);
  if (!/\.gz$/i.test(path) || size === 0) return size;
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(Math.min(size, PROBE)), 0, Math.min(size, PROBE), 0);
    // SYNC_FLUSH: inflate what a truncated stream holds instead of failing at its end.
    const inflated = gunzipSync(buffer.subarray(0, bytesRead), { finishFlush: constants.Z_SYNC_FLUSH }).length;
    return Math.round((inflated / bytesRead) * size);
  } catch {
    return size;
  } finally {
    await handle.close();
  }
}

/**
 * Splits datasets, kept in their order, into consecutive batches of at most `budget` estimated bytes each; a
 * dataset larger than the budget is a batch of its own (a dataset is sorted whole: its locations' Id ranges
 * must be contiguous).
 */
export async function batchDatasets(datasets: readonly SourceDataset[], budget: number): Promise<SourceDataset[][]> {
  const batches: SourceDataset[][] = [];
  let current: SourceDataset[] = [];
  let bytes = 0;
  for (const ds of datasets) {
    let size = 0;
    for (const f of ds.files) size += await fileBytes(f.path);
    if (current.length > 0 && bytes + size > budget) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(ds);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
