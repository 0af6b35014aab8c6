/**
 * Hostile clients, round three (issue 56 item 5): each finding's repro on a real loopback socket, kept as a
 * regression test named for what broke. The app runs over the shared fixture file with the limits each case needs.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../../scripts/testing/prometheus-parse.js';
import { createApp } from './app.js';
import type { Snapshot } from './db/snapshot.js';
import { acquirer, openDatabase, type Database } from './db/database.js';
import type { Acquired } from './http/lease.js';
import { NODE_SERVER_OPTIONS } from './middleware/url-length.js';
import { apiMetrics } from './observe/api-metrics.js';
import { listen, type TestServer } from './testing/test-server.js';

let db: Database;
const opened: TestServer[] = [];

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
});
afterAll(async () => {
  for (const s of opened) {
    if ('closeAllConnections' in s.server) s.server.closeAllConnections();
    await s.close();
  }
  await db.close();
});

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal | undefined) => new Promise<void>((resolve) => (signal?.aborted ? resolve() : signal?.addEventListener('abort', () => resolve(), { once: true })));

/**
 * The published file, with each query held until its request's signal aborts, then run: the query is interrupted
 * because its client left, as DuckDB's is (`started` resolves when the first query is held).
 */
function heldUntilClientLeaves(): { acquire: (publication?: string) => Promise<Acquired>; started: Promise<void> } {
  const inner = acquirer(db);
  let started!: () => void;
  const arrived = new Promise<void>((resolve) => (started = resolve));
  const acquire = async (publication?: string): Promise<Acquired> => {
    const taken = await inner(publication);
    const snapshot = new Proxy(taken.snapshot, {
      get(target, name, receiver) {
        if (name !== 'columns') return Reflect.get(target, name, receiver) as unknown;
        return async (q: Parameters<Snapshot['columns']>[0], signal?: AbortSignal) => {
          started();
          await aborted(signal);
          return target.columns(q, signal);
        };
      },
    });
    return { ...taken, snapshot, release: () => taken.release() };
  };
  return { acquire, started: arrived };
}

describe('a client that leaves mid-query', () => {
  it('is logged and counted as a client close (499, cancelled), not a server error', async () => {
    const held = heldUntilClientLeaves();
    const metrics = apiMetrics();
    let line!: (text: string) => void;
    const logged = new Promise<string>((resolve) => (line = resolve));
    const errors: unknown[] = [];
    const s = await listen(createApp({ acquire: held.acquire, links: { trustProxy: false }, observe: { metrics, accessLog: (l) => line(l) }, logError: (e) => errors.push(e) }), NODE_SERVER_OPTIONS);
    opened.push(s);
    const socket = connect(s.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(`GET /v1/odata/v4/Observations/$count HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await held.started;
    socket.destroy();
    const record = JSON.parse(await logged) as Record<string, unknown>;
    expect(record).toMatchObject({ status: 499, outcome: 'cancelled', path: '/v1/odata/v4/Observations/$count' });
    expect(record).not.toHaveProperty('error');
    expect(errors).toEqual([]);
    const families = parsePrometheusText(metrics.render());
    expect(Number(sampleValue(families, 'tributary_http_requests_total', { family: 'odata', method: 'GET', status: '499' }))).toBe(1);
    expect(sampleValue(families, 'tributary_http_requests_total', { family: 'odata', method: 'GET', status: '500' })).toBeUndefined();
    expect(Number(sampleValue(families, 'tributary_http_responses_cut_total', { family: 'odata', outcome: 'cancelled' }))).toBe(1);
  });
});
