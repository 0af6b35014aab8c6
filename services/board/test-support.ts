// Shared by the board's tests: the two database backends the same suite runs against, and small HTTP helpers.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startBoard, type RunningBoard, type StartOptions } from './board.js';
import { configWith, type BoardConfig } from './config.js';
import { applySchema } from './schema.js';

const run = promisify(execFile);

export interface Backend {
  readonly name: 'postgres' | 'pglite';
  /** Fresh database (its own PostgreSQL database or PGlite directory) with `posts` created. */
  start(overrides: Partial<BoardConfig>, opts: StartOptions): Promise<RunningBoard>;
  /** Takes the database away and brings it back, as an operator restarting PostgreSQL would. */
  stopDatabase(board: RunningBoard): Promise<void>;
  startDatabase(board: RunningBoard): Promise<void>;
  /** Closes the board and removes its database. */
  cleanup(board: RunningBoard): Promise<void>;
}

export const LOCAL_PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' } as const;

async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client(LOCAL_PG);
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function pgCluster(action: 'start' | 'stop'): Promise<void> {
  const [version] = await readdir('/etc/postgresql');
  if (!version) throw new Error('no PostgreSQL cluster under /etc/postgresql');
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', action]);
}

/** Starts the local cluster if it is down; every test that stops it calls this in a `finally`. */
export async function ensurePgRunning(): Promise<void> {
  try {
    await withAdmin((c) => c.query('SELECT 1'));
  } catch {
    await startPg();
  }
}

/**
 * Starts the local cluster and waits until it answers. pg_ctlcluster can report a failed start of a server that is
 * up (its wait races a stop just before; the log says "ready to accept connections"): the server answering is what
 * counts, and pg_ctlcluster's error is thrown only when it does not.
 */
async function startPg(): Promise<void> {
  const started = await pgCluster('start').then(() => undefined, (err: unknown) => err);
  const up = await waitFor(() => withAdmin((c) => c.query('SELECT 1')).then(() => true, () => false), 30_000).then(() => true, () => false);
  if (!up) throw started ?? new Error('the local PostgreSQL cluster was started but does not answer within 30 s');
}

const names = new WeakMap<RunningBoard, string>();
const dirs = new WeakMap<RunningBoard, string>();

export const postgresBackend: Backend = {
  name: 'postgres',
  async start(overrides, opts) {
    await ensurePgRunning();
    const name = `board_test_${process.pid}_${Date.now()}`;
    await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
    const config = configWith({ dbService: LOCAL_PG.host, dbPort: LOCAL_PG.port, dbUser: LOCAL_PG.user, dbName: name, port: 0, ...overrides });
    const board = await startBoard(config, { hostname: '127.0.0.1', ...opts });
    names.set(board, name);
    await applySchema(board.db.pool);
    return board;
  },
  stopDatabase: () => pgCluster('stop'),
  startDatabase: startPg,
  async cleanup(board) {
    await board.close();
    await ensurePgRunning();
    const name = names.get(board);
    if (name) await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  },
};

export const pgliteBackend: Backend = {
  name: 'pglite',
  async start(overrides, opts) {
    const dir = await mkdtemp(join(tmpdir(), 'board-pglite-'));
    const board = await startBoard(configWith({ dbService: '', dataDir: dir, port: 0, ...overrides }), { hostname: '127.0.0.1', ...opts });
    dirs.set(board, dir);
    return board;
  },
  stopDatabase: (board) => board.db.embedded!.stopServer(),
  startDatabase: (board) => board.db.embedded!.startServer(),
  async cleanup(board) {
    await board.close();
    const dir = dirs.get(board);
    if (dir) await rm(dir, { recursive: true, force: true });
  },
};

/** Polls `check` until it is true; fails after `ms`. Used for recovery, never to assert speed. */
export async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  json<T = unknown>(): T;
}

export async function call(base: string, path: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(base + path, { redirect: 'manual', ...init });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: <T>() => JSON.parse(text) as T };
}

export const postJson = (base: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
  call(base, '/api/message', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** Posts the page's form as a browser on the board's own origin would. */
export const postForm = (base: string, text: string, headers: Record<string, string> = {}): Promise<Reply> =>
  call(base, '/', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, ...headers },
    body: new URLSearchParams({ text }).toString(),
  });
