/**
 * Test support: the data API on a loopback socket as `make start` runs it — config.ts's defaults, the settings
 * make start adds (make-start-env.ts), the access policy main.ts builds from them (access-options.ts), no key issued
 * — so a test of a real client under the defaults fails when a default changes that would fail the client.
 */
import type { Hono } from 'hono';
import { accessOptions } from '../access-options.js';
import { createApp, type AppDeps } from '../app.js';
import { loadApiConfig, type ApiConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { openKeyStore } from '../keys/key-store.js';
import { makeStartApiEnv } from '../make-start-env.js';
import { NODE_SERVER_OPTIONS } from '../middleware/url-length.js';
import { listen, type TestServer } from './test-server.js';

export interface StartDefaultsServer extends TestServer {
  readonly config: ApiConfig;
}

/** `deps`: what the test adds beside the access policy (the explorer's assets, the files folder, a request log). */
export async function listenAsMakeStart(db: Database, deps: Partial<AppDeps> = {}, wrap: (app: Hono) => Hono['fetch'] = (app) => app.fetch): Promise<StartDefaultsServer> {
  let fetch: Hono['fetch'] | undefined;
  const server = await listen({ fetch: (req: Request) => fetch!(req) }, NODE_SERVER_OPTIONS);
  const config = loadApiConfig({ ...makeStartApiEnv(server.port) });
  // A fresh checkout: no key file, no API_KEYS; the API is open and counts clients by address.
  const keys = await openKeyStore({ plainKeys: config.API_KEYS, pollMs: 0 });
  const app = createApp({
    acquire: () => db.acquire(),
    links: { publicBaseUrl: config.PUBLIC_BASE_URL, trustProxy: config.TRUST_PROXY },
    limits: { queryTimeoutMs: config.QUERY_TIMEOUT_MS, maxPageBytes: config.MAX_PAGE_BYTES, streamStallMs: config.STREAM_STALL_MS },
    exportTimeoutMs: config.EXPORT_TIMEOUT_MS,
    ...deps,
    access: accessOptions(config, { keys }),
  });
  fetch = wrap(app);
  return {
    ...server,
    config,
    async close() {
      await server.close();
      keys.close();
    },
  };
}
