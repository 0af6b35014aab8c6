/**
 * The datasets the publish section adds, replaces and removes: built from the sample generator with seeds of
 * their own (so their DOIs are new to the hub), cached beside the hub (`data/bench/<key>/changes/`).
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { generateSample, SAMPLE_GENERATOR_VERSION } from '../sample/generate.js';

/**
 * One dataset of exactly `rows` rows under `dest/<name>/`: a sample of that size, its files put under the first
 * dataset's metadata with the DOI `doi` (a dataset may hold files of several shapes; each is read on its own).
 */
export async function singleDataset(dest: string, name: string, doi: string, rows: number, seed: number): Promise<string> {
  const folder = join(dest, name);
  const stamp = join(folder, `.v${SAMPLE_GENERATOR_VERSION}-${rows}-${seed}`);
  if (existsSync(stamp)) return dest;
  await rm(folder, { recursive: true, force: true });
  const tmp = `${folder}.tmp`;
  await rm(tmp, { recursive: true, force: true });
  const summary = await generateSample({ rows, seed, out: tmp });
  await mkdir(folder, { recursive: true });
  const metadata = JSON.parse(await readFile(join(tmp, summary.datasets[0]!.folder, 'metadata.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(folder, 'metadata.json'), `${JSON.stringify({ ...metadata, DOI: doi }, null, 2)}\n`);
  for (const [i, d] of summary.datasets.entries()) {
    for (const file of d.files) await rename(join(tmp, d.folder, file), join(folder, `${i}-${file}`));
  }
  await rm(tmp, { recursive: true, force: true });
  await writeFile(stamp, '');
  return dest;
}

/** A new version of every dataset under `src` (one in `version` data rows dropped from each file), in `dest`. */
export async function newVersion(src: string, dest: string, version: number): Promise<string> {
  await rm(dest, { recursive: true, force: true });
  await cp(src, dest, { recursive: true });
  for (const folder of await readdir(dest)) {
    for (const name of await readdir(join(dest, folder))) {
      if (!/\.csv(\.gz)?$/.test(name)) continue;
      const path = join(dest, folder, name);
      const gz = name.endsWith('.gz');
      const raw = await readFile(path);
      const [header, ...rows] = (gz ? gunzipSync(raw) : raw).toString('utf8').trimEnd().split('\n');
      const kept = rows.filter((_, i) => (i + version) % (version + 2) !== 0);
      const text = Buffer.from(`${[header, ...kept].join('\n')}\n`);
      await writeFile(path, gz ? gzipSync(text) : text);
    }
  }
  return dest;
}
