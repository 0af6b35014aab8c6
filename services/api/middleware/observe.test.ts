/** The observer's choices that need no socket: sampling, the Server-Timing stages, the request ids it accepts. */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createQueryGate } from '../limits/query-gate.js';
import { observeGate } from '../observe/observe-gate.js';
import { routeFamily } from '../observe/route-family.js';
import { observe, serverTiming } from './observe.js';
import { acceptedRequestId, requestId } from './request-id.js';

function sampled(sample: number, draw: number) {
  const lines: string[] = [];
  const app = new Hono();
  app.use('*', requestId());
  app.use('*', observe({ accessLog: (l) => lines.push(l), sample, random: () => draw }));
  app.get('/ok', (c) => c.text('fine'));
  app.get('/boom', () => {
    throw new Error('a fault');
  });
  app.onError((_err, c) => c.text('internal', 500));
  return { app, lines };
}

describe('ACCESS_LOG_SAMPLE', () => {
  it('writes a request when its draw falls under the share, and every 5xx whatever the draw', async () => {
    const low = sampled(0.5, 0.2);
    const high = sampled(0.5, 0.7);
    const none = sampled(0, 0);
    for (const { app } of [low, high, none]) {
      for (const path of ['/ok', '/boom']) await (await app.request(path)).text();
    }
    expect(low.lines.map((l) => JSON.parse(l).status)).toEqual([200, 500]);
    expect(high.lines.map((l) => JSON.parse(l).status)).toEqual([500]);
    // random() is in [0, 1): a share of 0 writes no ordinary request.
    expect(none.lines.map((l) => JSON.parse(l).status)).toEqual([500]);
    expect(JSON.parse(low.lines[1]!)).toMatchObject({ error: 'internal', outcome: 'complete', bytes: 'internal'.length });
  });

  it('refuses a share outside 0 to 1 when the app is built', () => {
    expect(() => observe({ accessLog: () => {}, sample: 1.5 })).toThrow(/between 0 and 1/);
  });
});

describe('serverTiming', () => {
  it('reads the stages the lease writes', () => {
    expect(serverTiming('parse;dur=0.2, plan;dur=0.0, execute;dur=12.5, first-byte;dur=3.1')).toEqual({ parse: 0.2, plan: 0, execute: 12.5, 'first-byte': 3.1 });
    expect(serverTiming(null)).toBeUndefined();
    expect(serverTiming('garbage')).toBeUndefined();
  });
});

describe('acceptedRequestId', () => {
  it.each([
    ['3f0c9a1e-5b7d-4c1e-9a8b-0d2e4f6a8c0b', true],
    ['01HZX3K9Q4W8E6R2T5Y7U1I3O0', true],
    ['haproxy:7F3A.01/b+c=@x_y', true],
    ['x'.repeat(128), true],
    ['x'.repeat(129), false],
    ['', false],
    ['with space', false],
    ['tab\there', false],
    ['<script>', false],
    ['"quoted"', false],
    ['é', false],
  ])('%s → kept: %s', (sent, kept) => {
    expect(acceptedRequestId(sent) === sent).toBe(kept);
  });
});

describe('routeFamily', () => {
  it.each([
    ['/healthz', 'health'], ['/readyz', 'health'], ['/', 'docs'], ['/explore', 'explore'],
    ['/v1/odata/v4', 'discovery'], ['/v1/odata/v4/$metadata', 'discovery'], ['/v1/openapi.json', 'discovery'],
    ['/v1/odata/v4/Observations', 'odata'], ['/v1/export/Records', 'export'], ['/v1/downloads', 'downloads'],
    ['/v1/downloads/manifest.json', 'downloads'], ['/v1/downloads/files/abc/x.parquet', 'files'], ['/v1/publications', 'publications'],
    ['/v1/features', 'features'], ['/v1/features/collections/observations', 'features'],
    ['/v1/features/collections/observations/items', 'items'], ['/v1/features/collections/observations/items/12', 'items'],
    ['/mcp', 'mcp'], ['/llms.txt', 'docs'], ['/llms-full.txt', 'docs'],
    ['/v1/odata/v4x', 'other'], ['/wp-login.php', 'other'],
  ])('%s → %s', (path, family) => {
    expect(routeFamily(path)).toBe(family);
  });
});

describe('observeGate', () => {
  it('times every acquire and counts each refusal by its reason, handing back what the gate gave', async () => {
    const waited: number[] = [];
    const refused: string[] = [];
    let t = 0;
    const gate = observeGate(createQueryGate({ maxConcurrent: 1, maxQueue: 0, maxWaitMs: 1000 }), { gateWaited: (s) => waited.push(s), gateRefused: (r) => refused.push(r) }, () => (t += 5));
    const slot = await gate.acquire(undefined, 'a');
    expect(typeof slot).toBe('object');
    expect(gate.running).toBe(1);
    expect(await gate.acquire(undefined, 'b')).toBe('queue_full');
    const gone = new AbortController();
    gone.abort();
    expect(await gate.acquire(gone.signal, 'c')).toBe('aborted');
    expect(waited).toEqual([0.005, 0.005, 0.005]);
    expect(refused).toEqual(['queue_full', 'aborted']);
    (slot as { release(): void }).release();
    expect(gate.running).toBe(0);
  });
});
