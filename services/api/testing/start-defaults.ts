/**
 * Test support: the data API on a loopback socket as `make start` runs it — config.ts's defaults, the settings
 * make start adds (make-start-env.ts), the access policy main.ts builds from them (access-options.ts), no key issued
 * unless the test issues one — so a test of a real client under the defaults fails when a default changes that
 * would fail the client. Every answer is logged, so a test can say that none was refused.
 */
import { accessOptions } from '../access-options.js';
import { createApp, type AppDeps } from '../app.js';
import { loadApiConfig, type ApiConfig } from '../config.js';
import { acquirer, type Database } from '../db/database.js';
import { openKeyStore } from '../keys/key-store.js';
import { makeStartApiEnv } from '../make-start-env.js';
import { NODE_SERVER_OPTIONS } from '../middleware/url-length.js';
import { listen, type TestServer } from './test-server.js';

export interface Answered {
  readonly method: string;
  /** Path and query, decoded. */
  readonly target: string;
  readonly status: number;
}

export interface StartDefaultsServer extends TestServer {
  readonly config: ApiConfig;
  /** Every request answered, in order. */
  readonly answered: Answered[];
}

export interface MakeStartOptions {
  /** Settings beside make start's (e.g. `API_KEYS`: a key issued). */
  readonly env?: Record<string, string>;
  /** What the test adds beside the access policy (the explorer's assets, the files folder). */
  readonly deps?: Partial<AppDeps>;
}

export async function listenAsMakeStart(db: Database, opts: MakeStartOptions = {}): Promise<StartDefaultsServer> {
  let app: ReturnType<typeof createApp> | undefined;
  const answered: Answered[] = [];
  const server = await listen(
    {
      fetch: async (req: Request) => {
        const res = await app!.fetch(req);
        const url = new URL(req.url);
        answered.push({ method: req.method, target: decodeURIComponent(url.pathname + url.search), status: res.status });
        return res;
      },
    },
    NODE_SERVER_OPTIONS,
  );
  const config = loadApiConfig({ ...makeStartApiEnv(server.port), ...opts.env });
  // A fresh checkout has no key file: the API is open (counting clients by address) unless the test issues a key.
  const keys = await openKeyStore({ plainKeys: config.API_KEYS, pollMs: 0 });
  app = createApp({
    acquire: acquirer(db),
    links: { publicBaseUrl: config.PUBLIC_BASE_URL, trustProxy: config.TRUST_PROXY },
    limits: { queryTimeoutMs: config.QUERY_TIMEOUT_MS, maxPageBytes: config.MAX_PAGE_BYTES, streamStallMs: config.STREAM_STALL_MS },
    exportTimeoutMs: config.EXPORT_TIMEOUT_MS,
    ...opts.deps,
    access: accessOptions(config, { keys }),
  });
  return {
    ...server,
    config,
    answered,
    async close() {
      await server.close();
      keys.close();
    },
  };
}

/** The answers from `from` on that were 429 (`method target`), for `expect(…).toEqual([])`. */
export function refusals(server: StartDefaultsServer, from = 0): string[] {
  return server.answered.slice(from).filter((a) => a.status === 429).map((a) => `${a.method} ${a.target}`);
}
