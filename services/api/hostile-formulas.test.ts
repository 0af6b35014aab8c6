/**
 * Hostile data, round three (issue 56 items 2 and 6): a dataset declaring `"ValidationLevel": "storable"` with a
 * formula payload (=, +, -, @, tab, CR first) in every text column of the upload template and every text field of
 * its metadata.json, published onto a copy of the fixture hub by the real ingest CLI; then every CSV door is read
 * (pages of every resource, `$apply` groups, exports, the dataset's CSV file, the citation's text formats, ingest's
 * rejects file) and Python's csv module, written to OWASP's rule here, finds no cell that a spreadsheet would run.
 * Numbers stay numbers: the payload rows' negative ResultValue and UTC offsets read back as stored.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources, uploadColumns } from '../../schemas/index.js';
import { createApp } from './app.js';
import { acquirer, openDatabase, type Database } from './db/database.js';
import { EXPORT_RESOURCES } from './export-formats.js';
import { copyPublished, REPO_ROOT } from './testing/fixture-db.js';

const run = promisify(execFile);
const DOI = '10.5066/FORMULA-1';
const PAYLOADS = ['=HYPERLINK("http://evil.example","x")', '+1+cmd|/C calc', '-2+3+cmd', '@SUM(A1:A2)', '\tTAB=1', '\rCR=1'];
/** A row every check `storable` makes as an error passes; its text columns then get a payload each. */
const GOOD: Readonly<Record<string, string>> = {
  MonitoringLocationLatitude: '53.5461', MonitoringLocationLongitude: '-113.4938', ActivityStartDate: '2021-06-02', ActivityStartTime: '10:30',
  ActivityStartTimeZone: '-06:00', ResultValue: '-5.5', AnalysisStartDate: '2021-06-03', ResultDetectionCondition: '',
};
/** Text kept as given: an offset the time checks read, and no detection condition, which would leave ResultValue null. */
const KEEP = new Set(['ActivityStartTimeZone', 'ResultDetectionCondition']);
/** A folder name a spreadsheet would run: the rejects file's `file` column names it. */
const FOLDER = '@formula';

let dir: string;
let db: Database;
let app: ReturnType<typeof createApp>;

const cell = (v: string) => `"${v.replaceAll('"', '""')}"`;

function writeDataset(src: string): void {
  const folder = join(src, FOLDER);
  mkdirSync(folder, { recursive: true });
  const metadata: Record<string, unknown> = { DOI, ValidationLevel: 'storable', TopicCategoryCode: ['+inlandWaters'], Keywords: ['river', '@keyword', '=1+1'] };
  const fields = ['DatasetName', 'Version', 'DataStewardEmail', 'DataCollectionOrganization', 'DataUploadOrganization', 'ProgressCode', 'MaintenanceFrequencyCode', 'Abstract', 'DataCollectionInformation', 'DataProcessing', 'FundingSources', 'DataSourceURL', 'OtherDataSources', 'Citation', 'Licence', 'Disclaimer'];
  fields.forEach((f, i) => (metadata[f] = `${PAYLOADS[i % PAYLOADS.length]} ${f}`));
  writeFileSync(join(folder, 'metadata.json'), JSON.stringify(metadata));
  const header = uploadColumns.map((c) => c.name);
  const rows = PAYLOADS.map((p) =>
    uploadColumns.map((c) => {
      if (GOOD[c.name] !== undefined && (KEEP.has(c.name) || c.type !== 'string')) return GOOD[c.name]!;
      if (c.type !== 'string') return '';
      if (c.name === 'DatasetName') return metadata['DatasetName'] as string;
      return `${p} ${c.name}`;
    }),
  );
  writeFileSync(join(folder, 'data.csv'), `${header.join(',')}\n${rows.map((r) => r.map(cell).join(',')).join('\n')}\n`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-formulas-'));
  const live = join(dir, 'hub.duckdb');
  copyPublished(inject('apiFixtureDb'), live);
  writeDataset(join(dir, 'src'));
  await run(process.execPath, [inject('ingestCli'), 'ingest'], {
    cwd: REPO_ROOT,
    env: { ...process.env, SRC: join(dir, 'src'), DUCKDB_PATH: live, REGIONS_FILE: join(REPO_ROOT, 'scripts/sample/hubs.geojson') },
  });
  db = await openDatabase(live);
  app = createApp({ acquire: acquirer(db), links: { trustProxy: false } });
}, 120_000);
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every page of a GET, following the Link header's next links. */
async function pages(first: string): Promise<string[]> {
  const out: string[] = [];
  for (let next: string | undefined = first; next; ) {
    const res = await app.request(next);
    expect([next, res.status]).toEqual([next, 200]);
    out.push(await res.text());
    const link = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    next = link ? new URL(link).pathname + new URL(link).search : undefined;
  }
  return out;
}
const q = (params: Record<string, string>) => new URLSearchParams(params).toString().replaceAll('+', '%20');
const ours = `DOI eq '${DOI}'`;

/**
 * Python's csv module on each document: the cells a spreadsheet would run (OWASP's first characters, unless the cell
 * is wholly a number or a ±hh:mm offset), and how many cells were neutralised (start with the quote), per document.
 */
const CHECK = `
import csv, io, json, re, sys
plain = re.compile(r'[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?|[+-][0-9]{2}:[0-9]{2}')
out = []
for name, text in json.load(sys.stdin):
    cells = [c for row in csv.reader(io.StringIO(text, newline='')) for c in row]
    bad = [c for c in cells if c and c[0] in '=+-@\\t\\r' and not plain.fullmatch(c)]
    out.append({'name': name, 'cells': len(cells), 'bad': bad[:5], 'neutralised': sum(1 for c in cells if c[:1] == "'")})
print(json.dumps(out))
`;

function check(documents: readonly (readonly [string, string])[]): { name: string; cells: number; bad: string[]; neutralised: number }[] {
  return JSON.parse(execFileSync('python3', ['-c', CHECK], { input: JSON.stringify(documents), encoding: 'utf8' })) as never;
}

describe('formula payloads in every text column and metadata field, read through every CSV door', () => {
  it('no cell starts a formula: pages, $apply, exports, the dataset file, citations, the rejects file', async () => {
    const docs: [string, string][] = [];
    for (const r of resources) {
      const filtered = await app.request(`/v1/odata/v4/${r.name}?${q({ $filter: ours, $top: '1' })}`);
      const filter: Record<string, string> = filtered.status === 200 ? { $filter: ours } : {};
      for (const [i, text] of (await pages(`/v1/odata/v4/${r.name}?${q({ ...filter, $format: 'csv', $top: '10000' })}`)).entries()) docs.push([`page ${r.name} ${i}`, text]);
    }
    const dims = 'CharacteristicName,ActivityMediaName,ActivityGroupType,MonitoringLocationType,ResultUnit,DOI';
    for (const text of await pages(`/v1/odata/v4/Observations?${q({ $apply: `filter(${ours})/groupby((${dims}),aggregate($count as N))`, $format: 'csv' })}`)) docs.push(['$apply Observations', text]);
    for (const name of EXPORT_RESOURCES) {
      const res = await app.request(`/v1/export/${name}?${q({ $filter: ours, $format: 'csv' })}`);
      if (res.status === 200) docs.push([`export ${name}`, await res.text()]);
      else expect([name, res.status]).toEqual([name, 400]);
    }
    const index = (await (await app.request('/v1/downloads')).json()) as { datasets: { DOI: string; files: Record<string, { url: string }> }[] };
    const file = index.datasets.find((d) => d.DOI === DOI)!.files['csv']!;
    docs.push(['dataset file', await (await app.request(new URL(file.url).pathname)).text()]);
    for (const format of ['ris', 'bibtex', 'text']) {
      const res = await app.request(`/v1/citation/Records?${q({ $filter: ours, format })}`);
      expect(res.status).toBe(200);
      // A line of RIS is `TG  - value`: its value is what a reference manager's CSV export makes a cell of.
      const text = await res.text();
      const values = format === 'ris' ? text.split('\r\n').filter(Boolean).map((l) => l.slice(6)) : format === 'text' ? text.split('\n').map((l) => l.replace(/^- /, '')) : [...text.matchAll(/= \{+(.*?)\}+,?$/gm)].map((m) => m[1]!);
      docs.push([`citation ${format}`, values.map((v) => cell(v)).join('\r\n')]);
    }
    const rejects = join(dir, 'hub.duckdb.rejects');
    for (const name of readdirSync(rejects)) docs.push([`rejects ${name}`, readFileSync(join(rejects, name), 'utf8')]);

    const results = check(docs);
    expect(results.filter((r) => r.bad.length > 0)).toEqual([]);
    // Not vacuous: each kind of door carried the payloads, neutralised.
    for (const door of ['page Metadata', 'page Records', 'page Locations', '$apply', 'export Records', 'dataset file', 'citation ris', 'citation bibtex', 'citation text', 'rejects']) {
      expect([door, results.filter((r) => r.name.startsWith(door)).reduce((n, r) => n + r.neutralised, 0)]).not.toEqual([door, 0]);
    }
  });

  it('numbers, dates and offsets read back as stored: a negative ResultValue is a number, -06:00 an offset', async () => {
    const [text] = await pages(`/v1/odata/v4/Records?${q({ $filter: ours, $select: 'Id,ResultValue,ActivityStartDate,ActivityStartTimeZone,CharacteristicName', $format: 'csv' })}`);
    const [read] = check([['Records', text!]]);
    expect(read!.bad).toEqual([]);
    const [header, ...rows] = text!.trimEnd().split('\r\n');
    expect(header).toBe('Id,ActivityStartDate,ActivityStartTimeZone,CharacteristicName,ResultValue');
    expect(rows).toHaveLength(PAYLOADS.length);
    // The characteristic is quoted text led by the quote; the line's end is its ResultValue, a plain negative number.
    for (const row of rows) expect(row).toMatch(/^\d+,2021-06-02,"-06:00","'[^]*",-5\.5$/);
  });
});
