/**
 * The API process as the orchestrator runs it (services/api/main.ts in a child process): health checks, and
 * SIGTERM — stop accepting, finish in-flight responses up to SHUTDOWN_GRACE_MS, close DuckDB, exit 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { REPO_ROOT } from './testing/fixture-db.js';

const dir = mkdtempSync(join(tmpdir(), 'tributary-shutdown-'));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Api {
  child: ChildProcess;
  port: number;
  output: () => string;
  /** Settles once the process has exited and its output is all read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startApi(env: Record<string, string> = {}): Promise<Api> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/api/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      API_HOST: '127.0.0.1',
      API_PORT: '0',
      DUCKDB_PATH: inject('apiFixtureDb'),
      API_KEYS: 'shutdown-test-key',
      API_KEYS_FILE: join(dir, 'no-such-keys.json'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  const LISTENING = /listening on http:\/\/127\.0\.0\.1:(\d+)/;
  // Settles on the line that says it listens, or on its exit before that line.
  const listening = new Promise<number>((resolve, reject) => {
    const read = (d: Buffer) => {
      out += d.toString();
      const port = LISTENING.exec(out)?.[1];
      if (port) resolve(Number(port));
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('close', () => reject(new Error(`API did not start:\n${out}`)));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('close', (code, signal) => r({ code, signal })));
  const port = await listening;
  return { child, port, output: () => out, exited };
}

const KEY = { 'x-api-key': 'shutdown-test-key' };

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A 10,000-row page whose reading is paused after the first bytes until `resume()`. */
function pausedPage(port: number): Promise<{ res: IncomingMessage; resume: () => Promise<{ body: string; complete: boolean }> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/odata/v4/Records?%24top=10000', headers: KEY, agent: false }, (res) => {
      const parts: Buffer[] = [];
      const done = new Promise<{ body: string; complete: boolean }>((r) => {
        res.on('close', () => r({ body: Buffer.concat(parts).toString('utf8'), complete: res.complete }));
        res.on('error', () => {});
      });
      res.once('data', (d: Buffer) => {
        parts.push(d);
        res.pause();
        resolve({
          res,
          resume: () => {
            res.on('data', (chunk: Buffer) => parts.push(chunk));
            res.resume();
            return done;
          },
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('health checks', () => {
  it('/healthz (process up) and /readyz (database answers a query) need no key', async () => {
    const api = await startApi();
    const health = await get(api.port, '/healthz');
    expect([health.status, JSON.parse(health.text)]).toEqual([200, { status: 'ok' }]);
    const ready = await get(api.port, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text).status).toBe('ready');
    expect((await get(api.port, '/v1/odata/v4/Records?%24top=1')).status).toBe(401);
    api.child.kill('SIGTERM');
    expect(await api.exited).toEqual({ code: 0, signal: null });
  });
});

describe('SIGTERM', () => {
  it('stops accepting, finishes the in-flight page, closes DuckDB and exits 0', async () => {
    const api = await startApi({ SHUTDOWN_GRACE_MS: '20000' });
    const page = await pausedPage(api.port);
    api.child.kill('SIGTERM');
    // New connections are refused once the listener is closed.
    let refused = false;
    for (let i = 0; i < 100 && !refused; i++) {
      refused = await get(api.port, '/healthz').then(
        () => false,
        (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED',
      );
      if (!refused) await new Promise((r) => setTimeout(r, 20));
    }
    expect(refused).toBe(true);
    expect(api.child.exitCode).toBeNull(); // still serving the page
    const { body, complete } = await page.resume();
    expect(complete).toBe(true);
    expect(JSON.parse(body).value).toHaveLength(10000);
    expect(await api.exited).toEqual({ code: 0, signal: null });
    expect(api.output()).toMatch(/SIGTERM: draining[\s\S]*stopped/);
  });

  it('a response still running at SHUTDOWN_GRACE_MS is cut, and the process still exits 0', async () => {
    const api = await startApi({ SHUTDOWN_GRACE_MS: '300' });
    const page = await pausedPage(api.port);
    const started = Date.now();
    api.child.kill('SIGTERM');
    expect(await api.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(5000);
    const { complete } = await page.resume();
    expect(complete).toBe(false);
    expect(api.output()).toMatch(/drain deadline reached[\s\S]*stopped/);
  });

  it('exits while an extract cursor waits between pages with its COPY blocked on a full pipe', async () => {
    // Page 2 of a next-link extract opens a cursor over every remaining row (~28,000 Records rows, ~40 MB of
    // JSON): it reads ahead 8 MiB, its pipe's thread holds up to 8 MiB more, and the COPY then blocks in a write.
    // Before shutdown awaited the cursors' close, such a process logged "stopped" and never exited.
    const api = await startApi({ SHUTDOWN_GRACE_MS: '2000', CURSOR_IDLE_MS: '600000' });
    const first = await get(api.port, '/v1/odata/v4/Records?%24top=1000', KEY);
    const next = new URL(JSON.parse(first.text)['@odata.nextLink']);
    const second = await get(api.port, next.pathname + next.search, KEY);
    expect(JSON.parse(second.text).value).toHaveLength(1000);
    // Let the cursor fill its read-ahead and block; the process then holds the cursor's named pipe open.
    await new Promise((r) => setTimeout(r, 1500));
    const fds = readdirSync(`/proc/${api.child.pid}/fd`).map((fd) => {
      try {
        return readlinkSync(`/proc/${api.child.pid}/fd/${fd}`);
      } catch {
        return '';
      }
    });
    expect(fds.filter((f) => /tributary-pipes-[^/]*\/p\d+$/.test(f)).length, fds.join('\n')).toBeGreaterThan(0);
    const started = Date.now();
    api.child.kill('SIGTERM');
    const exited = await Promise.race([api.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000))]);
    expect(exited, api.output()).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(api.output()).toMatch(/SIGTERM: draining[\s\S]*stopped/);
  });
});
