import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `make start`'s first run (scripts/ops/start.ts) as a newcomer sees it, on paths of the test's own: it generates the
 * sample, ingests it with no warning about the project's own data, starts the API and the board, and prints where
 * they are, each address answering.
 */

const root = new URL('../..', import.meta.url).pathname;

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

let dir: string;
let child: ChildProcess;
let output = '';
let apiPort: number;
let boardPort: number;

/** Resolves with everything printed once `text` is among it; rejects if the process ends first. */
function printed(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (output.includes(text)) resolve(output);
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.on('exit', (code) => reject(new Error(`make start exited (${code}) before printing ${JSON.stringify(text)}:\n${output}`)));
    check();
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tributary-start-'));
  [apiPort, boardPort] = [await freePort(), await freePort()];
  const env = {
    ...process.env, ROWS: '6000', OUT: join(dir, 'sample'), DUCKDB_PATH: join(dir, 'tributary.duckdb'), BOARD_DATA_DIR: join(dir, 'board'),
    API_PORT: String(apiPort), PORT: String(boardPort), API_HOST: '127.0.0.1', DB_SERVICE: '', API_MAIN: '',
  };
  delete (env as Record<string, string | undefined>).SRC;
  child = spawn(process.execPath, ['--import', 'tsx', 'scripts/ops/start.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
}, 10_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  await rm(dir, { recursive: true, force: true });
});

describe('make start, first run', () => {
  it('ingests the sample it generates without a warning, and prints the addresses of the API, the explorer and the board', async () => {
    const out = await printed('Ctrl-C stops both.');
    expect(out).toContain('no database at');
    expect(out).toMatch(/published .*: 6000 rows loaded/);
    // Ingest's warnings (an upstream quality-control rule failed, a deprecated name or status): none about our sample.
    expect(out.split('\n').filter((l) => /^warning: |fail upstream quality-control rule/.test(l))).toEqual([]);
    const api = `http://localhost:${apiPort}`;
    const addresses = [`${api}/v1/odata/v4`, `${api}/explore`, `http://localhost:${boardPort}/`];
    for (const address of addresses) expect(out).toContain(address);
    for (const address of addresses) expect((await fetch(address)).status, address).toBe(200);
    expect(out.slice(out.indexOf('Tributary is running:'))).toMatch(/^Tributary is running:\n {2}data API {2}http.*\n {2}explorer {2}http.*\n {2}board {5}http.*\nCtrl-C stops both\./);
  }, 240_000);
});
