/**
 * `make start`: the whole service on embedded defaults. On first run it generates the sample datasets and
 * ingests them; then it runs the data API and the message board side by side until either stops or a
 * signal arrives, which it passes on so both drain. Once both answer, it prints where: the API, its explorer, the
 * board.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { STORAGE_SCHEMA_VERSION } from '../../schemas/index.js';
import { PATHS } from '../../services/api/http/paths.js';
import { makeStartApiEnv } from '../../services/api/make-start-env.js';
import { SAMPLE_GENERATOR_VERSION } from '../sample/generate.js';

const env = { ...process.env };
env['DUCKDB_PATH'] ??= 'data/tributary.duckdb';
env['OUT'] ??= 'data/sample';
env['SRC'] ??= env['OUT'];
env['REGIONS_FILE'] ??= 'scripts/sample/hubs.geojson';
// Beyond config.ts's defaults, the settings the API runs with here (the explorer's origin): shared with the tests
// that run real clients as make start would.
const apiPort = env['API_PORT'] ?? '3000';
// services/board/config.ts: the board's port is PORT.
const boardPort = env['PORT'] ?? '8080';
for (const [name, value] of Object.entries(makeStartApiEnv(apiPort))) env[name] ??= value;

function run(script: string, args: string[] = []): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], { env, stdio: 'inherit' });
}

/** The data API as `make api` runs it: compiled JS (API_MAIN, set by the Makefile's build), else through tsx. */
function runApi(): ChildProcess {
  const main = process.env['API_MAIN'];
  return main ? spawn(process.execPath, [main], { env, stdio: 'inherit' }) : run('services/api/main.ts');
}

function once(script: string, args: string[] = []): Promise<void> {
  return new Promise((resolve, reject) => {
    run(script, args).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${script} exited with ${code}`))));
  });
}

/** The storage schema version of a published file, or null when it has none to read. */
async function storageVersion(path: string): Promise<string | null> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  try {
    const conn = await instance.connect();
    const rows = (await conn.runAndReadAll(`SELECT value FROM tributary_meta WHERE key = 'schema_version'`)).getRows();
    conn.closeSync();
    return rows[0]?.[0] === undefined ? null : String(rows[0][0]);
  } catch {
    return null;
  } finally {
    instance.closeSync();
  }
}

/**
 * On the embedded defaults the sample and its database are this repository's derived data: a sample from an older
 * generator, or a database of another storage version, is rebuilt (with the API's own refusal, `make start` would
 * otherwise stop on every machine that ran an older version). Files named by the operator are never touched.
 */
async function refreshDerivedData(): Promise<void> {
  if (env['DUCKDB_PATH'] !== 'data/tributary.duckdb' || env['OUT'] !== 'data/sample' || env['SRC'] !== env['OUT']) return;
  const manifest = join(env['OUT']!, '.sample-manifest.json');
  const version = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version : undefined;
  const staleSample = version !== undefined && version !== SAMPLE_GENERATOR_VERSION;
  if (staleSample) {
    console.log(`${env['OUT']} is from sample generator v${version}; this checkout writes v${SAMPLE_GENERATOR_VERSION}: generating it again`);
    rmSync(env['OUT']!, { recursive: true, force: true });
  }
  const db = env['DUCKDB_PATH']!;
  const stored = existsSync(db) ? await storageVersion(db) : null;
  if (existsSync(db) && (staleSample || stored !== STORAGE_SCHEMA_VERSION)) {
    console.log(`${db} holds storage schema ${stored ?? 'unknown'} of an older sample; this checkout reads ${STORAGE_SCHEMA_VERSION}: ingesting it again`);
    for (const file of [db, `${db}.wal`]) rmSync(file, { force: true });
  }
}

try {
  await refreshDerivedData();
  if (!existsSync(env['DUCKDB_PATH']!)) {
    if (!existsSync(env['SRC']!)) {
      console.log(`no sample data in ${env['SRC']}: generating it (make sample)`);
      await once('scripts/sample/main.ts');
    }
    console.log(`no database at ${env['DUCKDB_PATH']}: ingesting ${env['SRC']} (make ingest)`);
    await once('ingest/main.ts', ['ingest']);
  }
} catch (err) {
  console.error(`make start: ${(err as Error).message}; see the messages above.`);
  process.exit(1);
}

const children = [runApi(), run('services/board/main.ts')];
let stopping = false;
let exitCode = 0;
function stop(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill(signal);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(signal));
/** Whether `url` answers 200 before `child` stops, asked again every quarter second until it does. */
async function answers(url: string, child: ChildProcess): Promise<boolean> {
  while (child.exitCode === null && child.signalCode === null && !stopping) {
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** Once the API and the board are ready: where they are, the explorer among them. */
async function announce([api, board]: ChildProcess[]): Promise<void> {
  const origin = `http://localhost:${apiPort}`;
  if (!(await answers(`${origin}${PATHS.readyz}`, api!)) || !(await answers(`http://localhost:${boardPort}/readyz`, board!))) return;
  console.log(
    [
      'Tributary is running:',
      `  data API  ${origin}${PATHS.odata}  (its documentation: ${origin}${PATHS.docs})`,
      `  explorer  ${origin}${PATHS.explore}`,
      `  board     http://localhost:${boardPort}/`,
      'Ctrl-C stops both.',
    ].join('\n'),
  );
}

void announce(children);
for (const child of children) {
  child.on('exit', (code) => {
    // A service that stops on its own is a failure of the whole: take the other one down with it.
    if (!stopping) exitCode = code || 1;
    stop('SIGTERM');
    if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit(exitCode);
  });
}
