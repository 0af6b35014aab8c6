/**
 * Issue 48's aggregates on real public data: USGS 01491000's nitrate series (ingest/fixtures/real/choptank, its
 * source and licence beside it; censored values below the reporting limit), published by the real ingest CLI at the
 * `storable` level, then every value aggregate over HTTP against plain code over the source file read here.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './app.js';
import { openDatabase, type Database } from './db/database.js';
import { REPO_ROOT } from './testing/fixture-db.js';

const SOURCE = join(REPO_ROOT, 'ingest/fixtures/real/choptank/ChoptankRiverNitrate.csv');

/** The source as published: a date, and either a value or (remark `<`) a reporting limit with no value. */
interface Sample {
  readonly date: string;
  readonly value: number | null;
  readonly limit: number | null;
}
const samples: Sample[] = readFileSync(SOURCE, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [date = '', remark = '', value = ''] = line.split(';');
    return remark === '<' ? { date, value: null, limit: Number(value) } : { date, value: Number(value), limit: null };
  });

let dir: string;
let db: Database;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-aggregate-real-'));
  const folder = join(dir, 'src', 'choptank');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'metadata.json'), JSON.stringify({ DOI: '10.80052/tributary-test-choptank', DatasetName: 'Choptank River nitrate (USGS)', ValidationLevel: 'storable' }));
  const header = 'DatasetName,MonitoringLocationID,MonitoringLocationName,MonitoringLocationLatitude,MonitoringLocationLongitude,MonitoringLocationHorizontalCoordinateReferenceSystem,MonitoringLocationType,ActivityType,ActivityMediaName,ActivityStartDate,CharacteristicName,ResultValue,ResultUnit,ResultDetectionCondition,ResultDetectionQuantitationLimitMeasure,ResultDetectionQuantitationLimitUnit';
  const rows = samples.map((s) =>
    ['Choptank River nitrate (USGS)', 'USGS-01491000', '"Choptank River near Greensboro, MD"', '38.99719444', '-75.7858056', 'NAD83', 'River/Stream', 'Sample-Routine', 'Surface Water', s.date, 'Nitrate',
      s.value ?? '', s.value === null ? '' : 'mg/l', s.value === null ? 'Below Detection/Quantification Limit' : '', s.limit ?? '', s.limit === null ? '' : 'mg/l'].join(','),
  );
  writeFileSync(join(folder, 'data.csv'), `${header}\n${rows.join('\n')}\n`);
  const duckdbPath = join(dir, 'real.duckdb');
  await promisify(execFile)(process.execPath, [inject('ingestCli'), 'ingest'], { cwd: REPO_ROOT, env: { ...process.env, SRC: join(dir, 'src'), DUCKDB_PATH: duckdbPath } });
  db = await openDatabase(duckdbPath);
  app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false } });
}, 120_000);

afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Hyndman & Fan type 7, as docs/api.md defines Tributary.p10, median and p90. */
function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  return sorted[lo]! + (h - lo) * (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!);
}

describe('aggregates of a real USGS nitrate series', () => {
  it('every method against the source file, non-detects apart, limits in their own unit', async () => {
    const apply =
      'groupby((CharacteristicName,ResultUnit),aggregate($count as N,ResultValue with Tributary.countnull as NonDetects,ResultValue with min as Lo,ResultValue with max as Hi,' +
      'ResultValue with average as Mean,ResultValue with sum as Total,ResultValue with Tributary.median as Median,ResultValue with Tributary.p10 as P10,ResultValue with Tributary.p90 as P90,' +
      'ActivityStartDate with min as First,ActivityStartDate with max as Last))';
    const res = await app.request(`/v1/odata/v4/Observations?${new URLSearchParams({ $apply: apply })}`);
    const body = (await res.json()) as { value: Record<string, unknown>[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    const values = samples.flatMap((s) => (s.value === null ? [] : [s.value]));
    const detected = samples.filter((s) => s.value !== null);
    const censored = samples.filter((s) => s.value === null);
    expect(censored.length).toBeGreaterThan(0);
    const close = (x: number) => expect.closeTo(x, 12);
    // The non-detects carry no unit: their own group, with no value to aggregate.
    expect(body.value).toEqual([
      {
        CharacteristicName: 'Nitrate', ResultUnit: 'mg/l', N: detected.length, NonDetects: 0, Lo: Math.min(...values), Hi: Math.max(...values),
        Mean: close(values.reduce((a, b) => a + b, 0) / values.length), Total: close(values.reduce((a, b) => a + b, 0)),
        Median: close(percentile(values, 0.5)), P10: close(percentile(values, 0.1)), P90: close(percentile(values, 0.9)),
        First: detected.map((s) => s.date).sort()[0], Last: detected.map((s) => s.date).sort().at(-1),
      },
      {
        CharacteristicName: 'Nitrate', ResultUnit: null, N: censored.length, NonDetects: censored.length, Lo: null, Hi: null, Mean: null, Total: null, Median: null, P10: null, P90: null,
        First: censored.map((s) => s.date).sort()[0], Last: censored.map((s) => s.date).sort().at(-1),
      },
    ]);
    const limits = await app.request(`/v1/odata/v4/Observations?${new URLSearchParams({ $apply: 'aggregate(ResultDetectionQuantitationLimitMeasure with max as Limit,ResultDetectionQuantitationLimitMeasure with Tributary.countnull as WithoutLimit)' })}`);
    expect(((await limits.json()) as { value: unknown[] }).value).toEqual([{ Limit: Math.max(...censored.map((s) => s.limit!)), WithoutLimit: detected.length }]);
  });
});
