import { stat } from 'node:fs/promises';
import type { SourceDataset } from './read.js';

/**
 * A gzipped file counts this many times its size: CSV exports compress 5–8× (the sample's files 6.9× at gzip
 * level 6), and the sort holds the rows, not the bytes on disk.
 */
export const GZIP_FACTOR = 6;

/** Estimated uncompressed bytes of a dataset's data files; a file gone since it was read counts 0 (its INSERT says why). */
export async function datasetBytes(ds: SourceDataset): Promise<number> {
  let bytes = 0;
  for (const f of ds.files) {
    const size = await stat(f.path).then((s) => s.size, () => 0);
    bytes += size * (/\.gz$/i.test(f.path) ? GZIP_FACTOR : 1);
  }
  return bytes;
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
    const size = await datasetBytes(ds);
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
