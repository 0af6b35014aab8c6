import { DuckDBInstance } from '@duckdb/node-api';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIngest } from './pipeline.js';
import type { DatasetReport } from './report.js';
import { query, tempDir } from './test-support.js';

/**
 * Real public data at both validation levels (fixtures/real/*, source and licence beside each file): each source
 * is turned into a dataset folder as another portal's export arrives — its own columns, written its own way — and
 * ingested once per level. The table docs/ingest.md shows ("What each level accepts on real data") is this test's
 * output: it fails, printing the table, when the docs say anything else.
 */

const real = new URL('./fixtures/real/', import.meta.url).pathname;
const docs = new URL('../docs/ingest.md', import.meta.url).pathname;

const header = [
  'DatasetName', 'MonitoringLocationID', 'MonitoringLocationName', 'MonitoringLocationLatitude', 'MonitoringLocationLongitude',
  'MonitoringLocationHorizontalCoordinateReferenceSystem', 'MonitoringLocationType', 'ActivityType', 'ActivityMediaName', 'ActivityStartDate',
  'CharacteristicName', 'ResultValue', 'ResultUnit', 'ResultDetectionCondition', 'ResultDetectionQuantitationLimitMeasure', 'ResultDetectionQuantitationLimitUnit',
];

/** USGS 01491000's nitrate column (`<`: below the reporting limit, whose value is then the limit). */
async function choptank(): Promise<string> {
  const [, ...rows] = (await readFile(join(real, 'choptank', 'ChoptankRiverNitrate.csv'), 'utf8')).trim().split('\n');
  const lines = rows.map((r) => {
    const [date = '', remark = '', value = ''] = r.split(';');
    const censored = remark === '<';
    return [
      'Choptank River nitrate (USGS)', 'USGS-01491000', '"Choptank River near Greensboro, MD"', '38.99719444', '-75.7858056', 'NAD83',
      'River/Stream', 'Sample-Routine', 'Surface Water', date, 'Nitrate', censored ? '' : value, censored ? '' : 'mg/l',
      censored ? 'Below Detection/Quantification Limit' : '', censored ? value : '', censored ? 'mg/l' : '',
    ].join(',');
  });
  return `${header.join(',')}\n${lines.join('\n')}\n`;
}

const sources: Record<string, () => Promise<string>> = { choptank };

async function reasons(path: string | undefined, column: 'errors' | 'warnings'): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (!path) return counts;
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const rows = (await conn.runAndReadAll(`SELECT ${column} AS r FROM read_csv('${path}', header = true, all_varchar = true)`)).getRowObjectsJson();
    // A reason is named by its check: the column or rule before its value and message.
    for (const { r } of rows) for (const reason of String(r ?? '').split(' | ').filter(Boolean)) {
      const name = /^upstream rule (\S+)/.exec(reason)?.[1] ?? /^(\w+) (?:'|is required)/.exec(reason)?.[0].replace(/ '$/, '').replace(' is required', ' (required)') ?? reason;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
  return counts;
}

const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 6).map(([k, n]) => `${k} (${n})`).join(', ') || '—';

async function row(name: string, level: string, d: DatasetReport): Promise<string> {
  const rejected = await reasons(d.rejectsFile, 'errors');
  const warned = level === 'storable' ? await reasons(d.rejectsFile, 'warnings') : new Map<string, number>();
  return `| ${name} | \`${level}\` | ${d.rowsRead} | ${d.rowsLoaded} | ${d.rowsRejected} | ${top(rejected)} | ${top(warned)} |`;
}

describe('real public data at both validation levels', () => {
  it('gives the table docs/ingest.md shows', async () => {
    const dir = await tempDir();
    const table = ['| dataset | level | rows | loaded | rejected | top reasons rejected (rows) | top upstream failures counted as warnings (rows) |', '| --- | --- | --- | --- | --- | --- | --- |'];
    for (const [name, make] of Object.entries(sources)) {
      for (const level of ['upstream', 'storable']) {
        const src = join(dir, `${name}-${level}`);
        await mkdir(join(src, name), { recursive: true });
        await writeFile(join(src, name, 'metadata.json'), JSON.stringify({ DOI: `10.80052/tributary-test-${name}`, DatasetName: name, ValidationLevel: level }));
        await writeFile(join(src, name, 'data.csv'), await make());
        const duckdbPath = join(dir, `${name}-${level}.duckdb`);
        const report = await runIngest({ src, duckdbPath });
        table.push(await row(name, level, report.datasets[0]!));
        if (report.published) {
          // A US location gets its country's and state's regions.
          expect((await query(duckdbPath, 'SELECT DISTINCT "RegionId" FROM location_regions ORDER BY 1')).map((r) => r.RegionId)).toEqual(['admin.2.us', 'admin.4.us.md']);
          // Its trends go through: a row per period with observations (few here: each unassessed, and says why).
          const trends = await query(duckdbPath, 'SELECT "Period", "Observations", "TimeIncrement", "Reason", "Direction" FROM trends ORDER BY "Id"');
          expect(report.trends).toMatchObject({ recomputed: 'all', rows: trends.length });
          expect(trends.length).toBeGreaterThan(0);
          for (const t of trends) expect(t).toMatchObject({ TimeIncrement: 'unassessed', Reason: 'unassessed', Direction: 'Not Analysed' });
        }
      }
    }
    const text = table.join('\n');
    const shown = /<!-- real-data:start -->\n([\s\S]*?)\n<!-- real-data:end -->/.exec(await readFile(docs, 'utf8'))?.[1];
    expect(shown, `docs/ingest.md should show:\n${text}`).toBe(text);
  });
});
