import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createApp, type AppDeps } from './app.js';
import type { BoardConfig } from './config.js';
import { openDatabase, type Database } from './database.js';
import type { Log } from './log.js';
import { createMessages } from './messages.js';

export interface RunningBoard {
  /** Loopback URL of the listening server, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  readonly port: number;
  readonly db: Database;
  /** Stops accepting, lets in-flight requests finish (up to the shutdown timeout), then closes the pool. */
  close(): Promise<void>;
}

export interface StartOptions {
  readonly log: Log;
  /** Interface to bind; default all interfaces (what the load balancer needs). Tests pass 127.0.0.1. */
  readonly hostname?: string;
  /** Rows per cursor batch; tests make it small so a listing spans several batches. */
  readonly batchSize?: number;
  readonly app?: Partial<Pick<AppDeps, 'now' | 'clientAddress'>>;
}

/** Opens the database, builds the app and serves it: everything `main.ts`, tests and the load script share. */
export async function startBoard(config: BoardConfig, opts: StartOptions): Promise<RunningBoard> {
  const db = await openDatabase(config, { log: opts.log });
  const messages = createMessages(db.pool, {
    exclusiveStatements: db.embedded !== undefined,
    ...(opts.batchSize === undefined ? {} : { batchSize: opts.batchSize }),
  });
  let draining = false;
  const app = createApp({ messages, config, log: opts.log, isDraining: () => draining, ...opts.app });
  const server = serve({ fetch: app.fetch, port: config.port, ...(opts.hostname ? { hostname: opts.hostname } : {}) }) as Server;
  try {
    await once(server, 'listening');
  } catch (err) {
    await db.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Keep-alive sockets between requests would hold close() open; sockets mid-response finish first.
    server.closeIdleConnections();
    const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        server.closeAllConnections();
        resolve();
      }, config.shutdownTimeoutMs);
    });
    await Promise.race([closed, deadline]);
    clearInterval(idleSweep);
    clearTimeout(timer);
    await db.close();
  };

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    db,
    close: () => (closing ??= close()),
  };
}
