/**
 * Real GIS clients against a real server on loopback over the fixture file, with `make start`'s default limits and a
 * key issued (testing/start-defaults.ts): GDAL's OAPIF driver (ogrinfo, ogr2ogr: the engine inside QGIS; GDAL 3.12
 * through geopandas and pyogrio's wheel; R's sf) and Python's OWSLib, each through its recipe in docs/recipes/ where
 * there is one. The server's request log shows what each client asked for (filters sent, not applied client-side),
 * and that no request of any client was refused: none of these clients paces itself or retries a 429 (issue 39).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { openDatabase, type Database } from '../db/database.js';
import { REPO_ROOT } from '../testing/fixture-db.js';
import { runClient } from '../testing/run-client.js';
import { listenAsMakeStart, refusals, type StartDefaultsServer } from '../testing/start-defaults.js';

const RECIPES = join(REPO_ROOT, 'docs', 'recipes');
const KEY = 'gis-client-key';
let db: Database;
let server: StartDefaultsServer;
let refDb: DuckDBInstance;
let ref: DuckDBConnection;
let dir: string;
/** Every request target the server received, decoded. */
const received = () => server.answered.map((a) => a.target);

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  server = await listenAsMakeStart(db, { env: { API_KEYS: KEY } });
  refDb = await DuckDBInstance.create(inject('apiFixtureDb'), { access_mode: 'READ_ONLY' });
  ref = await refDb.connect();
  dir = mkdtempSync(join(tmpdir(), 'tributary-gis-'));
});
let before = 0;
beforeEach(() => {
  before = server.answered.length;
});
afterEach(() => {
  expect(refusals(server, before), 'requests refused under make start\'s limits').toEqual([]);
});
afterAll(async () => {
  await server.close();
  ref.closeSync();
  refDb.closeSync();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (command: string, args: string[], env: Record<string, string> = {}) => runClient(command, args, { TRIBUTARY_URL: server.origin, ...env });

async function scalar(sql: string): Promise<number> {
  return Number((await ref.runAndReadAll(sql)).getRows()[0]![0]);
}

/** The rarest characteristic of the fixture: a few pages of observations, enough to page through. */
async function rareCharacteristic(): Promise<string> {
  return String((await ref.runAndReadAll(`SELECT "CharacteristicName" FROM observations GROUP BY 1 ORDER BY count(*), 1 LIMIT 1`)).getRows()[0]![0]);
}

/** A Python 3 that has OWSLib: Debian's python3-owslib lives in the system interpreter. */
function owslibPython(): string {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(python, ['-c', 'import owslib'], { stdio: 'ignore' });
      return python;
    } catch {
      // try the next one
    }
  }
  throw new Error('OWSLib is not installed: scripts/test-deps.sh installs python3-owslib');
}

const oapif = () => `OAPIF:${server.origin}/v1/features`;
const withKey = { GDAL_HTTP_HEADERS: `x-api-key: ${KEY}` };

describe('GDAL OAPIF (ogrinfo, ogr2ogr)', () => {
  it('without the key GDAL is refused; with GDAL_HTTP_HEADERS it lists both collections', async () => {
    const refused = await run('ogrinfo', ['-ro', '-q', oapif()]);
    expect(refused.status).not.toBe(0);
    expect(server.answered.at(-1)?.status).toBe(401);
    const { status, stdout, stderr } = await run('ogrinfo', ['-ro', '-q', oapif()], withKey);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toMatch(/1: locations \(title: Monitoring locations\) \(Point\)/);
    expect(stdout).toMatch(/2: observations \(title: Observations\) \(Point\)/);
  });

  it('the recipe: exact feature counts, and ogr2ogr copies the filtered observations into a GeoPackage, filters sent to the server', async () => {
    const [w, s, e, n] = (await ref.runAndReadAll('SELECT quantile_cont("Longitude", 0.1), quantile_cont("Latitude", 0.1), quantile_cont("Longitude", 0.9), quantile_cont("Latitude", 0.9) FROM locations')).getRows()[0]!.map(Number);
    // The characteristic measured most in the box: a few pages of 1,000.
    const characteristic = String((await ref.runAndReadAll(`SELECT o."CharacteristicName" FROM observations o JOIN locations l ON l."Id" = o."LocationId"
      WHERE l."Longitude" BETWEEN ${w} AND ${e} AND l."Latitude" BETWEEN ${s} AND ${n} GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)).getRows()[0]![0]);
    const out = join(dir, 'copy.gpkg');
    const from = received().length;
    const { status, stdout, stderr } = await run('bash', [join(RECIPES, 'gdal_features.sh')], {
      TRIBUTARY_API_KEY: KEY, OUT: out, CHARACTERISTIC: characteristic, BBOX: `${w} ${s} ${e} ${n}`,
    });
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const counts = [...stdout.matchAll(/Feature Count: (\d+)/g)].map((m) => Number(m[1]));
    const inBox = `FROM observations o JOIN locations l ON l."Id" = o."LocationId" WHERE o."CharacteristicName" = '${characteristic.replace(/'/g, "''")}'
      AND l."Longitude" BETWEEN ${w} AND ${e} AND l."Latitude" BETWEEN ${s} AND ${n}`;
    const expected = await scalar(`SELECT count(*) ${inBox}`);
    expect(counts).toEqual([await scalar('SELECT count(*) FROM locations'), await scalar('SELECT count(*) FROM observations'), expected]);
    expect(expected).toBeGreaterThan(1000);

    // The server was asked for exactly the filtered pages: GDAL did not fetch everything and filter itself.
    // (Before the filter is set, ogr2ogr reads one unfiltered page to learn the fields; it never pages on unfiltered.)
    const requests = received().slice(from).filter((u) => u.startsWith('/v1/features/collections/observations/items') && u.includes('limit=1000'));
    const pages = requests.filter((u) => u.includes(`CharacteristicName=${characteristic}`));
    expect(pages.length).toBe(Math.ceil(expected / 1000));
    expect(requests.filter((u) => !pages.includes(u))).toEqual(['/v1/features/collections/observations/items?limit=1000']);
    for (const u of pages) expect(u).toMatch(/bbox=-?[\d.]+,-?[\d.]+,-?[\d.]+,-?[\d.]+/);

    // The GeoPackage's rows are the API's: the same Ids, values and points.
    const rows = execFileSync('/usr/bin/python3', ['-c', `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(json.dumps(c.execute('SELECT Id, CharacteristicName, ResultValue, MonitoringLocationLatitude FROM observations ORDER BY Id').fetchall()))
`, out], { encoding: 'utf8' });
    const expectedRows = (await ref.runAndReadAll(`SELECT o."Id", o."CharacteristicName", o."ResultValue", o."MonitoringLocationLatitude" ${inBox} ORDER BY 1`)).getRows();
    expect(JSON.parse(rows)).toEqual(expectedRows.map((r) => [Number(r[0]), r[1], r[2], r[3]]));
  });

  it('an attribute filter alone is sent as a query parameter (the OpenAPI lists the field parameters)', async () => {
    const type = String((await ref.runAndReadAll(`SELECT "MonitoringLocationType" FROM locations LIMIT 1`)).getRows()[0]![0]);
    const from = received().length;
    const { status, stdout } = await run('ogrinfo', ['-ro', '-so', '-oo', 'PAGE_SIZE=1000', oapif(), 'locations', '-where', `MonitoringLocationType = '${type}'`], withKey);
    expect(status).toBe(0);
    expect(Number(/Feature Count: (\d+)/.exec(stdout)![1])).toBe(await scalar(`SELECT count(*) FROM locations WHERE "MonitoringLocationType" = '${type.replace(/'/g, "''")}'`));
    expect(received().slice(from).some((u) => u.includes(`/collections/locations/items?`) && u.includes(`MonitoringLocationType=${type}`))).toBe(true);
  });
  it('a filter partly beyond the query parameters: GDAL sends the equality, applies the rest itself, and the count stays exact', async () => {
    // GDAL 3.6 does not write Part 3's filter (docs/recipes/gdal-qgis.md); what it sends is still planned server-side.
    const characteristic = await rareCharacteristic();
    const quoted = characteristic.replace(/'/g, "''");
    const median = await scalar(`SELECT quantile_disc("ResultValue", 0.5) FROM observations WHERE "CharacteristicName" = '${quoted}'`);
    const from = received().length;
    const { status, stdout, stderr } = await run('ogrinfo', ['-ro', '-so', '-oo', 'PAGE_SIZE=1000', oapif(), 'observations', '-where', `CharacteristicName = '${characteristic}' AND ResultValue >= ${median}`], withKey);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(Number(/Feature Count: (\d+)/.exec(stdout)![1])).toBe(await scalar(`SELECT count(*) FROM observations WHERE "CharacteristicName" = '${quoted}' AND "ResultValue" >= ${median}`));
    const pages = received().slice(from).filter((u) => u.includes('/collections/observations/items?') && u.includes(`CharacteristicName=${characteristic}`));
    expect(pages.length).toBeGreaterThan(0);
  });
});

describe('GDAL 3.12 (geopandas through pyogrio\'s wheel, the GDAL of current QGIS releases)', () => {
  it('reads every location as the issue\'s first user did, then the pH observations in pages of 200', async () => {
    const script = `
import json, os, sys
import geopandas
dsn = "OAPIF:" + sys.argv[1] + "/v1/features"
locations = geopandas.read_file(dsn, layer="locations")
observations = geopandas.read_file(dsn, layer="observations", columns=["Id"], where="CharacteristicName = 'pH'", PAGE_SIZE=200)
print(json.dumps({"locations": len(locations), "observations": len(observations), "ids": int(observations["Id"].nunique())}))
`;
    // GDAL 3.12's OAPIF driver leaves GDAL_HTTP_HEADERS out of its requests; it sends a header file's (docs/recipes/gdal-qgis.md).
    const headers = join(dir, 'headers.txt');
    writeFileSync(headers, `x-api-key: ${KEY}\n`);
    const { status, stdout, stderr } = await run('python3', ['-c', script, server.origin], { GDAL_HTTP_HEADER_FILE: headers });
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const observations = await scalar(`SELECT count(*) FROM observations WHERE "CharacteristicName" = 'pH'`);
    expect(JSON.parse(stdout)).toEqual({ locations: await scalar('SELECT count(*) FROM locations'), observations, ids: observations });
    // GDAL 3.12 reads its discovery documents first, then pages without pausing, none refused (afterEach).
    const pages = received().filter((u) => u.startsWith('/v1/features/collections/observations/items'));
    expect(pages.length).toBeGreaterThan(1);
  });
});

describe('R sf (docs/recipes/r-sf.md, Debian\'s r-cran-sf)', () => {
  it('runs the recipe as written: st_layers lists both layers with their counts, st_read reads the pH observations in the box', async () => {
    const recipe = /```r\n([\s\S]*?)```/.exec(readFileSync(join(RECIPES, 'r-sf.md'), 'utf8'))![1]!;
    const file = join(dir, 'r-sf.R');
    writeFileSync(file, `${recipe}\ncat("pH rows:", nrow(ph), "\\n")\ncat("ids:", length(unique(ph$Id)), "\\n")\n`);
    const { status, stdout, stderr } = await run('Rscript', [file], { TRIBUTARY_API_KEY: KEY });
    expect(status, stderr).toBe(0);
    expect(stdout).toMatch(new RegExp(`locations\\s+Point\\s+${await scalar('SELECT count(*) FROM locations')}\\b`));
    expect(stdout).toMatch(new RegExp(`observations\\s+Point\\s+${await scalar('SELECT count(*) FROM observations')}\\b`));
    const inBox = await scalar(`SELECT count(*) FROM observations o JOIN locations l ON l."Id" = o."LocationId"
      WHERE o."CharacteristicName" = 'pH' AND l."Longitude" BETWEEN -123.3 AND -121.5 AND l."Latitude" BETWEEN 48.9 AND 49.5`);
    expect(inBox).toBeGreaterThan(0);
    expect(stdout).toContain(`pH rows: ${inBox} \nids: ${inBox} \n`);
  });
});

describe('OWSLib', () => {
  it('the recipe pages a filtered collection to its end: every feature once, as many as numberMatched', async () => {
    const characteristic = await rareCharacteristic();
    const { status, stdout, stderr } = await run(owslibPython(), [join(RECIPES, 'owslib_features.py'), 'observations', `CharacteristicName=${characteristic}`, 'limit=500'], { TRIBUTARY_API_KEY: KEY });
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const where = `WHERE "CharacteristicName" = '${characteristic.replace(/'/g, "''")}'`;
    const expected = await scalar(`SELECT count(*) FROM observations ${where}`);
    expect(JSON.parse(stdout)).toEqual({
      collection: 'observations',
      numberMatched: expected,
      read: expected,
      pages: Math.ceil(expected / 500),
      first: await scalar(`SELECT min("Id") FROM observations ${where}`),
      last: await scalar(`SELECT max("Id") FROM observations ${where}`),
    });
  });

  it('pages all of locations without a filter', async () => {
    const { status, stdout } = await run(owslibPython(), [join(RECIPES, 'owslib_features.py'), 'locations', 'limit=7'], { TRIBUTARY_API_KEY: KEY });
    expect(status).toBe(0);
    const n = await scalar('SELECT count(*) FROM locations');
    expect(JSON.parse(stdout)).toMatchObject({ numberMatched: n, read: n, pages: Math.ceil(n / 7) });
  });
});
