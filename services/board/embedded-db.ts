import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedDb {
  readonly host: string;
  readonly port: number;
  /** Stops the socket server (dropping its clients) and keeps PGlite open; `start` again serves the same data. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  close(): Promise<void>;
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly) served on a loopback port, so the board talks to it with the same
 * `pg` code as to a real server. PGlite runs one backend; the socket server's multiplexer queues clients'
 * messages and, while one client is inside a transaction, serves only that client.
 */
export async function startEmbeddedDb(opts: { dataDir: string; maxConnections: number }): Promise<EmbeddedDb> {
  await mkdir(opts.dataDir, { recursive: true });
  const db = await PGlite.create(opts.dataDir);
  let port = 0;
  let server: PGLiteSocketServer | undefined;

  const startServer = async (): Promise<void> => {
    // Reuse the first port on restart so pooled clients reconnect to the same address.
    const s = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: opts.maxConnections });
    await s.start();
    port = Number(s.getServerConn().split(':').pop());
    server = s;
  };
  const stopServer = async (): Promise<void> => {
    const s = server;
    server = undefined;
    await s?.stop();
  };

  try {
    await startServer();
  } catch (err) {
    await db.close();
    throw err;
  }
  return {
    host: '127.0.0.1',
    get port() {
      return port;
    },
    stopServer,
    startServer,
    async close() {
      await stopServer();
      await db.close();
    },
  };
}
