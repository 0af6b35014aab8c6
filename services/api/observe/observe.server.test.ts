/**
 * Metrics, the access log and request ids (issue 39, part 2) on real sockets against the fixture DuckDB file: the
 * API with keys, a rate limit and the query gate as main.ts builds them, its metrics on a port of their own, scraped
 * over HTTP and read by prometheus_client's parser before and after real requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parsePrometheusText, sampleValue, type ParsedFamily } from '../../../scripts/testing/prometheus-parse.js';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { keyId } from '../keys/key-file.js';
import { openKeyStore, type KeyStore } from '../keys/key-store.js';
import { createQueryGate } from '../limits/query-gate.js';
import { holdResponse } from '../testing/held-response.js';
import { listen, type TestServer } from '../testing/test-server.js';
import { apiMetrics } from './api-metrics.js';
import { metricsApp } from './metrics-app.js';
import { observeGate } from './observe-gate.js';

const KEY = 'observe-secret-key-0f3c9a';
const GREEDY = 'observe-greedy-key-77b1e2';
const BURST = 40;

let db: Database;
let dir: string;
let keys: KeyStore;
let api: TestServer;
let metricsServer: TestServer;
const lines: string[] = [];
let publication: string;

interface Got {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** A GET with node's own client: no Accept-Encoding unless asked, so the bytes received are the bytes sent. */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const scrape = async (): Promise<{ text: string; families: ParsedFamily[] }> => {
  const res = await get(metricsServer.port, '/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = res.body.toString('utf8');
  return { text, families: parsePrometheusText(text) };
};
const value = (families: ParsedFamily[], name: string, labels: Record<string, string> = {}) => Number(sampleValue(families, name, labels) ?? 0);
const logged = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
const lineOf = (id: string) => logged().find((l) => l['requestId'] === id);

/** Resolves when `cond` holds: an access-log line is written when a body ends, which has no event of its own here. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
}

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  dir = mkdtempSync(join(tmpdir(), 'tributary-observe-'));
  keys = await openKeyStore({ file: join(dir, 'none.json'), plainKeys: [KEY, GREEDY], pollMs: 0 });
  const gate = createQueryGate({ maxConcurrent: 8, maxQueue: 64, maxWaitMs: 30_000 });
  const metrics = apiMetrics({
    served: () => {
      const taken = db.acquire();
      taken.release();
      return { publication: taken.publication, cursorsOpen: taken.snapshot.cursorsOpen };
    },
    queryGate: gate,
  });
  const app = createApp({
    acquire: () => db.acquire(),
    // As behind the balancer: a trusted proxy's X-Request-Id is kept (only then: middleware/request-id.ts).
    links: { trustProxy: true },
    access: { keys, rateLimit: { rps: 1, burst: BURST * 100, minRows: 100, now: () => 0 }, maxConcurrentPerKey: 4, maxConcurrentExports: 1, queryGate: observeGate(gate, metrics) },
    observe: { metrics, accessLog: (line) => lines.push(line) },
  });
  api = await listen(app);
  metricsServer = await listen(metricsApp(() => metrics.render()));
  const taken = db.acquire();
  publication = taken.publication;
  taken.release();
});
afterAll(async () => {
  if ('closeAllConnections' in api.server) api.server.closeAllConnections();
  await api.close();
  await metricsServer.close();
  keys.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('metrics on their own port', () => {
  it('are not served on the API port, and the metrics port serves nothing else', async () => {
    expect((await get(api.port, '/metrics', { 'x-api-key': KEY })).status).toBe(404);
    expect((await get(metricsServer.port, '/v1/odata/v4/Records')).status).toBe(404);
  });

  it('count requests, bytes, rows, refusals and gate waits as real requests are answered', async () => {
    const before = await scrape();
    const json = await get(api.port, '/v1/odata/v4/Observations?$top=5', { 'x-api-key': KEY });
    const csv = await get(api.port, '/v1/odata/v4/Observations?$top=3&$format=csv', { 'x-api-key': KEY });
    const missing = await get(api.port, '/v1/odata/v4/Nothing', { 'x-api-key': KEY });
    expect([json.status, csv.status, missing.status]).toEqual([200, 200, 404]);
    expect((JSON.parse(json.body.toString()) as { value: unknown[] }).value).toHaveLength(5);
    const greedy: number[] = [];
    for (let i = 0; i <= BURST; i++) greedy.push((await get(api.port, '/v1/odata/v4/Locations?$top=1', { 'x-api-key': GREEDY })).status);
    expect(greedy.filter((s) => s === 429)).toHaveLength(1);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => value(after.families, name, labels) - value(before.families, name, labels);
    expect(delta('tributary_http_requests_total', { family: 'odata', method: 'GET', status: '200' })).toBe(2 + BURST);
    expect(delta('tributary_http_requests_total', { family: 'odata', method: 'GET', status: '404' })).toBe(1);
    expect(delta('tributary_http_requests_total', { family: 'odata', method: 'GET', status: '429' })).toBe(1);
    expect(delta('tributary_rows_served_total', { family: 'odata', format: 'json' })).toBe(5 + BURST);
    expect(delta('tributary_rows_served_total', { family: 'odata', format: 'csv' })).toBe(3);
    expect(delta('tributary_http_response_bytes_total', { family: 'odata', format: 'csv' })).toBe(csv.body.length);
    expect(delta('tributary_limit_refusals_total', { family: 'odata', limit: 'rate' })).toBe(1);
    expect(delta('tributary_http_request_duration_seconds_count', { family: 'odata' })).toBe(4 + BURST);
    expect(delta('tributary_http_request_duration_seconds_bucket', { family: 'odata', le: '+Inf' })).toBe(4 + BURST);
    // The 404 and the 429 run no query: every other data request waited (if only for nothing) at the gate.
    expect(delta('tributary_query_gate_wait_seconds_count')).toBe(2 + BURST);
    expect(value(after.families, 'tributary_http_requests_in_flight', { family: 'odata' })).toBe(0);
    expect(value(after.families, 'tributary_publication_info', { publication })).toBe(1);
    expect(value(after.families, 'tributary_query_gate_slots', { state: 'running' })).toBe(0);
    expect(sampleValue(after.families, 'tributary_extract_cursors_open')).toBeTypeOf('number');
    // Neither the key nor anything a client sent becomes a label.
    expect(after.text).not.toContain(KEY);
    expect(after.text).not.toContain('Nothing');
  });

  it('count an export while it streams and the bytes of one its client abandoned', async () => {
    const before = await scrape();
    const held = await holdResponse(api.port, '/v1/export/Records?$format=csv', { 'x-api-key': KEY, 'x-request-id': 'held-export-1' });
    expect(held.status).toBe(200);
    const streaming = await scrape();
    expect(value(streaming.families, 'tributary_http_requests_in_flight', { family: 'export' })).toBe(1);
    held.close();
    await until(() => lineOf('held-export-1') !== undefined);
    const line = lineOf('held-export-1')!;
    expect(line['outcome']).toBe('cancelled');
    expect(line['rows']).toBeUndefined();
    const after = await scrape();
    expect(value(after.families, 'tributary_http_requests_in_flight', { family: 'export' })).toBe(0);
    expect(value(after.families, 'tributary_http_responses_cut_total', { family: 'export', outcome: 'cancelled' }) - value(before.families, 'tributary_http_responses_cut_total', { family: 'export', outcome: 'cancelled' })).toBe(1);
    const sent = value(after.families, 'tributary_http_response_bytes_total', { family: 'export', format: 'csv' }) - value(before.families, 'tributary_http_response_bytes_total', { family: 'export', format: 'csv' });
    expect(sent).toBe(line['bytes']);
    expect(sent).toBeGreaterThan(0);

    // The whole export, read to its end: every byte received was counted, and its rows.
    const whole = await get(api.port, '/v1/export/Records?$format=csv', { 'x-api-key': KEY, 'x-request-id': 'whole-export-1' });
    expect(whole.status).toBe(200);
    const rows = Number(whole.headers['x-total-count'] ?? whole.body.toString().trimEnd().split('\r\n').length - 1);
    expect(lineOf('whole-export-1')).toMatchObject({ outcome: 'complete', bytes: whole.body.length, rows, status: 200, format: 'csv' });
    expect(sent).toBeLessThan(whole.body.length);
  });
});

describe('the access log', () => {
  it('writes one line per request with its id, key id, path, status, bytes, stages and publication, and never the key', async () => {
    const start = lines.length;
    const page = await get(api.port, '/v1/odata/v4/Observations?$top=2&$select=Id', { 'x-api-key': KEY });
    const gzip = await get(api.port, '/v1/odata/v4/Observations?$top=50', { 'x-api-key': KEY, 'accept-encoding': 'gzip' });
    const keyless = await get(api.port, '/v1/odata/v4/Observations?$top=1');
    const wrongKey = await get(api.port, '/v1/odata/v4/Observations?$top=1', { 'x-api-key': 'not-a-key-but-secret-9x' });
    expect([page.status, gzip.status, keyless.status, wrongKey.status]).toEqual([200, 200, 401, 403]);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const written = logged().slice(start);
    expect(written).toHaveLength(4);
    const [p, g, k, w] = written;
    expect(p).toMatchObject({ service: 'api', msg: 'request', requestId: page.headers['x-request-id'], keyId: keyId(KEY), method: 'GET', path: '/v1/odata/v4/Observations?$top=2&$select=Id', status: 200, bytes: page.body.length, outcome: 'complete', publication, rows: 2, format: 'json' });
    expect(Object.keys(p!['timing'] as object)).toEqual(expect.arrayContaining(['parse', 'plan', 'execute']));
    expect(typeof p!['durationMs']).toBe('number');
    expect(new Date(p!['time'] as string).toISOString()).toBe(p!['time']);
    // Compressed: what went out on the wire.
    expect(g).toMatchObject({ bytes: gzip.body.length, rows: 50 });
    expect(k).toMatchObject({ status: 401, error: 'missing_api_key', client: '127.0.0.1' });
    expect(k!['keyId']).toBeUndefined();
    expect(w).toMatchObject({ status: 403, error: 'invalid_api_key' });
    for (const line of lines) {
      expect(line).not.toContain(KEY);
      expect(line).not.toContain(GREEDY);
      expect(line).not.toContain('not-a-key-but-secret-9x');
    }
  });
});

describe('X-Request-Id', () => {
  it('keeps a proxy\'s id, replaces an unfit one, makes one otherwise, and puts it in error bodies and log lines', async () => {
    const kept = await get(api.port, '/v1/odata/v4/Nothing', { 'x-api-key': KEY, 'x-request-id': 'haproxy-7F3A:01.b' });
    expect(kept.headers['x-request-id']).toBe('haproxy-7F3A:01.b');
    expect(JSON.parse(kept.body.toString())).toMatchObject({ requestId: 'haproxy-7F3A:01.b', errors: [{ status: '404', code: 'not_found' }] });
    expect(lineOf('haproxy-7F3A:01.b')).toMatchObject({ status: 404, error: 'not_found' });

    for (const unfit of ['has space', 'x'.repeat(129), 'quote"and<tag>', 'newline%0a']) {
      const res = await get(api.port, '/v1/features/collections/nothing', { 'x-api-key': KEY, 'x-request-id': unfit });
      const id = res.headers['x-request-id'] as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      // Under /v1/features the body is OGC's exception with the API's members beside it, the id among them.
      expect(JSON.parse(res.body.toString())).toMatchObject({ code: 'not_found', description: expect.any(String), requestId: id });
      expect(lines.join('\n')).not.toContain(unfit);
    }
    const made = await get(api.port, '/v1/odata/v4/Observations?$top=1', { 'x-api-key': KEY });
    const other = await get(api.port, '/v1/odata/v4/Observations?$top=1', { 'x-api-key': KEY });
    expect(made.headers['x-request-id']).not.toBe(other.headers['x-request-id']);
    expect(lineOf(made.headers['x-request-id'] as string)).toMatchObject({ status: 200 });
  });
});
