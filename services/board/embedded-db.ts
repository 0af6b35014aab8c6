import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedDb {
  /** The socket's directory, as libpq and node-postgres name a Unix socket: `host` is the folder, `port` its suffix. */
  readonly host: string;
  readonly port: number;
  /** Stops the socket server (dropping its clients) and keeps PGlite open; `start` again serves the same data. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL's socket file name for a port; node-postgres connects to `<host>/.s.PGSQL.<port>`. */
const PORT = 5432;

/**
 * PGlite (PostgreSQL compiled to WebAssembly) served on a Unix socket, so the board talks to it with the same
 * `pg` code as to a real server. PGlite runs one backend; the socket server's multiplexer queues clients'
 * messages and, while one client is inside a transaction, serves only that client. PGlite takes any user as
 * superuser, so the socket lives in a folder only this process's user can enter (mkdtemp makes it 0700): a
 * loopback port would let any local program read and write every message, or hold a transaction open and stall
 * the board.
 */
export async function startEmbeddedDb(opts: { dataDir: string; maxConnections: number }): Promise<EmbeddedDb> {
  await mkdir(opts.dataDir, { recursive: true });
  const db = await PGlite.create(opts.dataDir);
  const socketDir = await mkdtemp(join(tmpdir(), 'tributary-board-pg-'));
  let server: PGLiteSocketServer | undefined;

  const startServer = async (): Promise<void> => {
    const s = new PGLiteSocketServer({ db, path: join(socketDir, `.s.PGSQL.${PORT}`), maxConnections: opts.maxConnections });
    await s.start();
    server = s;
  };
  const stopServer = async (): Promise<void> => {
    const s = server;
    server = undefined;
    await s?.stop();
  };

  const release = async (): Promise<void> => {
    await db.close();
    await rm(socketDir, { recursive: true, force: true });
  };
  try {
    await startServer();
  } catch (err) {
    await release();
    throw err;
  }
  return {
    host: socketDir,
    port: PORT,
    stopServer,
    startServer,
    async close() {
      await stopServer();
      await release();
    },
  };
}
