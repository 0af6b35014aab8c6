/**
 * `make start`: the whole service on embedded defaults. On first run it generates the sample datasets and
 * ingests them; then it runs the data API and the message board side by side until either stops or a
 * signal arrives, which it passes on so both drain.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

const env = { ...process.env };
env['DUCKDB_PATH'] ??= 'data/tributary.duckdb';
env['OUT'] ??= 'data/sample';
env['SRC'] ??= env['OUT'];
env['REGIONS_FILE'] ??= 'scripts/sample/hubs.geojson';
// The explorer page at /explore calls the API from the API's own origin: listing it keeps the page working
// without a key even once keys are issued (middleware/cors.ts).
const apiPort = env['API_PORT'] ?? '3000';
env['CORS_ORIGINS'] ??= `http://localhost:${apiPort},http://127.0.0.1:${apiPort}`;

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

try {
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
for (const child of children) {
  child.on('exit', (code) => {
    // A service that stops on its own is a failure of the whole: take the other one down with it.
    if (!stopping) exitCode = code || 1;
    stop('SIGTERM');
    if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit(exitCode);
  });
}
