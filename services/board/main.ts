// Entry point of `make board`: the only file that reads the process environment, listens and handles signals.
import { startBoard } from './board.js';
import { describeDatabase, loadConfig } from './config.js';
import { errorFields, jsonLog } from './log.js';

const log = jsonLog((line) => process.stdout.write(line));
const config = loadConfig(process.env);
const starting = startBoard(config, { log });

let draining = false;
const shutdown = (signal: string): void => {
  if (draining) {
    // A second signal means the operator will not wait for the drain.
    log({ level: 'warn', msg: 'forced exit', signal });
    process.exit(1);
  }
  draining = true;
  log({ level: 'info', msg: 'draining', signal });
  // Second guard beyond close()'s own deadline: a pool that never ends must not keep the process alive.
  setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 5_000).unref();
  // Awaiting the start as well: a signal during PGlite's first initialisation still closes its files cleanly.
  starting.then((board) => board.close()).then(
    () => {
      log({ level: 'info', msg: 'stopped' });
      process.exit(0);
    },
    (err: unknown) => {
      log({ level: 'error', msg: 'shutdown failed', ...errorFields(err) });
      process.exit(1);
    },
  );
};
// Installed before anything slow, so no signal ever meets Node's default (an abrupt exit).
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));

const board = await starting;
log({ level: 'info', msg: 'board listening', port: board.port, database: describeDatabase(config) });

// A missing table is an operator's step, not a crash: say so now, and /readyz stays 503 until it is fixed.
board.db.pool.query('SELECT 1 FROM posts LIMIT 0').catch((err: unknown) =>
  log({ level: 'warn', msg: 'database not ready at startup (see /readyz; make board-migrate creates posts)', ...errorFields(err) }),
);
