/**
 * Typed fields for GIS (issue 53 item 3): each GIS client reads a collection's numbers as numbers and its dates as
 * dates from the collection's schemas (collection-schema.ts), even where the features it samples first have no value
 * in the field. On `water-quality-index`, whose first rows (in Id order) are locations with no index: what a client
 * guesses from them alone is text, shown by GDAL with its schema ignored (IGNORE_SCHEMA=YES). Real clients on a real
 * server on loopback: GDAL 3.6 (ogrinfo, Debian), GDAL 3.12 (pyogrio's wheel, through geopandas), R sf, and QGIS 3.22
 * (python3-qgis) with the layer added through GDAL.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, type Database } from '../db/database.js';
import { runClient } from '../testing/run-client.js';
import { listenAsMakeStart, refusals, type StartDefaultsServer } from '../testing/start-defaults.js';

const KEY = 'typed-fields-key';
/** What the clients sample before they read: GDAL 3.6's and QGIS's first page holds 10 features. */
const SAMPLE = 10;
const WQI_NUMBERS = ['WQI', 'F1', 'F2', 'F3'];
let db: Database;
let server: StartDefaultsServer;
let refDb: DuckDBInstance;
let ref: DuckDBConnection;
let dir: string;

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  server = await listenAsMakeStart(db, { env: { API_KEYS: KEY } });
  refDb = await DuckDBInstance.create(inject('apiFixtureDb'), { access_mode: 'READ_ONLY' });
  ref = await refDb.connect();
  dir = mkdtempSync(join(tmpdir(), 'tributary-typed-'));
  writeFileSync(join(dir, 'headers.txt'), `x-api-key: ${KEY}\n`);
});
afterAll(async () => {
  await server?.close();
  ref?.closeSync();
  refDb?.closeSync();
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const oapif = () => `OAPIF:${server.origin}/v1/features`;
const gdalKey = { GDAL_HTTP_HEADERS: `x-api-key: ${KEY}` };
/** `name: Type (…)` lines of `ogrinfo -so` as { name: Type }. */
const ogrTypes = (stdout: string) => Object.fromEntries([...stdout.matchAll(/^(\w+): (\w+) \(/gm)].map((m) => [m[1]!, m[2]!]));

describe('the fixture is the case the issue names', () => {
  it('the first features of water-quality-index have no index, yet the collection has indexes', async () => {
    const first = (await ref.runAndReadAll(`SELECT count("WQI") AS n FROM (SELECT "WQI" FROM water_quality_index ORDER BY "Id" LIMIT ${SAMPLE})`)).getRows()[0]![0];
    expect(Number(first)).toBe(0);
    expect(Number((await ref.runAndReadAll('SELECT count("WQI") FROM water_quality_index')).getRows()[0]![0])).toBeGreaterThan(0);
  });
});

describe('GDAL 3.6 (ogrinfo, Debian)', () => {
  it('types the index, its factors and the year as numbers, from the schema; without it, the index is text', async () => {
    const typed = await runClient('ogrinfo', ['-ro', '-so', oapif(), 'water-quality-index'], gdalKey);
    expect(typed.status, typed.stderr).toBe(0);
    const types = ogrTypes(typed.stdout);
    for (const n of WQI_NUMBERS) expect(types[n], n).toBe('Real');
    expect(types['Year']).toBe('Integer');
    expect(types['Category']).toBe('String');
    const guessed = ogrTypes((await runClient('ogrinfo', ['-ro', '-so', '-oo', 'IGNORE_SCHEMA=YES', oapif(), 'water-quality-index'], gdalKey)).stdout);
    expect(guessed['WQI']).toBe('String');
  });

  it('types dates as dates, and a key that may outgrow 32 bits as a number GDAL does not clip', async () => {
    const { status, stdout, stderr } = await runClient('ogrinfo', ['-ro', '-so', oapif(), 'location-summaries'], gdalKey);
    expect(status, stderr).toBe(0);
    const types = ogrTypes(stdout);
    expect({ FirstDate: types['FirstDate'], LatestDate: types['LatestDate'], Median: types['Median'], Count: types['Count'] }).toEqual({ FirstDate: 'Date', LatestDate: 'Date', Median: 'Real', Count: 'Integer' });
    expect(types['Id']).toBe('Real');
    expect(refusals(server)).toEqual([]);
  });
});

describe('GDAL 3.12 (geopandas through pyogrio\'s wheel)', () => {
  it('reads the index as floats and the dates as dates', async () => {
    const script = `
import json, sys
import geopandas
dsn = "OAPIF:" + sys.argv[1] + "/v1/features"
wqi = geopandas.read_file(dsn, layer="water-quality-index")
summaries = geopandas.read_file(dsn, layer="location-summaries", columns=["FirstDate", "Median"])
print(json.dumps({"wqi": {c: str(wqi[c].dtype) for c in ["WQI", "F1", "Year", "Category"]}, "summaries": {c: str(summaries[c].dtype) for c in ["FirstDate", "Median"]}, "n": len(wqi), "indexed": int(wqi["WQI"].notna().sum())}))
`;
    const { status, stdout, stderr } = await runClient('python3', ['-c', script, server.origin], { GDAL_HTTP_HEADER_FILE: join(dir, 'headers.txt') });
    expect(status, stderr).toBe(0);
    const read = JSON.parse(stdout) as { wqi: Record<string, string>; summaries: Record<string, string>; n: number; indexed: number };
    expect(read.wqi).toEqual({ WQI: 'float64', F1: 'float64', Year: 'int32', Category: expect.stringMatching(/^(object|str)$/) });
    expect(read.summaries['Median']).toBe('float64');
    expect(read.summaries['FirstDate']).toMatch(/^datetime64/);
    expect(read.indexed).toBe(Number((await ref.runAndReadAll('SELECT count("WQI") FROM water_quality_index')).getRows()[0]![0]));
  });
});

describe('R sf (Debian\'s r-cran-sf, GDAL 3.6)', () => {
  it('reads the index as numeric and the dates as Date', async () => {
    const file = join(dir, 'typed.R');
    writeFileSync(file, `
library(sf)
Sys.setenv(GDAL_HTTP_HEADERS = paste0("x-api-key: ", Sys.getenv("TRIBUTARY_API_KEY")))
dsn <- paste0("OAPIF:", Sys.getenv("TRIBUTARY_URL"), "/v1/features")
wqi <- st_read(dsn, layer = "water-quality-index", quiet = TRUE)
s <- st_read(dsn, layer = "location-summaries", quiet = TRUE)
cat("WQI", class(wqi$WQI), "\\nF3", class(wqi$F3), "\\nFirstDate", class(s$FirstDate), "\\nindexed", sum(!is.na(wqi$WQI)), "\\n")
`);
    const { status, stdout, stderr } = await runClient('Rscript', [file], { TRIBUTARY_API_KEY: KEY, TRIBUTARY_URL: server.origin });
    expect(status, stderr).toBe(0);
    const indexed = Number((await ref.runAndReadAll('SELECT count("WQI") FROM water_quality_index')).getRows()[0]![0]);
    expect(stdout).toContain(`WQI numeric \nF3 numeric \nFirstDate Date \nindexed ${indexed} \n`);
  });
});

describe('QGIS 3.22 (python3-qgis), the layer added through GDAL', () => {
  // QGIS's own OAPIF provider types fields from its first page of 10 features until 3.44, which reads Part 5's schema
  // (docs/recipes/gdal-qgis.md): on 3.22 the layer added as a GDAL/OGR layer ("OAPIF:" + the URL) is typed.
  it('types the index as a double and the year as an integer', async () => {
    execFileSync('/usr/bin/python3', ['-c', 'import qgis.core'], { env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' }, stdio: 'ignore' });
    const script = `
import json, os, sys
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from qgis.core import Qgis, QgsApplication, QgsVectorLayer
app = QgsApplication([], False)
app.initQgis()
layer = QgsVectorLayer("OAPIF:" + sys.argv[1] + "/v1/features|layername=water-quality-index", "wqi", "ogr")
fields = {f.name(): f.typeName() for f in layer.fields()} if layer.isValid() else {"error": layer.error().summary()}
values = [f["WQI"] for f in layer.getFeatures()] if layer.isValid() else []
print(json.dumps({"version": Qgis.QGIS_VERSION, "fields": fields, "indexed": sum(1 for v in values if isinstance(v, float))}), flush=True)
os._exit(0)
`;
    // As on a fresh clone, no key issued: QGIS sets GDAL's HTTP options itself, GDAL_HTTP_HEADERS among them.
    const open = await listenAsMakeStart(db);
    const { status, stdout, stderr } = await runClient('/usr/bin/python3', ['-c', script, open.origin], { QT_QPA_PLATFORM: 'offscreen' }).finally(() => open.close());
    expect(status, stderr).toBe(0);
    const read = JSON.parse(stdout) as { version: string; fields: Record<string, string>; indexed: number };
    expect(read.version).toMatch(/^3\./);
    expect({ WQI: read.fields['WQI'], Year: read.fields['Year'] }, JSON.stringify(read)).toEqual({ WQI: 'Real', Year: 'Integer' });
    expect(read.indexed).toBe(Number((await ref.runAndReadAll('SELECT count("WQI") FROM water_quality_index')).getRows()[0]![0]));
  });
});
