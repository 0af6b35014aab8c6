/**
 * Hostile clients, round three (issue 56 item 5): each finding's repro on a real loopback socket, kept as a
 * regression test named for what broke. The app runs over the shared fixture file with the limits each case needs.
 */
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../../scripts/testing/prometheus-parse.js';
import { createApp } from './app.js';
import type { Snapshot } from './db/snapshot.js';
import { acquirer, openDatabase, type Database } from './db/database.js';
import type { Acquired } from './http/lease.js';
import { openKeyStore } from './keys/key-store.js';
import { createQueryGate, type QueryGate } from './limits/query-gate.js';
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
 * The published file, with each query (`columns`: counts and groups) held until `until(signal)` resolves, then run
 * (`started` resolves when the first query is held).
 */
function heldQueries(until: (signal: AbortSignal | undefined) => Promise<void>): { acquire: (publication?: string) => Promise<Acquired>; started: Promise<void> } {
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
          await until(signal);
          return target.columns(q, signal);
        };
      },
    });
    return { ...taken, snapshot, release: () => taken.release() };
  };
  return { acquire, started: arrived };
}

/** Queries held until their client leaves, then run: interrupted because their client left, as DuckDB's are. */
const heldUntilClientLeaves = () => heldQueries(aborted);

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

describe('200 keyless MCP calls from 200 addresses', () => {
  const KEY = 'round-three-key';
  const APP = 'https://app.example.org';

  it('do not queue a keyed client out: keyless calls hold at most their share of the queue', async () => {
    let open!: () => void;
    const opened_ = new Promise<void>((resolve) => (open = resolve));
    const held = heldQueries(() => opened_);
    const inner = createQueryGate({ maxConcurrent: 2, maxQueue: 8, maxWaitMs: 60_000 });
    let keyedAsked!: () => void;
    const keyedQueued = new Promise<void>((resolve) => (keyedAsked = resolve));
    // The gate as the app uses it, telling the test when a keyed request has taken its place.
    const gate: QueryGate = Object.assign(Object.create(inner) as QueryGate, {
      acquire: (signal?: AbortSignal, client?: string, keyless?: boolean) => {
        const slot = inner.acquire(signal, client, keyless);
        if (!keyless) keyedAsked();
        return slot;
      },
    });
    const keys = await openKeyStore({ plainKeys: [KEY], pollMs: 0 });
    const s = await listen(createApp({ acquire: held.acquire, links: { trustProxy: true }, access: { keys, corsOrigins: [APP], trustProxy: true, queryGate: gate } }), NODE_SERVER_OPTIONS);
    opened.push(s);
    try {
      const count = (headers: Record<string, string>) =>
        fetch(`${s.origin}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count', arguments: { resource: 'Observations' } } }),
        }).then(async (res) => ({ status: res.status, result: ((await res.json()) as { result: { isError?: boolean; content: { text: string }[] } }).result }));
      const keyless = Array.from({ length: 200 }, (_, i) => count({ origin: APP, 'x-forwarded-for': `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}` }));
      // Two run (held), four wait (the keyless share of eight places), the other 194 are refused at once.
      let refused!: () => void;
      const allRefused = new Promise<void>((resolve) => (refused = resolve));
      const answers: { isError?: boolean; content: { text: string }[] }[] = [];
      for (const k of keyless) void k.then(({ result }) => (answers.push(result), answers.length === 194 && refused()));
      await allRefused;
      expect(answers.every((a) => a.isError && /calls without an API key have taken their share/.test(a.content[0]!.text))).toBe(true);
      expect([inner.running, inner.waiting]).toEqual([2, 4]);
      const keyed = count({ 'x-api-key': KEY });
      await keyedQueued;
      expect(inner.waiting).toBe(5);
      open();
      const answered = await keyed;
      expect(answered.status).toBe(200);
      expect(answered.result.isError, answered.result.content[0]?.text).toBeFalsy();
      const rest = await Promise.all(keyless);
      expect(rest.filter((r) => !r.result.isError)).toHaveLength(6);
    } finally {
      keys.close();
    }
  });
});

/** One raw HTTP/1.1 exchange on a fresh socket: the status line and the body. */
function rawExchange(port: number, head: string, body = ''): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('end', () => {
      const [status] = /^HTTP\/1\.1 (\d{3})/.exec(text)?.slice(1) ?? ['0'];
      resolve({ status: Number(status), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`);
  });
}

describe('a Host header that is not a host name', () => {
  it.each(['a)b', 'a"b', "a'b", 'a(b).example.org', 'a;b', 'a,b', 'a*b', 'a!b', 'a=b', 'a+b', 'a$b', 'a&b'])('%s is 400 invalid_host, before any link is built', async (host) => {
    const s = await listen(createApp({ acquire: acquirer(db), links: { trustProxy: false } }), NODE_SERVER_OPTIONS);
    opened.push(s);
    const res = await rawExchange(s.port, `GET /v1/odata/v4/Records?$top=1 HTTP/1.1\r\nHost: ${host}`);
    expect(res.status).toBe(400);
    const json = res.body.slice(res.body.indexOf('{'), res.body.lastIndexOf('}') + 1);
    const body = JSON.parse(json) as { errors: { code: string; detail: string }[] };
    expect(body.errors[0]!.code).toBe('invalid_host');
    expect(body.errors[0]!.detail).toMatch(/Host header .* is not a host name/);
    // Nothing of the header is reflected into a link.
    expect(res.body).not.toContain(`http://${host}`);
  });

  it('a host name, an IPv4 address and a bracketed IPv6 address, with or without a port, are answered', async () => {
    const s = await listen(createApp({ acquire: acquirer(db), links: { trustProxy: false } }), NODE_SERVER_OPTIONS);
    opened.push(s);
    for (const host of ['api.example.org', 'api.example.org:8443', '127.0.0.1', '[::1]:3000', 'tributary_api:3000']) {
      const res = await rawExchange(s.port, `GET /healthz HTTP/1.1\r\nHost: ${host}`);
      expect(res.status, host).toBe(200);
    }
  });
});

describe('a trickled /mcp body', () => {
  it('is held to the body deadline a POSTed query is (BODY_TIMEOUT_MS): 408 body_timeout, not Node\'s 300 s', async () => {
    const s = await listen(createApp({ acquire: acquirer(db), links: { trustProxy: false }, limits: { bodyTimeoutMs: 500, bodyMinBytesPerSecond: 1 } }), NODE_SERVER_OPTIONS);
    opened.push(s);
    const socket = connect(s.port, '127.0.0.1');
    socket.on('error', () => {});
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`,
    );
    // A byte now and then, never the whole body: only the deadline ends it.
    const timer = setInterval(() => socket.writable && socket.write(' '), 100);
    try {
      await closed;
    } finally {
      clearInterval(timer);
    }
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(text).toContain('BODY_TIMEOUT_MS');
    const next = await fetch(`${s.origin}/healthz`);
    expect(next.status).toBe(200);
  }, 15_000);
});

describe('an aggregation bomb: $apply past MAX_APPLY_GROUPS', () => {
  const BOMB = '$apply=groupby((LocationId,CharacteristicName,ActivityStartYear,ResultUnit),aggregate(ResultValue with Tributary.median as M))';

  it('is 400 apply_too_large with the estimate, the limit and how to fix it, and the server answers the next request', async () => {
    const s = await listen(createApp({ acquire: acquirer(db), links: { trustProxy: false }, limits: { maxApplyGroups: 1000 } }), NODE_SERVER_OPTIONS);
    opened.push(s);
    const res = await fetch(`${s.origin}/v1/odata/v4/Observations?${new URLSearchParams({ $apply: BOMB.slice('$apply='.length) })}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { code: string; detail: string; source?: { parameter?: string } }[] };
    expect(body.errors[0]).toMatchObject({ code: 'apply_too_large', source: { parameter: '$apply' } });
    expect(body.errors[0]!.detail).toMatch(/would make about \d+ groups .*at most 1000 \(MAX_APPLY_GROUPS\)\. Filter to fewer rows or values .* or group Observations by fewer fields/);
    const next = await fetch(`${s.origin}/v1/odata/v4/Observations?$apply=groupby((CharacteristicName),aggregate($count as N))`);
    expect(next.status).toBe(200);
    await next.arrayBuffer();
  });

  it("is the same refusal through MCP's aggregate", async () => {
    const s = await listen(createApp({ acquire: acquirer(db), links: { trustProxy: false }, limits: { maxApplyGroups: 1000 } }), NODE_SERVER_OPTIONS);
    opened.push(s);
    const res = await fetch(`${s.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'aggregate', arguments: { resource: 'Observations', apply: BOMB.slice('$apply='.length) } } }),
    });
    const { result } = (await res.json()) as { result: { isError?: boolean; content: { text: string }[] } };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/apply_too_large|would make about \d+ groups/);
    expect(result.content[0]!.text).toContain('MAX_APPLY_GROUPS');
  });
});

describe('an $apply is charged by the rows it reads', () => {
  /** The rows' budget's remaining tokens after one request, from a bucket of a billion that does not refill meanwhile. */
  async function remainingAfter(path: string, applyRowsReadPerRow?: number): Promise<number> {
    const burst = 1_000_000_000;
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: false }, limits: { applyRowsReadPerRow }, access: { rateLimit: { rps: 1e-9, burst, minRows: 1 } } });
    const res = await app.request(path);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    return burst - Number(res.headers.get('ratelimit-remaining'));
  }

  it('an $apply over the whole comparisons table costs the rows it reads, not its three verdicts', async () => {
    const count = await createApp({ acquire: acquirer(db), links: { trustProxy: false } }).request('/v1/odata/v4/GuidelineComparisons/$count');
    const rows = Number(await count.text());
    expect(rows).toBeGreaterThan(1000);
    // The first date of each verdict reads every comparison (the table has no statistics of dates).
    const path = '/v1/odata/v4/GuidelineComparisons?$apply=groupby((Verdict),aggregate(ActivityStartDate with min as First))';
    expect(await remainingAfter(path, 1)).toBe(rows);
    expect(await remainingAfter(path)).toBe(Math.ceil(rows / 1000));
  });

  it('a count per characteristic from the rollup costs the rollup rows it reads, at least its groups', async () => {
    const groups = (await (await createApp({ acquire: acquirer(db), links: { trustProxy: false } }).request('/v1/odata/v4/Records?$apply=groupby((CharacteristicName),aggregate($count as N))')).json()) as { value: unknown[] };
    expect(await remainingAfter('/v1/odata/v4/Records?$apply=groupby((CharacteristicName),aggregate($count as N))')).toBe(groups.value.length);
  });
});

describe('a query past the DuckDB memory bound', () => {
  it('is 503 query_too_large saying the request was too large, and the server answers the next request', async () => {
    const small = await openDatabase(inject('apiFixtureDb'), { memoryLimit: '8MiB', maxTempDirectorySize: '0 bytes', tempDirectory: tmpdir() });
    const errors: unknown[] = [];
    try {
      const s = await listen(createApp({ acquire: acquirer(small), links: { trustProxy: false }, logError: (e) => errors.push(e) }), NODE_SERVER_OPTIONS);
      opened.push(s);
      const heavy = 'groupby((LocationId,CharacteristicName,ActivityStartYear,ResultUnit),aggregate(ResultValue with Tributary.median as M,ResultValue with Tributary.p10 as P10,ResultValue with Tributary.p90 as P90,ActivityStartDate with countdistinct as Days))';
      const res = await fetch(`${s.origin}/v1/odata/v4/Observations?${new URLSearchParams({ $apply: heavy })}`);
      const body = (await res.json()) as { errors: { code: string; detail: string }[] };
      expect(res.status, JSON.stringify(body)).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(body.errors[0]!.code).toBe('query_too_large');
      expect(body.errors[0]!.detail).toMatch(/needed more memory than this server gives .*DUCKDB_MEMORY_LIMIT.*Make it smaller/);
      expect(errors).toEqual([]);
      const next = await fetch(`${s.origin}/v1/odata/v4/Observations/$count`);
      expect(next.status).toBe(200);
      expect(Number(await next.text())).toBeGreaterThan(0);
    } finally {
      await small.close();
    }
  });
});
