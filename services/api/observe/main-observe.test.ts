/**
 * The API process as main.ts builds it (a child process), with METRICS_PORT set: the metrics on their own port,
 * scraped and read by prometheus_client's parser, and the access log on stdout by default.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../../../scripts/testing/prometheus-parse.js';
import { loadApiConfig } from '../config.js';
import { REPO_ROOT } from '../testing/fixture-db.js';

const KEY = 'main-observe-secret-key';
const dir = mkdtempSync(join(tmpdir(), 'tributary-main-observe-'));
let child: ChildProcess | undefined;
afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('main.ts with METRICS_PORT', () => {
  it('serves the metrics on their own port and logs each request on stdout, never the key', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'services/api/main.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, API_HOST: '127.0.0.1', API_PORT: '0', METRICS_PORT: '0', DUCKDB_PATH: inject('apiFixtureDb'), API_KEYS: KEY, API_KEYS_FILE: join(dir, 'none.json'), TRUST_PROXY: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const seen = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(out);
          if (m) resolve(m);
        };
        child!.stdout!.on('data', (d: Buffer) => ((out += d.toString()), check()));
        child!.stderr!.on('data', (d: Buffer) => ((out += d.toString()), check()));
        child!.on('close', () => reject(new Error(`exited before ${pattern}:\n${out}`)));
        check();
      });
    const api = Number((await seen(/data API listening on http:\/\/127\.0\.0\.1:(\d+)/))[1]);
    const metrics = Number((await seen(/metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/))[1]);
    expect(metrics).not.toBe(api);

    const page = await get(api, '/v1/odata/v4/Records?$top=3', { 'x-api-key': KEY, 'x-request-id': 'main-observe-1' });
    expect(page.status).toBe(200);
    const line = JSON.parse((await seen(/^\{.*"requestId":"main-observe-1".*\}$/m))[0]) as Record<string, unknown>;
    expect(line).toMatchObject({ msg: 'request', status: 200, rows: 3, path: '/v1/odata/v4/Records?$top=3', outcome: 'complete' });

    const scraped = await get(metrics, '/metrics');
    const families = parsePrometheusText(scraped.text);
    expect(sampleValue(families, 'tributary_http_requests_total', { family: 'odata', status: '200' })).toBe(1);
    expect(sampleValue(families, 'tributary_rows_served_total', { family: 'odata', format: 'json' })).toBe(3);
    expect(sampleValue(families, 'tributary_query_gate_wait_seconds_count')).toBe(1);
    expect(sampleValue(families, 'tributary_publication_info', { publication: line['publication'] as string })).toBe(1);
    expect(sampleValue(families, 'tributary_redis_up')).toBeUndefined(); // no REDIS_URL
    expect(out).not.toContain(KEY);
    expect((await get(api, '/metrics', { 'x-api-key': KEY })).status).toBe(404);

    child.kill('SIGTERM');
    const code = await new Promise((r) => child!.on('close', r));
    expect(code).toBe(0);
  });

  it('ACCESS_LOG=off turns the log off; ACCESS_LOG_SAMPLE is a share', () => {
    expect(loadApiConfig({}).ACCESS_LOG).toBe(true);
    expect(loadApiConfig({ ACCESS_LOG: 'off' }).ACCESS_LOG).toBe(false);
    expect(loadApiConfig({ ACCESS_LOG_SAMPLE: '0.25' }).ACCESS_LOG_SAMPLE).toBe(0.25);
    expect(() => loadApiConfig({ ACCESS_LOG_SAMPLE: '2' })).toThrow(/ACCESS_LOG_SAMPLE/);
    expect(loadApiConfig({}).METRICS_PORT).toBeUndefined();
  });
});
