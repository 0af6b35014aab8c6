/**
 * QGIS's own OGC API – Features client (the OAPIF provider of QGIS 3.22, Debian's python3-qgis, headless) reading a
 * whole layer from a real server on loopback under `make start`'s defaults (testing/start-defaults.ts: no key issued,
 * as on a fresh clone): every feature once, the count an independent query of the fixture file gives, no request
 * refused (issue 46). QGIS pages 1,000 features at a time; since pages are metered by their rows, the budget those
 * pages get is the rows' rate, not a tenth of it. How fast it reads is the bench's to measure (§L, the layer rate).
 */
import { execFileSync } from 'node:child_process';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, type Database } from '../db/database.js';
import { runClient } from '../testing/run-client.js';
import { listenAsMakeStart, refusals, type StartDefaultsServer } from '../testing/start-defaults.js';

const SCRIPT = `${import.meta.dirname}/qgis_layer.py`;
/** Debian's python3-qgis lives in the system interpreter, which a pyenv python3 does not see. */
const PYTHON = '/usr/bin/python3';
/** The goal for a GIS client paging a layer on the defaults. */
const LAYER_FEATURES_PER_SECOND = 5000;

let db: Database;
let server: StartDefaultsServer;
let refDb: DuckDBInstance;
let ref: DuckDBConnection;

beforeAll(async () => {
  execFileSync(PYTHON, ['-c', 'import qgis.core'], { env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' }, stdio: 'ignore' });
  db = await openDatabase(inject('apiFixtureDb'));
  server = await listenAsMakeStart(db);
  refDb = await DuckDBInstance.create(inject('apiFixtureDb'), { access_mode: 'READ_ONLY' });
  ref = await refDb.connect();
});
afterAll(async () => {
  await server?.close();
  ref?.closeSync();
  refDb?.closeSync();
  await db?.close();
});

describe('QGIS 3.22 (its OAPIF provider, python3-qgis)', () => {
  it('reads every observation of the layer once, paging 1,000 at a time with none refused, at a budget above the goal', { timeout: 300_000 }, async () => {
    const { status, stdout, stderr } = await runClient(PYTHON, [SCRIPT, server.origin, 'observations'], { QT_QPA_PLATFORM: 'offscreen' });
    expect(status, stderr).toBe(0);
    const read = JSON.parse(stdout) as { version: string; features: number; distinctIds: number; seconds: number };
    const total = Number((await ref.runAndReadAll('SELECT count(*) FROM observations')).getRows()[0]![0]);
    expect(read.version).toMatch(/^3\./);
    expect({ features: read.features, distinctIds: read.distinctIds }).toEqual({ features: total, distinctIds: total });
    expect(refusals(server)).toEqual([]);

    // QGIS probes the layer with limit=10, then pages 1,000 at a time by the next links.
    const limits = server.answered.filter((a) => a.target.startsWith('/v1/features/collections/observations/items')).map((p) => new URL(p.target, server.origin).searchParams.get('limit'));
    expect(limits).toEqual(['10', ...Array.from({ length: Math.ceil(total / 1000) }, () => '1000')]);
    // What the defaults let a client paging 1,000 features at a time read per second: the rows' rate, each page at
    // least PAGE_MIN_ROWS.
    const { PAGE_ROWS_PER_SECOND, PAGE_MIN_ROWS } = server.config;
    expect((PAGE_ROWS_PER_SECOND * 1000) / Math.max(1000, PAGE_MIN_ROWS)).toBeGreaterThanOrEqual(LAYER_FEATURES_PER_SECOND);
  });
});
