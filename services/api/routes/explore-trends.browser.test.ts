/**
 * Trends in the explorer (issue 54.2), in Chromium against a real API on a hub of trend series the real ingest
 * published (scripts/testing/trend-hub.ts: slopes up, down and flat, seasons, monthly and quarterly sampling, gaps,
 * detection limits that change, `>` values, quality-control results). The map's classes are checked against the
 * stored Trends rows, by the documented rule for a location with several series; the chart's kept increments
 * against the row's stored Ids and against the independent oracle's choice (scripts/testing/trend-oracle.ts,
 * `trendDetails`), its censored ones apart, and its line against LWP's own drawing (GGPlotTrend: Intercept = Ymed −
 * slope·Tmed) over the oracle's figures. axe-core checks the page in trend mode; a refused (429) trends request is
 * waited out. A screenshot lands in test-artifacts/explore/trends.png (git-ignored).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildExplore } from '../../../scripts/build/build-explore.js';
import type { StoredResult } from '../../../scripts/testing/stored-result.js';
import { readRows, writeTestDataset } from '../../../scripts/testing/trend-datasets.js';
import { trendDataset } from '../../../scripts/testing/trend-hub.js';
import { hubEndYear, trendDetails, trendSeries, type TrendDetail } from '../../../scripts/testing/trend-oracle.js';

import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { REPO_ROOT } from '../testing/fixture-db.js';
import { listen, type TestServer } from '../testing/test-server.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts/explore');
const PERIODS = '5,10,15';

type Row = Record<string, unknown>;

/** A published hub of trend series: its file, its stored observations (as the oracle reads them) and its trends rows. */
interface TrendHub {
  readonly path: string;
  readonly observations: readonly StoredResult[];
  readonly trends: readonly Row[];
}

const STORED = `SELECT "Id", "LocationId", "CharacteristicName", "ResultSampleFraction", "MethodSpeciation", "ResultValue", "ResultUnit",
  "ResultDetectionCondition", "ResultDetectionQuantitationLimitMeasure", "ResultDetectionQuantitationLimitUnit", "ActivityGroupType",
  strftime("ActivityStartDate", '%Y-%m-%d') AS "ActivityStartDate", left(CAST("ActivityStartTime" AS VARCHAR), 8) AS "ActivityStartTime"
  FROM observations ORDER BY "Id"`;

/** Two generated datasets of trend series, published by the ingest CLI with `periods`. */
async function ingestTrendHub(at: string, periods: string): Promise<TrendHub> {
  for (const [i, folder] of ['ta', 'tb'].entries()) await writeTestDataset(join(at, 'src'), trendDataset(41 + i, folder, { locations: 6, series: 6, from: 2008 + i, to: 2024 }));
  const path = join(at, 'hub.duckdb');
  const env = { ...process.env, SRC: join(at, 'src'), DUCKDB_PATH: path, TRENDS_PERIODS: periods };
  await promisify(execFile)(process.execPath, [inject('ingestCli'), 'ingest'], { cwd: REPO_ROOT, env });
  return { path, observations: (await readRows(path, STORED)) as unknown as StoredResult[], trends: await readRows(path, 'SELECT * FROM trends ORDER BY "Id"') };
}

let dir: string;
let hub: TrendHub;
let db: Database;
let browser: Browser;
const servers: TestServer[] = [];

/** The API on the hub; `refuse` answers a request 429 once when it says so (before the app sees it). */
async function startApi(refuse: (url: string) => boolean = () => false): Promise<TestServer> {
  let app: ReturnType<typeof createApp> | undefined;
  const server = await listen({
    fetch: (req: Request) =>
      refuse(decodeURIComponent(req.url))
        ? new Response(JSON.stringify({ message: 'Too many requests: retry after 1 s.' }), { status: 429, headers: { 'Content-Type': 'application/json', 'Retry-After': '1' } })
        : app!.fetch(req),
  });
  app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, regionsFile: join(REPO_ROOT, 'scripts/sample/hubs.geojson'), explore: { assetsDir: join(dir, 'assets') } });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-explore-trends-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  await buildExplore(join(dir, 'assets'));
  hub = await ingestTrendHub(dir, PERIODS);
  db = await openDatabase(hub.path);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => s.close()));
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const classOf = (r: Row): string => String(r['ImprovesWhen'] === null ? r['Direction'] : r['Category']);
const inPeriod = (r: Row, start: number, end: number) => r['StartYear'] === start && r['EndYear'] === end;
/** The row a location shows (docs/explore.md): an analysed one, then the most increments, observations, the lowest Id. */
function expectedShown(rows: readonly Row[]): Map<number, Row> {
  const score = (r: Row): number[] => [r['Cd'] === null ? 0 : 1, Number(r['N'] ?? -1), Number(r['Observations']), -Number(r['Id'])];
  const better = (a: Row, b: Row) => {
    const [x, y] = [score(a), score(b)];
    const i = x.findIndex((v, k) => v !== y[k]);
    return i >= 0 && x[i]! > y[i]!;
  };
  const out = new Map<number, Row>();
  for (const r of rows) {
    const id = Number(r['LocationId']);
    if (!out.has(id) || better(r, out.get(id)!)) out.set(id, r);
  }
  return out;
}
/** `id:class,…` as the map writes it. */
const parsePairs = (text: string | null) => new Map((text ?? '').split(',').filter(Boolean).map((p) => [Number(p.slice(0, p.indexOf(':'))), p.slice(p.indexOf(':') + 1)]));

describe('the explorer’s trends', () => {
  let api: TestServer;
  let page: Page;
  const pageErrors: string[] = [];
  const requested: string[] = [];
  /** The oracle's detail of each stored row, by the row's Id. */
  let oracle: Map<number, TrendDetail>;

  const settled = async () => {
    await page.waitForSelector('#total[data-total]:not([data-total=""])');
    await page.waitForSelector('#results:not([aria-busy])', { timeout: 30_000 });
  };
  /** The locations the map shows under a characteristic (any location with one of its observations). */
  const locationsOf = (characteristic: string) => new Set(hub.observations.filter((o) => o.CharacteristicName === characteristic).map((o) => o.LocationId!));

  beforeAll(async () => {
    api = await startApi();
    page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', (r) => requested.push(decodeURIComponent(r.url())));
    // The oracle over the stored observations: each series' rows for the hub's periods, keyed as the table keys them.
    const endYear = hubEndYear(hub.observations)!;
    const key = (loc: unknown, c: unknown, f: unknown, s: unknown, u: unknown, start: unknown) => JSON.stringify([loc, c, f, s, u, start]);
    const details = new Map<string, TrendDetail>();
    for (const series of trendSeries(hub.observations)) {
      const k = series.key;
      for (const d of trendDetails(series.observations, { endYear, periods: PERIODS, characteristicName: k.CharacteristicName })) details.set(key(k.LocationId, k.CharacteristicName, k.ResultSampleFraction, k.MethodSpeciation, k.ResultUnit, d.row.StartYear), d);
    }
    oracle = new Map(hub.trends.map((r) => [Number(r['Id']), details.get(key(r['LocationId'], r['CharacteristicName'], r['ResultSampleFraction'], r['MethodSpeciation'], r['ResultUnit'], r['StartYear']))!]));
    expect([...oracle.values()].every(Boolean)).toBe(true);
  });
  afterAll(async () => {
    await page.close();
  });

  /** An analysed 10-year row with a slope, some of its increments censored (not most), of a characteristic that improves one way. */
  const censoredRow = (): Row => {
    const found = hub.trends.filter((r) => r['Period'] === 10 && r['SenSlope'] !== null && r['SenSlope'] !== 0 && r['ImprovesWhen'] !== null && Number(r['NCensored']) > 0 && Number(r['NCensored']) < Number(r['N']) / 2);
    expect(found.length).toBeGreaterThan(0);
    return found.sort((a, b) => Number(b['NCensored']) - Number(a['NCensored']) || Number(a['Id']) - Number(b['Id']))[0]!;
  };

  it('offers the publication’s periods, and maps each location’s category for the characteristic and period picked, from one request, with its key and table', async () => {
    const target = censoredRow();
    const characteristic = String(target['CharacteristicName']);
    const [start, end] = [Number(target['StartYear']), Number(target['EndYear'])];
    await page.goto(`${api.origin}/explore?CharacteristicName=${encodeURIComponent(characteristic)}`);
    await settled();
    const periods = [...new Set(hub.trends.map((r) => `${String(r['StartYear'])}-${String(r['EndYear'])}`))].sort((a, b) => b.localeCompare(a));
    expect(await page.$$eval('#map-colour option', (o) => o.map((e) => (e as HTMLOptionElement).value))).toEqual(['', ...periods]);

    requested.length = 0;
    await page.selectOption('#map-colour', `${start}-${end}`);
    await page.waitForSelector('#map[data-trends]');
    expect(new URL(page.url()).searchParams.get('trend')).toBe(`${start}-${end}`);

    // Expected from the stored rows: each mapped location's shown row's class, or none without a row.
    const shown = expectedShown(hub.trends.filter((r) => r['CharacteristicName'] === characteristic && inPeriod(r, start, end)));
    const mapped = locationsOf(characteristic);
    const want = new Map([...mapped].map((id) => [id, shown.has(id) ? classOf(shown.get(id)!) : 'none']));
    expect(parsePairs(await page.getAttribute('#map', 'data-trends'))).toEqual(want);
    expect(new Set(want.values()).size).toBeGreaterThan(2);
    // One request for the map, none of the exceedances' groupby it replaces.
    const trendRequests = requested.filter((u) => u.includes('/v1/odata/v4/Trends?'));
    expect(trendRequests).toHaveLength(1);
    expect(trendRequests[0]).toContain(`StartYear eq ${start} and EndYear eq ${end}`);
    expect(requested.filter((u) => u.includes('groupby((LocationId,Verdict)'))).toEqual([]);

    // The key counts each class; the table says every location's class in words.
    const counts = new Map<string, number>();
    for (const c of want.values()) counts.set(c, (counts.get(c) ?? 0) + 1);
    await page.waitForSelector('#trend-legend li[data-class]');
    const key = await page.$$eval('#trend-legend li[data-class]', (li) => li.map((e) => [e.getAttribute('data-class')!, Number(/(\d+)$/.exec(e.textContent ?? '')![1])] as const));
    expect(new Map(key.filter(([, n]) => n > 0))).toEqual(counts);
    await page.click('#trend-sites summary');
    await page.waitForSelector('#trend-sites tbody tr');
    const table = await page.$$eval('#trend-sites tbody tr', (tr) => tr.map((e) => [Number(e.getAttribute('data-location')), e.querySelector('td')!.textContent!] as const));
    expect(new Set(table.map(([id]) => id))).toEqual(new Set([...shown.keys()].filter((id) => mapped.has(id))));
    for (const [id, label] of table) expect(label.toLowerCase(), String(id)).toContain(classOf(shown.get(id)!).toLowerCase());
    await page.waitForSelector('#map-legend', { state: 'hidden' });
  });

  it('follows the selection: a location type (and a medium, which no trend has, left out of the trends request)', async () => {
    const target = censoredRow();
    const characteristic = String(target['CharacteristicName']);
    const [start, end] = [Number(target['StartYear']), Number(target['EndYear'])];
    const lakes = new Set((await readRows(hub.path, `SELECT "Id" FROM locations WHERE "MonitoringLocationType" = 'Lake/Pond'`)).map((r) => Number(r['Id'])));
    requested.length = 0;
    await page.goto(`${api.origin}/explore?CharacteristicName=${encodeURIComponent(characteristic)}&MonitoringLocationType=Lake%2FPond&ActivityMediaName=Surface%20Water&trend=${start}-${end}`);
    await page.waitForSelector('#map[data-trends]');
    const shown = expectedShown(hub.trends.filter((r) => r['CharacteristicName'] === characteristic && inPeriod(r, start, end) && lakes.has(Number(r['LocationId']))));
    const mapped = [...locationsOf(characteristic)].filter((id) => lakes.has(id));
    expect(mapped.length).toBeGreaterThan(0);
    expect(parsePairs(await page.getAttribute('#map', 'data-trends'))).toEqual(new Map(mapped.map((id) => [id, shown.has(id) ? classOf(shown.get(id)!) : 'none'])));
    const [trendRequest] = requested.filter((u) => u.includes('/v1/odata/v4/Trends?') && u.includes('$filter='));
    expect(trendRequest).toContain("MonitoringLocationType eq 'Lake/Pond'");
    expect(trendRequest).not.toContain('ActivityMediaName');
  });

  it('maps a characteristic without an improving direction (pH) by its Direction, and says so', async () => {
    const row = hub.trends.find((r) => r['CharacteristicName'] === 'pH' && r['Period'] === 5)!;
    const [start, end] = [Number(row['StartYear']), Number(row['EndYear'])];
    await page.goto(`${api.origin}/explore?CharacteristicName=pH&trend=${start}-${end}`);
    await page.waitForSelector('#map[data-trends]');
    const shown = expectedShown(hub.trends.filter((r) => r['CharacteristicName'] === 'pH' && inPeriod(r, start, end)));
    const got = parsePairs(await page.getAttribute('#map', 'data-trends'));
    for (const [id, r] of shown) expect(got.get(id), String(id)).toBe(String(r['Direction']));
    expect(new Set(got.values())).not.toContain('Very likely improving');
    await page.waitForSelector('#trend-legend li[data-class]');
    expect(await page.textContent('#trend-legend')).toContain('no direction is better');
  });

  it('with several characteristics chosen, says a trend map needs one and keeps the plain markers', async () => {
    await page.goto(`${api.origin}/explore?CharacteristicName=pH&CharacteristicName=Chloride&trend=2015-2024`);
    await page.waitForFunction(() => document.getElementById('trend-legend')?.textContent?.includes('choose exactly one'));
    await settled();
    expect(await page.getAttribute('#map', 'data-trends')).toBeNull();
  });

  /** The chart's kept Ids (detected, censored) and lines once it has drawn for `url`. */
  async function chartAt(url: string) {
    await page.goto(url);
    await page.waitForSelector('#chart[data-kept]');
    const ids = async (name: string) => ((await page.getAttribute('#chart', name)) ?? '').split(',').filter(Boolean).map(Number);
    return { kept: await ids('data-kept'), censored: await ids('data-kept-censored'), lines: ((await page.getAttribute('#chart', 'data-trends')) ?? '').split(',').filter(Boolean).map((l) => l.split(':').map(Number)) };
  }

  it('charts the Sen slope as LWP draws it over the kept increments: exactly the stored and the oracle’s, censored ones apart, the row in words', async () => {
    const row = censoredRow();
    const id = Number(row['Id']);
    const detail = oracle.get(id)!;
    const stored = (row['IncrementObservationIds'] as number[]).map(Number);
    const { kept, censored, lines } = await chartAt(`${api.origin}/explore?CharacteristicName=${encodeURIComponent(String(row['CharacteristicName']))}&LocationId=${String(row['LocationId'])}&trend=${String(row['StartYear'])}-${String(row['EndYear'])}`);

    // Marked: exactly what the stage stored, which is what the oracle keeps (§4); censored ones as such.
    const oracleIds = detail.increments.map((i) => i.observation.id);
    expect(stored).toEqual(oracleIds);
    expect([...kept, ...censored].sort((a, b) => a - b)).toEqual([...stored].sort((a, b) => a - b));
    expect(censored.sort((a, b) => a - b)).toEqual(detail.increments.filter((i) => i.observation.censoring !== null).map((i) => i.observation.id).sort((a, b) => a - b));
    expect(censored.length).toBe(Number(row['NCensored']));

    // The line: LWP's GGPlotTrend over the oracle's figures (Ymed the median of the substituted kept values).
    const { Median, SenSlope } = detail.row;
    const day = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000;
    const [first, last] = [detail.increments[0]!.observation.date, detail.increments.at(-1)!.observation.date];
    const span = (day(last) - day(first)) / 365.25;
    const intercept = Median! - SenSlope! * (span / 2);
    expect(lines).toHaveLength(1);
    const [rowId, t0, y0, t1, y1] = lines[0]!;
    expect(rowId).toBe(id);
    expect([t0, t1]).toEqual([day(first) * 86_400 + 43_200, day(last) * 86_400 + 43_200]);
    expect(Math.abs(y0! - intercept)).toBeLessThanOrEqual(1e-6 * Math.max(Math.abs(intercept), Math.abs(Median!)));
    expect(Math.abs(y1! - (intercept + span * SenSlope!))).toBeLessThanOrEqual(1e-6 * Math.max(Math.abs(intercept), Math.abs(Median!)));

    await page.waitForSelector(`#chart-trend li[data-trend="${id}"]`);
    const words = (await page.textContent(`#chart-trend li[data-trend="${id}"]`))!;
    expect(words).toContain(String(row['Category']));
    expect(words).toContain(`LWP's note: ${String(row['AnalysisNote'])}`);
    expect(words).toContain(`${Number(row['NCensored'])} censored`);
    expect(words).toContain(`Sen slope ${String(Number(Number(row['SenSlope']).toPrecision(3)))}`);
    const legend = await page.$$eval('#chart .u-legend .u-series', (s) => s.map((e) => e.textContent ?? ''));
    expect(legend.some((l) => l.includes('Kept for the trend, censored (at the limit)'))).toBe(true);
    expect(legend.some((l) => l.includes(': Sen slope, 10 years'))).toBe(true);
    expect(await page.textContent('#chart-note')).toContain('as LWP-Trends draws it');
    await page.screenshot({ path: join(ARTIFACTS, 'trends.png'), fullPage: true });
  });

  it('marks the kept increments the page’s filters leave out of the chart too: the period’s observations are read for them', async () => {
    const row = censoredRow();
    const stored = (row['IncrementObservationIds'] as number[]).map(Number);
    requested.length = 0;
    const { kept, censored } = await chartAt(`${api.origin}/explore?CharacteristicName=${encodeURIComponent(String(row['CharacteristicName']))}&YearFrom=${String(row['EndYear'])}&LocationId=${String(row['LocationId'])}&trend=${String(row['StartYear'])}-${String(row['EndYear'])}`);
    expect([...kept, ...censored].sort((a, b) => a - b)).toEqual([...stored].sort((a, b) => a - b));
    expect(requested.some((u) => u.includes('/Observations?') && u.includes(`ActivityStartYear ge ${String(row['StartYear'])}`))).toBe(true);
  });

  it('has no accessibility violation axe-core finds in trend mode, the table open, at a laptop and a phone width', async () => {
    const axe = readFileSync(join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
    const row = censoredRow();
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${api.origin}/explore?CharacteristicName=${encodeURIComponent(String(row['CharacteristicName']))}&LocationId=${String(row['LocationId'])}&trend=${String(row['StartYear'])}-${String(row['EndYear'])}`);
      await page.waitForSelector('#map[data-trends]');
      await page.waitForSelector('#chart[data-kept]');
      await page.click('#trend-sites summary');
      await page.evaluate(axe);
      const violations = await page.evaluate(async () => {
        type Result = { id: string; impact: string; nodes: { target: string[] }[] };
        const run = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: Result[] }> } }).axe.run;
        const result = await run({ exclude: [['.leaflet-pane'], ['.leaflet-control-container']] }, { resultTypes: ['violations'] });
        return result.violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
      });
      expect(violations, `width ${width}`).toEqual([]);
      // The key, the table and the chart's words reflow: nothing widens the page at a phone's width.
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), `width ${width}`).toBeLessThanOrEqual(0);
    }
    await page.setViewportSize({ width: 1366, height: 900 });
    expect(pageErrors).toEqual([]);
  });
});

describe('the explorer’s trends when the API is busy', () => {
  it('a 429 on the trends request is waited out after its Retry-After and said, then the map is drawn', async () => {
    let refused = 0;
    const api = await startApi((url) => url.includes('/Trends?') && url.includes('StartYear eq') && refused++ === 0);
    const page = await browser.newPage();
    const notices: string[] = [];
    await page.exposeFunction('noteProblem', (t: string) => notices.push(t));
    await page.addInitScript(() => {
      new MutationObserver(() => {
        const p = document.getElementById('problem');
        if (p && !p.hidden) void (window as unknown as { noteProblem: (t: string) => void }).noteProblem(p.textContent ?? '');
      }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const row = hub.trends.find((r) => r['Period'] === 10 && r['Category'] !== null)!;
    await page.goto(`${api.origin}/explore?CharacteristicName=${encodeURIComponent(String(row['CharacteristicName']))}&trend=${String(row['StartYear'])}-${String(row['EndYear'])}`);
    await page.waitForSelector('#map[data-trends]', { timeout: 30_000 });
    expect(refused).toBeGreaterThan(1);
    expect(notices.some((t) => /busy \(429\): retrying in 1 s/.test(t))).toBe(true);
    await page.close();
  });
});
