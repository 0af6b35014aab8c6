/** The data API as a child process on loopback, and a sampler of its resident memory from /proc. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const BENCH_API_KEY = 'bench-key';

export interface ApiProcess {
  readonly base: string;
  readonly pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts the data API with node itself as the child (so the pid is the server's) and waits for /readyz: the
 * compiled JS that `make api` runs when API_MAIN is set (`make bench` builds it), else `services/api/main.ts`
 * through tsx (more RSS: its loader thread; docs/performance.md, §5 memory).
 */
export async function startApi(duckdbPath: string, extraEnv: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  const env = {
    ...process.env,
    API_PORT: String(port),
    API_HOST: '127.0.0.1',
    DUCKDB_PATH: duckdbPath,
    // The bench measures the API, not its rate limiter: a bucket this large never refuses (README: RATE_LIMIT_*).
    PAGE_ROWS_PER_SECOND: '1000000000000',
    PAGE_ROWS_BURST: '1000000000000',
    API_KEYS: BENCH_API_KEY,
    ...extraEnv,
  };
  const main = process.env['API_MAIN'];
  const args = main ? [main] : ['--import', 'tsx', 'services/api/main.ts'];
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`API exited with ${code}`))));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await Promise.race([fetch(`${base}/readyz`, { headers: { 'x-api-key': BENCH_API_KEY } }).then((r) => r.ok, () => false), exited]);
    if (ready) break;
    if (Date.now() > deadline) throw new Error('API not ready after 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  exited.catch(() => undefined);
  return {
    base,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface Rss {
  readonly rssMB: number;
  readonly hwmMB: number;
}

export function readRss(pid: number): Rss | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMB: kb('VmRSS') / 1024, hwmMB: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** Samples RSS every `everyMs`; `stop()` returns the peak (max of VmRSS samples and VmHWM) and the samples. */
export function sampleRss(pid: number, everyMs = 100) {
  const samples: { t: number; rssMB: number }[] = [];
  let peak = 0;
  const started = performance.now();
  const timer = setInterval(() => {
    const r = readRss(pid);
    // A process that has exited but is not yet reaped has a status without Vm* lines: NaN would poison the peak.
    if (!r || !Number.isFinite(r.rssMB) || !Number.isFinite(r.hwmMB)) return;
    samples.push({ t: Math.round(performance.now() - started), rssMB: r.rssMB });
    peak = Math.max(peak, r.rssMB, r.hwmMB);
  }, everyMs);
  return {
    now: () => readRss(pid)?.rssMB ?? NaN,
    stop() {
      clearInterval(timer);
      return { peakMB: peak, samples };
    },
  };
}

/** Threads of libuv's pool in process `pid` (Linux): what UV_THREADPOOL_SIZE came to (services/api/limits/thread-pool.ts). */
export function libuvThreads(pid: number): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/task`).filter((t) => {
      try {
        return readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').startsWith('libuv-worker');
      } catch {
        return false;
      }
    }).length;
  } catch {
    return undefined;
  }
}
