/**
 * N API replicas on loopback ports behind HAProxy, sharing Redis and a publication store: what `make replicas`
 * runs and what the replica tests start. Every process is a child of the caller and is killed by stop().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRedis, waitForRedis } from '../../../services/api/redis/redis-client.js';
import { haproxyConfig } from './haproxy-config.js';

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');

export interface Replica {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  process: ChildProcess;
  /** Every line the replica logged (stdout and stderr). */
  readonly logs: string[];
}

export interface TopologyOptions {
  readonly replicas: number;
  readonly redisUrl: string;
  readonly store: string;
  /** The balancer's port (0: a free one). */
  readonly port?: number;
  readonly host?: string;
  /** First replica port (0: free ones). */
  readonly replicaBasePort?: number;
  /** Extra environment of every replica (API_KEYS, REDIS_PREFIX, limits…). */
  readonly env?: Record<string, string>;
  /** How a replica starts: compiled JavaScript (make replicas) or through tsx (tests, no build). */
  readonly apiMain?: { readonly args: readonly string[] };
  readonly log?: (line: string) => void;
}

export interface Topology {
  readonly url: string;
  readonly replicas: readonly Replica[];
  readonly haproxy: ChildProcess;
  /** Starts a replica again (after a kill) on its port. */
  restart(index: number): Promise<void>;
  /** Kills everything this topology started (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The per-process defaults divided among replicas that share this machine's cores. Each replica otherwise runs
 * DuckDB with a thread per core, 8 query slots and 4 cursors, as a server alone on the machine would: three of them
 * on 2 cores answered 503 after 30 s in the query queue where divided ones served the same mix without error
 * (docs/deployment.md, What replicas cost). A variable set in the environment or `env` wins.
 */
export function colocatedDefaults(replicas: number, cores = availableParallelism()): Record<string, string> {
  return {
    DUCKDB_THREADS: String(Math.max(1, Math.floor(cores / replicas))),
    MAX_CONCURRENT_QUERIES: String(Math.max(2, Math.ceil(8 / replicas))),
    CURSOR_CACHE_SIZE: String(Math.max(1, Math.ceil(4 / replicas))),
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolvePort(port));
    });
  });
}

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/**
 * A redis-server of the caller's own on `port`, with nothing on disk (a restart starts empty), resolved once it
 * answers PING: the replicas' shared Redis in the tests and the bench, which a test may stop without disturbing any
 * other.
 */
export async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const probe = createRedis({ url });
  try {
    await waitForRedis(probe, url, 5000);
    return child;
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    probe.disconnect();
  }
}

async function killAndWait(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
}

/** Polls `url` until it answers 200, at most `ms`. */
export async function waitForOk(url: string, ms: number, headers: Record<string, string> = {}): Promise<void> {
  const until = Date.now() + ms;
  let last = '';
  while (Date.now() < until) {
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
      last = `status ${res.status}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 within ${ms} ms (${last})`);
}

export async function startTopology(opts: TopologyOptions): Promise<Topology> {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? (() => {});
  const apiArgs = opts.apiMain?.args ?? ['--import', 'tsx', 'services/api/main.ts'];
  const ports: number[] = [];
  for (let i = 0; i < opts.replicas; i++) ports.push(opts.replicaBasePort ? opts.replicaBasePort + i : await freePort());
  const balancerPort = opts.port || (await freePort());

  const colocated = colocatedDefaults(opts.replicas);
  const replicas: Replica[] = ports.map((port, i) => ({ name: `api${i + 1}`, port, url: `http://127.0.0.1:${port}`, process: undefined as unknown as ChildProcess, logs: [] }));
  const children: ChildProcess[] = [];

  function spawnReplica(r: Replica): void {
    const child = spawn(process.execPath, apiArgs, {
      cwd: REPO_ROOT,
      env: {
        ...colocated,
        ...process.env,
        API_HOST: '127.0.0.1',
        API_PORT: String(r.port),
        REDIS_URL: opts.redisUrl,
        PUBLICATION_STORE: opts.store,
        TRUST_PROXY: '1',
        // Unready for this long after SIGTERM: the balancer's two failed checks 250 ms apart take it out first.
        SHUTDOWN_DELAY_MS: '1500',
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.setEncoding('utf8');
      stream.on('data', (d: string) => {
        for (const line of d.split('\n')) {
          if (!line) continue;
          r.logs.push(line);
          log(`${r.name}: ${line}`);
        }
      });
    }
    r.process = child;
    children.push(child);
  }

  const dir = mkdtempSync(join(tmpdir(), 'tributary-haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  let haproxy: ChildProcess | undefined;
  const stop = async (graceMs = 3000) => {
    await Promise.all([...children, ...(haproxy ? [haproxy] : [])].map((c) => killAndWait(c, graceMs)));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    replicas.forEach(spawnReplica);
    await Promise.all(replicas.map((r) => waitForOk(`${r.url}/readyz`, 60_000)));
    writeFileSync(
      config,
      haproxyConfig({ bind: `${host}:${balancerPort}`, backends: { kind: 'static', servers: replicas.map((r) => ({ name: r.name, host: '127.0.0.1', port: r.port })) } }),
    );
    haproxy = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    haproxy.on('error', (err) => log(`haproxy: ${err.message} (install it: apt-get install -y haproxy)`));
    for (const stream of [haproxy.stdout!, haproxy.stderr!]) stream.on('data', (d: Buffer) => log(`haproxy: ${d.toString().trim()}`));
    const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${balancerPort}`;
    await waitForOk(`${url}/readyz`, 20_000);
    return {
      url,
      replicas,
      haproxy,
      async restart(index) {
        const r = replicas[index]!;
        await killAndWait(r.process, 3000);
        spawnReplica(r);
        await waitForOk(`${r.url}/readyz`, 60_000);
      },
      stop,
    };
  } catch (err) {
    await stop(1000);
    throw err;
  }
}
