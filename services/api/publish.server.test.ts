/**
 * Publishing while serving: a client pages through Records on a real socket while the real ingest CLI publishes
 * different data over the served file. Every page must be complete and must equal the same page computed on
 * exactly one of the two publications: a page is never a mix, and no request fails.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './app.js';
import { listen, type TestServer } from './testing/test-server.js';
import { openDatabase, type Database } from './db/database.js';
import { REPO_ROOT } from './testing/fixture-db.js';

const run = promisify(execFile);
let dir: string;
let live: string;
let db: Database;
let server: TestServer;
let port: number;
const logs: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-publish-'));
  live = join(dir, 'live.duckdb');
  copyFileSync(inject('apiFixtureDb'), live);
  copyFileSync(live, join(dir, 'before.duckdb'));
  // Different content to publish: the same generator with another seed.
  await run(process.execPath, ['--import', 'tsx', 'scripts/sample/main.ts'], { cwd: REPO_ROOT, env: { ...process.env, ROWS: '30000', SEED: '8', OUT: join(dir, 'sample8') } });
  db = await openDatabase(live, { pollMs: 50, log: (m) => logs.push(m) });
  const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, logError: (e) => logs.push(`error: ${String(e)}`) });
  server = await listen(app);
  port = server.port;
});
afterAll(async () => {
  await server.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

function get(path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    // A connection of its own: on Node's keep-alive global agent a request may go out on a socket the server is closing.
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The `value` of a page computed on one publication, through the same app without a socket. */
async function valueOf(app: Hono, path: string): Promise<string> {
  const res = await app.request(path);
  return JSON.stringify((JSON.parse(await res.text()) as { value: unknown }).value);
}

describe('publish under load', () => {
  it('a client paging Records while ingest publishes twice gets complete pages, each from exactly one publication', async () => {
    const seen: { path: string; value: string }[] = [];
    const env = { ...process.env, DUCKDB_PATH: live, REGIONS_FILE: join(REPO_ROOT, 'scripts/sample/hubs.geojson') };
    const cli = (...args: string[]) => run(process.execPath, [inject('ingestCli'), ...args], { cwd: REPO_ROOT, env: { ...env, SRC: join(dir, 'sample8') } });
    let published = false;
    // Two publications: the dataset holding the first Ids removed (the early pages change), then new datasets added.
    const publisher = (async () => {
      await cli('remove', '10.25976/231z-py15');
      copyFileSync(live, join(dir, 'mid.duckdb'));
      await cli('ingest');
      copyFileSync(live, join(dir, 'after.duckdb'));
      published = true;
    })();

    let finalPassStarted = false;
    for (let pass = 0; pass < 100; pass++) {
      const last = finalPassStarted;
      let next: string | undefined = '/v1/odata/v4/Records?%24top=2000&%24select=Id,DOI,CharacteristicName,ResultValue,ActivityStartDate';
      while (next) {
        const res = await get(next);
        expect(res.status).toBe(200);
        const body = JSON.parse(res.text) as { value: { Id: number }[]; '@odata.nextLink'?: string };
        const ids = body.value.map((r) => r.Id);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        if (body['@odata.nextLink']) expect(ids).toHaveLength(2000);
        seen.push({ path: next, value: JSON.stringify(body.value) });
        next = body['@odata.nextLink'] ? new URL(body['@odata.nextLink']).pathname + new URL(body['@odata.nextLink']).search : undefined;
      }
      if (last) break;
      finalPassStarted = published && logs.filter((l) => l.startsWith('switched')).length >= 2;
    }
    await publisher;
    expect(finalPassStarted).toBe(true);
    expect(logs.filter((l) => l.startsWith('error'))).toEqual([]);

    const refs = await Promise.all(['before', 'mid', 'after'].map((n) => openDatabase(join(dir, `${n}.duckdb`))));
    const apps = refs.map((ref) => createApp({ acquire: () => ref.acquire(), links: { trustProxy: false } }));
    const memo = new Map<string, string[]>();
    const only = [0, 0, 0];
    for (const page of seen) {
      if (!memo.has(page.path)) memo.set(page.path, await Promise.all(apps.map((app) => valueOf(app, page.path))));
      const refs = memo.get(page.path)!;
      expect(refs).toContain(page.value);
      const matches = refs.flatMap((r, i) => (r === page.value ? [i] : []));
      if (matches.length === 1) only[matches[0]!]!++;
    }
    // Pages that only one publication could have produced, from the first and from a later one.
    expect(only[0]).toBeGreaterThan(0);
    expect(only[1]! + only[2]!).toBeGreaterThan(0);
    await Promise.all(refs.map((r) => r.close()));
  });
});
