/**
 * Test support: a real published DuckDB file, made the way production makes one — the sample generator's
 * CLI writes datasets, the ingest CLI publishes them — built once per test run (vitest globalSetup) and
 * shared read-only by every API test file.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { plainFilesDir } from '../../../schemas/publication-files.js';

declare module 'vitest' {
  export interface ProvidedContext {
    apiFixtureDb: string;
    sampleHub: SampleHub;
    ingestCli: string;
  }
}

/** A published file and the sample datasets it was ingested from, for tests that publish changes onto a hub. */
export interface SampleHub {
  readonly duckdbPath: string;
  /** The generator's output, one folder per dataset: read only (copy a folder to change it). */
  readonly src: string;
}

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
/** Small enough to build in seconds, large enough for several 1,000-row pages per location filter. */
export const FIXTURE_ROWS = '30000';

/**
 * The ingest CLI (ingest/main.ts) bundled into one ES module by esbuild, for tests to start with `node <it>`: tests
 * start the CLI dozens of times, and, as for `make ingest` (compiled JavaScript), a start skips tsx's loader. Written
 * inside the repository (test-artifacts/, git-ignored), so that its packages resolve from node_modules.
 */
export function bundleIngestCli(): { path: string; remove: () => void } {
  mkdirSync(join(REPO_ROOT, 'test-artifacts'), { recursive: true });
  const dir = mkdtempSync(join(REPO_ROOT, 'test-artifacts', 'ingest-cli-'));
  const path = join(dir, 'ingest.mjs');
  buildSync({ entryPoints: [join(REPO_ROOT, 'ingest/main.ts')], outfile: path, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'error' });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function buildFixtureDatabase(dir: string, ingestCli: string): SampleHub {
  const src = join(dir, 'sample');
  const env = { ...process.env, ROWS: FIXTURE_ROWS, SEED: '7', OUT: src, SRC: src };
  const duckdbPath = join(dir, 'tributary.duckdb');
  const run = (args: string[]) =>
    execFileSync(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...env, DUCKDB_PATH: duckdbPath, REGIONS_FILE: join(REPO_ROOT, 'scripts/sample/hubs.geojson') },
      stdio: 'pipe',
    });
  run(['--import', 'tsx', 'scripts/sample/main.ts']);
  run([ingestCli, 'ingest']);
  return { duckdbPath, src };
}

export default function setup(project: TestProject): () => void {
  const cli = bundleIngestCli();
  project.provide('ingestCli', cli.path);
  const dir = mkdtempSync(join(tmpdir(), 'tributary-api-'));
  const hub = buildFixtureDatabase(dir, cli.path);
  project.provide('sampleHub', hub);
  // API_FIXTURE_DB runs the API tests against a file of one's own (e.g. the bench's 10M-row file, to time the
  // explorer on it): `API_FIXTURE_DB=… npx vitest run --config scripts/vitest.config.ts services/api/routes/explore`.
  // Ingest's tests still publish onto the sample hub, whose datasets they know.
  const given = process.env.API_FIXTURE_DB;
  project.provide('apiFixtureDb', given ? resolve(given) : hub.duckdbPath);
  return () => {
    rmSync(dir, { recursive: true, force: true });
    cli.remove();
  };
}

/**
 * A copy of a published file with its dataset files (`<file>.files`), which it lists: copying the file alone leaves
 * a hub that ingest refuses to publish to a store or modify ("neither in … nor in …: ingest the dataset again").
 */
export function copyPublished(from: string, to: string): void {
  copyFileSync(from, to);
  if (existsSync(plainFilesDir(from))) cpSync(plainFilesDir(from), plainFilesDir(to), { recursive: true });
}
