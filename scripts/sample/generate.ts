import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { datasetSpecs, laboratories, type DatasetSpec } from './datasets.js';
import { buildMetadata, sampleDoi } from './metadata.js';
import { apportion, createRandom, deriveSeed, type Random } from './prng.js';
import { planLocations } from './plan.js';
import { buildTemplate, uploadColumnNames } from './series.js';
import { writeLocation } from './write-location.js';

export { RARE_CHARACTERISTIC } from './characteristics.js';

/** Bump when the output for a given seed and ROWS changes, so benchmark caches keyed on it are invalidated. */
export const SAMPLE_GENERATOR_VERSION = '3';

/** Rows per file, about, when every file is gzipped (SampleOptions.gzipAll). */
export const GZIP_FILE_ROWS = 2_000_000;

export interface SampleOptions {
  readonly rows: number;
  readonly out: string;
  readonly seed: number;
  /**
   * Gzip every data file (`.csv.gz`), not only the datasets that are gzipped anyway: the same rows in a small part
   * of the disk, so large samples fit a bench machine. The benchmark's cache uses it; gzip level 1, as a sample is
   * rewritten often. A dataset is then split into files of about GZIP_FILE_ROWS rows: DuckDB reads a gzipped file
   * on one thread (a plain CSV in parallel), so one 12M-row `.csv.gz` would measure one core.
   */
  readonly gzipAll?: boolean;
}

export interface DatasetSummary {
  readonly folder: string;
  readonly doi: string;
  readonly kind: DatasetSpec['kind'];
  readonly rows: number;
  readonly locations: number;
  readonly files: readonly string[];
}

export interface SampleSummary {
  readonly version: string;
  readonly seed: number;
  /** Exactly the requested ROWS. */
  readonly rows: number;
  readonly gzipAll: boolean;
  readonly datasets: readonly DatasetSummary[];
}

/** Writes strings to a file (optionally gzipped) in large chunks, waiting for drain: memory stays flat. */
export interface ChunkWriter {
  write(text: string): Promise<void> | undefined;
  close(): Promise<void>;
}

function openWriter(path: string, gzip: false | 1 | 6): ChunkWriter {
  const file = createWriteStream(path, { highWaterMark: 1 << 22 });
  const gz = gzip ? createGzip({ level: gzip }) : null;
  const sink = gz ?? file;
  const piped = gz ? pipeline(gz, file) : null;
  return {
    write: (text) => (sink.write(text) ? undefined : once(sink, 'drain').then(() => undefined)),
    async close() {
      sink.end();
      await (piped ?? finished(file));
    },
  };
}

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}

async function writeDataset(spec: DatasetSpec, rows: number, options: SampleOptions, doi: string, index: number): Promise<DatasetSummary> {
  const random = createRandom(deriveSeed(options.seed, `${spec.folder}/rows`));
  const dir = join(options.out, spec.folder);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const metadata = buildMetadata(spec, doi, createRandom(deriveSeed(options.seed, `${spec.folder}/metadata`)), index % 3 === 0);
  await writeFile(join(dir, 'metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`);

  const columns = spec.shuffledColumns ? shuffled(uploadColumnNames, createRandom(deriveSeed(options.seed, `${spec.folder}/columns`))) : uploadColumnNames;
  const locations = planLocations(spec, rows, random);
  const laboratory = random.pick(laboratories);
  const wanted = Math.max(spec.files ?? 1, options.gzipAll === true ? Math.ceil(rows / GZIP_FILE_ROWS) : 1);
  const fileCount = Math.max(1, Math.min(wanted, locations.length));
  const perFile = apportion(locations.length, Array.from({ length: fileCount }, () => 1));
  const files: string[] = [];
  let next = 0;
  for (let f = 0; f < fileCount; f++) {
    const gzip = spec.gzip === true ? 6 : options.gzipAll === true ? 1 : false;
    const name = `${spec.folder}${fileCount > 1 ? `-${f + 1}` : ''}.csv${gzip ? '.gz' : ''}`;
    files.push(name);
    const writer = openWriter(join(dir, name), gzip);
    await writer.write(`${columns.join(',')}\n`);
    for (const location of locations.slice(next, next + (perFile[f] ?? 0))) {
      const templates = location.profiles.map((p) => buildTemplate(columns, spec, location, p, laboratory));
      await writeLocation(writer, spec, location, templates, random);
    }
    next += perFile[f] ?? 0;
    await writer.close();
  }
  return { folder: spec.folder, doi, kind: spec.kind, rows, locations: locations.length, files };
}

/**
 * Generates the sample: one folder per dataset under `out` (metadata.json and CSV files), exactly `rows` rows in
 * all, identical bytes for identical (seed, rows, SAMPLE_GENERATOR_VERSION). Only the sample's own folders are
 * replaced; anything else under `out` is left alone.
 */
export async function generateSample(options: SampleOptions, onDataset?: (summary: DatasetSummary) => void): Promise<SampleSummary> {
  if (!Number.isSafeInteger(options.rows) || options.rows < datasetSpecs.length) {
    throw new RangeError(`ROWS must be an integer ≥ ${datasetSpecs.length}, got ${options.rows}`);
  }
  await mkdir(options.out, { recursive: true });
  const counts = apportion(options.rows, datasetSpecs.map((d) => d.weight));
  const dois = new Set<string>();
  const datasets: DatasetSummary[] = [];
  for (const [i, spec] of datasetSpecs.entries()) {
    const doiRandom = createRandom(deriveSeed(options.seed, `${spec.folder}/doi`));
    let doi = sampleDoi(doiRandom);
    while (dois.has(doi)) doi = sampleDoi(doiRandom);
    dois.add(doi);
    const summary = await writeDataset(spec, counts[i] ?? 0, options, doi, i);
    datasets.push(summary);
    onDataset?.(summary);
  }
  const summary: SampleSummary = { version: SAMPLE_GENERATOR_VERSION, seed: options.seed, rows: options.rows, gzipAll: options.gzipAll === true, datasets };
  await writeFile(join(options.out, '.sample-manifest.json'), `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}
