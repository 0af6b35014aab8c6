/**
 * The datasets the publish section adds, replaces and removes: datasets of the sample generator under seeds of their
 * own, given the DOI the section names, cached beside the hub (`data/bench/<key>/changes/`). A new version of a
 * dataset is the same dataset of another seed under the same DOI: another upload of the same program.
 */
import { existsSync } from 'node:fs';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateSample, SAMPLE_GENERATOR_VERSION, type DatasetSummary } from '../sample/generate.js';

/** A generated sample of `rows` rows (cached): its datasets. */
async function sample(dir: string, rows: number, seed: number): Promise<readonly DatasetSummary[]> {
  const out = join(dir, `sample-${rows}-seed${seed}-v${SAMPLE_GENERATOR_VERSION}`);
  const manifest = join(out, '.datasets.json');
  if (existsSync(manifest)) return JSON.parse(await readFile(manifest, 'utf8')) as DatasetSummary[];
  await rm(out, { recursive: true, force: true });
  const summary = await generateSample({ rows, seed, out });
  await writeFile(manifest, JSON.stringify(summary.datasets));
  return summary.datasets;
}

/** Copies one generated dataset folder to `dest/<folder>` under `doi`. */
async function place(from: string, dest: string, folder: string, doi: string): Promise<void> {
  await rm(join(dest, folder), { recursive: true, force: true });
  await cp(from, join(dest, folder), { recursive: true });
  const path = join(dest, folder, 'metadata.json');
  const metadata = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  await writeFile(path, `${JSON.stringify({ ...metadata, DOI: doi }, null, 2)}\n`);
}

/**
 * One single-file dataset of about `rows` rows (the generator's closest), as `dest/<folder>` under `doi`; version
 * `v` is the same dataset generated with seed `seed + v`. Returns the folder to ingest (`SRC`) and its row count.
 */
export async function oneDataset(cache: string, dest: string, doi: string, rows: number, seed: number, version = 0): Promise<{ src: string; rows: number }> {
  // The sample spreads its rows over 13 datasets of different sizes; one of them lands near `rows`.
  const datasets = await sample(cache, rows * 13, seed + version);
  const single = datasets.filter((d) => d.files.length === 1).sort((a, b) => Math.abs(a.rows - rows) - Math.abs(b.rows - rows))[0]!;
  await rm(dest, { recursive: true, force: true });
  await place(join(cache, `sample-${rows * 13}-seed${seed + version}-v${SAMPLE_GENERATOR_VERSION}`, single.folder), dest, single.folder, doi);
  return { src: dest, rows: single.rows };
}

/** The pool of the no-decay run: `rows` rows over the generator's 13 datasets; version `v` of each under its DOI. */
export async function poolDataset(cache: string, dest: string, rows: number, seed: number, index: number, version: number): Promise<string> {
  const base = (await sample(cache, rows, seed))[index]!;
  const folder = join(cache, `sample-${rows}-seed${seed + version}-v${SAMPLE_GENERATOR_VERSION}`, (await sample(cache, rows, seed + version))[index]!.folder);
  await rm(dest, { recursive: true, force: true });
  await place(folder, dest, base.folder, base.doi);
  return dest;
}

/** The pool's DOIs, by index (every version keeps its dataset's). */
export async function poolDois(cache: string, rows: number, seed: number): Promise<string[]> {
  return (await sample(cache, rows, seed)).map((d) => d.doi);
}
