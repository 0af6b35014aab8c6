/**
 * What a publication serves for download (issue 29), read from its own file: each dataset's files, and the
 * publications it descends from with their changes. A snapshot never changes, so this is read once per snapshot
 * and kept with it; the file routes then answer from memory. Every file the API opens has the tables (storage
 * version 6: db/snapshot.ts refuses older ones).
 */
import { CHANGE_KINDS, DOWNLOAD_FORMATS, type ChangeKind, type DatasetFile, type DownloadFormat } from '../../../schemas/publication-files.js';
import type { Snapshot } from '../db/snapshot.js';
import { compileDatasetFiles, compilePublicationChanges, compilePublicationHistory } from '../query/compile-downloads.js';

export interface DownloadDataset {
  readonly doi: string;
  readonly name: string | null;
  readonly licence: string | null;
  readonly citation: string | null;
  readonly rows: number;
  readonly files: Partial<Record<DownloadFormat, DatasetFile>>;
}

export interface PublicationChange {
  readonly doi: string;
  readonly name: string;
  readonly change: ChangeKind;
}

export interface PublicationEntry {
  readonly id: string;
  readonly createdAt: string;
  readonly parent: string | null;
  readonly changes: readonly PublicationChange[];
}

export interface PublicationFiles {
  readonly datasets: readonly DownloadDataset[];
  /** `<sha256>.<format>` → the dataset and file: what the file routes may serve. */
  readonly byFile: ReadonlyMap<string, { readonly dataset: DownloadDataset; readonly file: DatasetFile }>;
  /** Oldest first. */
  readonly history: readonly PublicationEntry[];
}

const cache = new WeakMap<Snapshot, Promise<PublicationFiles>>();

export function readPublicationFiles(snapshot: Snapshot): Promise<PublicationFiles> {
  let read = cache.get(snapshot);
  if (!read) {
    read = load(snapshot);
    // A failed read (interrupted at shutdown) is tried again by the next request.
    read.catch(() => cache.delete(snapshot));
    cache.set(snapshot, read);
  }
  return read;
}

export const fileKey = (sha256: string, format: DownloadFormat) => `${sha256}.${format}`;

async function load(snapshot: Snapshot): Promise<PublicationFiles> {
  const [files, history, changes] = await Promise.all([
    snapshot.columns(compileDatasetFiles()),
    snapshot.columns(compilePublicationHistory()),
    snapshot.columns(compilePublicationChanges()),
  ]);
  const text = (cols: typeof files, name: string, i: number) => (cols[name]?.[i] ?? null) as string | null;
  const datasets = new Map<string, { doi: string; name: string | null; licence: string | null; citation: string | null; rows: number; files: Partial<Record<DownloadFormat, DatasetFile>> }>();
  const byFile = new Map<string, { dataset: DownloadDataset; file: DatasetFile }>();
  for (let i = 0; i < (files['DOI']?.length ?? 0); i++) {
    const doi = text(files, 'DOI', i)!;
    const format = text(files, 'Format', i) as DownloadFormat;
    if (!(DOWNLOAD_FORMATS as readonly string[]).includes(format)) continue; // a format a newer ingest writes
    const file: DatasetFile = { DOI: doi, format, sha256: text(files, 'Sha256', i)!, bytes: Number(files['Bytes']![i]), rows: Number(files['Rows']![i]), publication: text(files, 'PublicationId', i)! };
    let d = datasets.get(doi);
    if (!d) datasets.set(doi, (d = { doi, name: text(files, 'DatasetName', i), licence: text(files, 'Licence', i), citation: text(files, 'Citation', i), rows: 0, files: {} }));
    // The dataset's Records: either Records file's count (a comparisons file counts comparisons).
    if (format !== 'comparisons-parquet') d.rows = file.rows;
    d.files[format] = file;
    byFile.set(fileKey(file.sha256, format), { dataset: d, file });
  }
  const changesOf = new Map<string, PublicationChange[]>();
  for (let i = 0; i < (changes['PublicationId']?.length ?? 0); i++) {
    const change = text(changes, 'Change', i) as ChangeKind;
    if (!(CHANGE_KINDS as readonly string[]).includes(change)) continue;
    const id = text(changes, 'PublicationId', i)!;
    const entry = { doi: text(changes, 'DOI', i)!, name: text(changes, 'DatasetName', i)!, change };
    changesOf.get(id)?.push(entry) ?? changesOf.set(id, [entry]);
  }
  const entries = (history['PublicationId'] ?? []).map((id, i) => ({
    id: id as string,
    createdAt: text(history, 'CreatedAt', i)!,
    parent: text(history, 'Parent', i),
    changes: changesOf.get(id as string) ?? [],
  }));
  return { datasets: [...datasets.values()], byFile, history: entries };
}
