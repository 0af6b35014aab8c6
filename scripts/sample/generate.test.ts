import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetMetadataSchema } from '../../schemas/metadata-schema.js';
import { checkObservationRow } from '../../schemas/observation-row.js';
import { ajvAccepts, checkableRules } from '../../ingest/rule-oracle.js';
import { uploadColumnNames } from './series.js';
import { datasetSpecs } from './datasets.js';
import { generateSample, RARE_CHARACTERISTIC, type SampleSummary } from './generate.js';
import { readSample, type CsvFile } from './test-support.js';

const ROWS = 5_000;
let dirA: string;
let dirB: string;
let summary: SampleSummary;
let files: CsvFile[];
const records = (): Record<string, string>[] => files.flatMap((f) => f.records.map((r) => ({ ...r, dataset: f.dataset })));

beforeAll(async () => {
  dirA = await mkdtemp(join(tmpdir(), 'sample-a-'));
  dirB = await mkdtemp(join(tmpdir(), 'sample-b-'));
  summary = await generateSample({ rows: ROWS, out: dirA, seed: 7 });
  await generateSample({ rows: ROWS, out: dirB, seed: 7 });
  files = await readSample(dirA);
});

afterAll(async () => {
  await rm(dirA, { recursive: true, force: true });
  await rm(dirB, { recursive: true, force: true });
});

async function allFiles(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.set(join(entry.parentPath, entry.name).slice(dir.length), await readFile(join(entry.parentPath, entry.name)));
  }
  return out;
}

describe('sample generator', () => {
  it('is deterministic: same seed and rows give byte-identical files', async () => {
    const [a, b] = await Promise.all([allFiles(dirA), allFiles(dirB)]);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [name, bytes] of a) expect(bytes.equals(b.get(name)!), name).toBe(true);
  });

  it('writes exactly ROWS rows, as the summary says', () => {
    expect(records()).toHaveLength(ROWS);
    expect(summary.rows).toBe(ROWS);
    expect(summary.datasets.reduce((s, d) => s + d.rows, 0)).toBe(ROWS);
  });

  it('every row passes every quality-control rule too: the sample warns about nothing (no deprecated name or status)', () => {
    const rules = checkableRules('warning');
    expect(rules.length).toBeGreaterThan(10);
    const failures = records().flatMap((r) => rules.filter((rule) => !ajvAccepts(rule, r)).map((rule) => `${r.dataset}: ${rule.name}`));
    expect([...new Set(failures)].slice(0, 5)).toEqual([]);
  });

  it('every row passes every error rule of DataStream schema 3.0.0 (ajv, as upstream validates)', () => {
    const rules = checkableRules('error');
    const failures = records().flatMap((r) => rules.filter((rule) => !ajvAccepts(rule, r)).map((rule) => `${r.dataset}: ${rule.name}`));
    expect([...new Set(failures)].slice(0, 5)).toEqual([]);
  });

  it('every row is valid per observationRowSchema', () => {
    const failures = records().flatMap((r) => {
      const result = checkObservationRow(r);
      return result.ok ? [] : [`${r.dataset}: ${result.issues.map((i) => i.message).join('; ')}`];
    });
    expect(failures.slice(0, 5)).toEqual([]);
  });

  it('headers are the sample columns (as a set), one dataset in another order', () => {
    const expected = [...uploadColumnNames];
    for (const f of files) expect([...f.header].sort()).toEqual([...expected].sort());
    expect(files.some((f) => f.header.join() !== expected.join())).toBe(true);
  });

  it('writes one gzipped dataset and one dataset in several files', async () => {
    expect(files.filter((f) => f.name.endsWith('.csv.gz')).length).toBeGreaterThan(0);
    expect(summary.datasets.some((d) => d.files.length > 1)).toBe(true);
  });

  it('with gzipAll, gzips every file and writes the same rows', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sample-gz-'));
    try {
      await generateSample({ rows: ROWS, out: dir, seed: 7, gzipAll: true });
      const gz = await readSample(dir);
      expect(gz.every((f) => f.name.endsWith('.csv.gz'))).toBe(true);
      expect(gz.map((f) => [f.dataset, f.name.replace(/\.gz$/, ''), f.text])).toEqual(files.map((f) => [f.dataset, f.name.replace(/\.gz$/, ''), f.text]));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('metadata.json of every dataset validates, with distinct DOIs', async () => {
    const dois = new Set<string>();
    for (const d of summary.datasets) {
      const metadata = datasetMetadataSchema.parse(JSON.parse(await readFile(join(dirA, d.folder, 'metadata.json'), 'utf8')));
      expect(metadata.DOI).toBe(d.doi);
      dois.add(metadata.DOI);
    }
    expect(dois.size).toBe(datasetSpecs.length);
  });

  it('exercises quoting and Unicode: commas, quotes, line breaks, accents', () => {
    const all = records();
    expect(all.some((r) => r.MonitoringLocationName?.includes(','))).toBe(true);
    expect(all.some((r) => /[éè’]/.test(r.MonitoringLocationName ?? ''))).toBe(true);
    expect(all.some((r) => r.DatasetName?.includes(','))).toBe(true);
    const commented = all.filter((r) => r.ResultComment !== '');
    expect(commented.length).toBeGreaterThan(0);
    expect(commented.length).toBeLessThan(ROWS * 0.01);
  });

  it('is skewed: a few characteristics dominate, with a long tail', () => {
    const counts = new Map<string, number>();
    for (const r of records()) counts.set(r.CharacteristicName!, (counts.get(r.CharacteristicName!) ?? 0) + 1);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    expect(sorted.slice(0, 4).reduce((s, n) => s + n, 0)).toBeGreaterThan(ROWS * 0.6);
    expect(counts.size).toBeGreaterThan(20);
    expect(sorted.at(-1)!).toBeLessThan(ROWS * 0.01);
    expect(sorted[0]! / (counts.get('Temperature, water') ?? 0)).toBe(1);
  });

  it('places the rare characteristic at a few locations spread over many datasets', () => {
    const rare = records().filter((r) => r.CharacteristicName === RARE_CHARACTERISTIC);
    const locations = new Set(rare.map((r) => `${r.dataset}/${r.MonitoringLocationID}`));
    const datasets = new Set(rare.map((r) => r.dataset));
    // One location in each field and lab dataset: few locations, many datasets, at any ROWS.
    expect(datasets.size).toBe(datasetSpecs.filter((d) => d.kind !== 'continuous').length);
    expect(locations.size).toBe(datasets.size);
    expect(rare.length).toBeLessThan(ROWS * 0.02);
  });

  it('has continuous, field and lab programmes with their traits', () => {
    const all = records();
    const logger = all.filter((r) => r.ActivityType === 'Field Msr/Obs-Continuous Time Series');
    expect(logger.length).toBeGreaterThan(100);
    expect(logger.every((r) => /^\d\d:(00|15|30|45):00$/.test(r.ActivityStartTime!))).toBe(true);
    const notDetected = all.filter((r) => r.ResultDetectionCondition === 'Below Detection/Quantification Limit');
    expect(notDetected.length).toBeGreaterThan(0);
    for (const r of notDetected) {
      expect(r.ResultValue).toBe('');
      expect(r.ResultDetectionQuantitationLimitMeasure).not.toBe('');
      expect(r.ResultDetectionQuantitationLimitUnit).not.toBe('');
      expect(r.ResultDetectionQuantitationLimitType).toBe('Method Detection Level');
    }
    const years = all.map((r) => Number(r.ActivityStartDate!.slice(0, 4)));
    expect(Math.min(...years)).toBeGreaterThanOrEqual(2005);
    expect(Math.max(...years)).toBeLessThanOrEqual(2025);
  });

  it('sorts rows by location, then date and time, within each file', () => {
    for (const f of files) {
      let previous = '';
      let location = '';
      for (const r of f.records) {
        const key = `${r.ActivityStartDate} ${r.ActivityStartTime!.padEnd(8, ':00')}`;
        if (r.MonitoringLocationID !== location) {
          expect(r.MonitoringLocationID! > location, `${f.name} ${r.MonitoringLocationID}`).toBe(true);
          location = r.MonitoringLocationID!;
        } else expect(key >= previous, `${f.name} ${location} ${key} < ${previous}`).toBe(true);
        previous = key;
      }
    }
  });

  it('places locations inside their province (real boundaries) and their hub polygon', async () => {
    const provinceFile: Record<string, string> = {
      ab: 'alberta', bc: 'british_columbia', mb: 'manitoba', sk: 'saskatchewan', on: 'ontario', qc: 'quebec', ns: 'nova_scotia', nb: 'new_brunswick', nt: 'northwest_territories',
    };
    const load = async (path: string) => JSON.parse(await readFile(path, 'utf8'));
    const hubs = await load(join(import.meta.dirname, 'hubs.geojson'));
    const hubOf = new Map<string, unknown>(hubs.features.map((f: { properties: { RegionId: string } }) => [f.properties.RegionId, f]));
    expect([...hubOf.keys()].sort()).toEqual(['hub.atlantic', 'hub.greatlakes', 'hub.lakewinnipeg', 'hub.mackenzie', 'hub.pacific']);
    expect(new Set(datasetSpecs.map((d) => d.province)).size).toBeGreaterThanOrEqual(6);
    for (const spec of datasetSpecs) {
      const province = await load(join('node_modules/world-geojson/states/canada', `${provinceFile[spec.province]}.json`));
      const points = new Set(records().filter((r) => r.dataset === spec.folder).map((r) => `${r.MonitoringLocationLongitude},${r.MonitoringLocationLatitude}`));
      for (const p of points) {
        const point = p.split(',').map(Number);
        const inProvince = province.features.some((f: Parameters<typeof booleanPointInPolygon>[1]) => booleanPointInPolygon(point, f));
        expect(inProvince, `${spec.folder} ${p} in ${spec.province}`).toBe(true);
        if (spec.hub) expect(booleanPointInPolygon(point, hubOf.get(spec.hub) as never), `${spec.folder} ${p} in ${spec.hub}`).toBe(true);
      }
    }
  });
});
