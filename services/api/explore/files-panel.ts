/**
 * Each dataset's bulk files (issue 29) beside the selection: for every dataset behind it, its Parquet and CSV file
 * and its guideline comparisons' Parquet file (issue 45) with their sizes, as plain links (the browser streams them to disk; the API's own page needs no key), or, while
 * keys are required (a file then needs one: docs/api.md), as their names and sizes alone. The index is read once:
 * it changes only with a publication.
 */
import { PATHS } from '../http/paths.js';
import { getJson } from './api.js';
import { h } from './dom.js';

interface FileEntry {
  readonly url: string;
  readonly bytes: number;
}
export interface DownloadIndex {
  readonly datasets: readonly { readonly DOI: string; readonly DatasetName: string | null; readonly files: Readonly<Record<string, FileEntry>> }[];
}

export const DOWNLOADS_URL = PATHS.downloads;

/**
 * The index (through the page's request queue, which waits out a 429), or none when it cannot be had: the list is
 * an extra beside the panels, and the rest of the page works without it.
 */
export async function loadDownloads(): Promise<DownloadIndex> {
  try {
    return await getJson<DownloadIndex>(`${location.origin}${DOWNLOADS_URL}`);
  } catch {
    return { datasets: [] };
  }
}

/** `1234567` → `1.2 MB` (decimal units, as file managers show them). */
export function fileSize(bytes: number): string {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  let n = bytes;
  while (n >= 1000 && i < units.length - 1) (n /= 1000), i++;
  return i === 0 ? `${n} bytes` : `${n.toFixed(n < 10 ? 1 : 0)} ${units[i]}`;
}

const LABELS: Readonly<Record<string, string>> = { parquet: 'Parquet', csv: 'CSV', 'comparisons-parquet': 'Guideline comparisons (Parquet)' };

export function showDatasetFiles(list: HTMLElement, index: DownloadIndex, dois: readonly string[], needsKey = false): void {
  const byDoi = new Map(index.datasets.map((d) => [d.DOI, d]));
  const items = [...dois].sort().flatMap((doi) => {
    const d = byDoi.get(doi);
    if (!d) return [];
    const links = Object.entries(d.files).map(([format, f]) => {
      const text = `${LABELS[format] ?? format} (${fileSize(f.bytes)})`;
      return needsKey ? h('span', { 'data-format': format }, text) : h('a', { href: f.url, download: '', 'data-format': format }, text);
    });
    return [h('li', { 'data-doi': doi }, d.DatasetName ?? doi, ': ', ...links.flatMap((a, i) => (i ? [' · ', a] : [a])))];
  });
  list.replaceChildren(...(items.length ? items : [h('li', {}, 'No dataset files are listed for the selection.')]));
}
