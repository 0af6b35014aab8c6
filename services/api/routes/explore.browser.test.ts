/**
 * The explorer page in Chromium (Debian's package, driven by playwright-core) against a real API on the
 * fixture DuckDB file, with keys required: the page carries none and gets in as its own origin, listed in
 * CORS_ORIGINS (exports and dataset files, which then need a key, are downloaded from an API with none
 * configured). Every number the page shows is checked against the API itself (`$count`, next links), every
 * "copy as" snippet with a runtime here is run, and screenshots at a laptop and a phone width land in
 * test-artifacts/explore/ (git-ignored), with the facet-update latencies the Performance API measured.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildExplore } from '../../../scripts/build/build-explore.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../app.js';
import { acquirer, openDatabase, type Database } from '../db/database.js';
import { openKeyStore, type KeyStore } from '../keys/key-store.js';
import { createQueryGate, type QuerySlot } from '../limits/query-gate.js';
import type { AccessOptions } from '../middleware/access.js';
import { NODE_SERVER_OPTIONS } from '../middleware/url-length.js';
import { REPO_ROOT } from '../testing/fixture-db.js';
import { filesFixture, type FilesFixture } from '../testing/files-fixture.js';
import { listenAsMakeStart, refusals } from '../testing/start-defaults.js';
import { listen, type TestServer } from '../testing/test-server.js';

/**
 * The points the map shows, once it has drawn its locations: the map's own event (`data-points`, set when its
 * locations are on it), not the results panel's. Read right after the results settled, the map's own request could
 * still be waiting out a 429 (issue 53 item 6).
 */
async function mapPoints(page: Page, timeout = 30_000): Promise<number> {
  await page.waitForSelector('#map[data-points]', { timeout });
  return Number(await page.getAttribute('#map', 'data-points'));
}

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const KEY = 'explore-test-key';
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts/explore');

let db: Database;
let files: FilesFixture;
let dir: string;
let keys: KeyStore;
let browser: Browser;
const servers: TestServer[] = [];

/** The API with keys required (or none at all, as `make start` runs), its own origin listed in CORS_ORIGINS; the rest as the test asks. */
async function startApi(access: Omit<AccessOptions, 'keys' | 'corsOrigins'> = {}, tiles: { tileUrl?: string; tileAttribution?: string } = {}, keysOn = true): Promise<TestServer> {
  let app: ReturnType<typeof createApp> | undefined;
  const server = await listen({ fetch: (req: Request) => app!.fetch(req) }, NODE_SERVER_OPTIONS);
  app = createApp({
    acquire: acquirer(db),
    links: { trustProxy: false },
    regionsFile: join(REPO_ROOT, 'scripts/sample/hubs.geojson'),
    explore: { assetsDir: join(dir, 'assets'), ...tiles },
    access: { keys: keysOn ? keys : undefined, corsOrigins: [server.origin], ...access },
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-explore-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  await buildExplore(join(dir, 'assets'));
  files = await filesFixture(inject('apiFixtureDb'));
  db = await openDatabase(files.path);
  keys = await openKeyStore({ plainKeys: [KEY], pollMs: 0 });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => s.close()));
  keys?.close();
  await db?.close();
  await files?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Data rows of a CSV text: newlines inside quoted values (comments) do not end a row. */
function csvRows(csv: string): number {
  let n = 0, quoted = false;
  for (const c of csv) {
    if (c === '"') quoted = !quoted;
    else if (c === '\n' && !quoted) n++;
  }
  return n - 1;
}

const q = (v: string) => `'${v.replaceAll("'", "''")}'`;
const and = (...parts: (string | undefined)[]) => parts.filter(Boolean).join(' and ');

describe('the explorer page in Chromium', () => {
  let api: TestServer;
  /** The same data with no key configured: exports and dataset files are then the page's to link. */
  let openApi: TestServer;
  let page: Page;
  const pageErrors: string[] = [];

  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${api.origin}/v1/odata/v4${path}`, { headers: { 'x-api-key': KEY } });
    expect(res.status, `${path}: ${res.status}`).toBe(200);
    return (await res.json()) as T;
  };
  const count = async (filter: string, resource = 'Observations'): Promise<number> =>
    (await get<{ value: number }>(`/${resource}?$count=true${filter ? `&$filter=${encodeURIComponent(filter)}` : ''}`)).value;
  /** The page has counted and loaded its panels for the current selection. */
  const settled = async () => {
    await page.waitForSelector('#total[data-total]');
    await page.waitForSelector('#results:not([aria-busy])', { timeout: 20_000 });
  };
  const shownTotal = async () => Number(await page.getAttribute('#total', 'data-total'));
  /** value → count as the facet shows them. */
  const facet = (name: string): Promise<Record<string, number>> =>
    page.$$eval(`fieldset[data-facet="${name}"] li`, (items) =>
      Object.fromEntries(items.filter((li) => li.querySelector('.count')).map((li) => [li.querySelector('input')!.dataset['value']!, Number(li.querySelector('.count')!.textContent!.replace(/\D/g, ''))])));
  /** Facet-update durations (click → counts redrawn), from the page's Performance API measures. */
  const latencies: number[] = [];
  const mapDraw: { points: number; ms: number }[] = [];
  const noteLatency = async () => {
    const ms = await page.evaluate(() => performance.getEntriesByName('facet-update').at(-1)?.duration);
    if (ms !== undefined) latencies.push(Math.round(ms * 100) / 100);
  };
  const click = async (name: string, value: string) => {
    await page.click(`input[data-facet="${name}"][data-value="${value.replaceAll('"', '\\"')}"]`);
    await settled();
    await noteLatency();
  };

  /** A dataset of a few thousand rows: more than a preview page, less than a CSV page. */
  let smallDoi: string;

  beforeAll(async () => {
    api = await startApi();
    openApi = await startApi({}, {}, false);
    const byDoi = await get<{ value: { DOI: string; Count: number }[] }>(`/Observations?$apply=${encodeURIComponent('groupby((DOI),aggregate($count as Count))')}`);
    smallDoi = byDoi.value.find((r) => r.Count > 1000 && r.Count < 10_000)!.DOI;
    page = await browser.newPage({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  afterAll(async () => {
    const summary = { database: 'test fixture (30,000 rows)', facetUpdateMs: latencies, median: [...latencies].sort((a, b) => a - b)[Math.floor(latencies.length / 2)], mapDraw };
    writeFileSync(join(ARTIFACTS, 'facet-latency.json'), JSON.stringify(summary, null, 2));
    console.log(`explorer facet-update and map-draw times (Performance API, fixture database): ${JSON.stringify(summary)}`);
    await page.close();
  });

  it('opens without a key (same origin) while keys are required of everyone else, total = $count', async () => {
    expect((await fetch(`${api.origin}/v1/odata/v4/Observations?$count=true`)).status).toBe(401);
    await page.goto(`${api.origin}/explore`);
    await settled();
    expect(await shownTotal()).toBe(await count(''));
    expect(await page.isHidden('#problem')).toBe(true);
  });

  it('shows each facet value’s exact count: equal to $count with that value', async () => {
    for (const [name, field] of [['DOI', 'DOI'], ['RegionId', 'RegionId'], ['ActivityGroupType', 'ActivityGroupType'], ['MonitoringLocationType', 'MonitoringLocationType']] as const) {
      const shown = await facet(name);
      expect(Object.keys(shown).length, name).toBeGreaterThan(1);
      for (const [value, n] of Object.entries(shown)) expect(n, `${name} ${value}`).toBe(await count(`${field} eq ${q(value)}`));
    }
  });

  it('narrows with facets: the total and every other facet count under the selection, reflected in the URL', async () => {
    await click('RegionId', 'hub.lakewinnipeg');
    await click('ActivityGroupType', 'Lab Sample');
    const selection = and(`RegionId eq 'hub.lakewinnipeg'`, `ActivityGroupType eq 'Lab Sample'`);
    expect(await shownTotal()).toBe(await count(selection));
    const chars = await facet('CharacteristicName');
    for (const [value, n] of Object.entries(chars).slice(0, 6)) expect(n, value).toBe(await count(and(selection, `CharacteristicName eq ${q(value)}`)));
    // A facet's own values count under the other selections only: the other groups stay visible.
    const groups = await facet('ActivityGroupType');
    expect(groups['Field Measure']).toBe(await count(and(`RegionId eq 'hub.lakewinnipeg'`, `ActivityGroupType eq 'Field Measure'`)));
    const regions = await facet('RegionId');
    expect(regions['hub.pacific']).toBe(await count(and(`RegionId eq 'hub.pacific'`, `ActivityGroupType eq 'Lab Sample'`)));
    expect(new URL(page.url()).searchParams.getAll('ActivityGroupType')).toEqual(['Lab Sample']);
    expect(new URL(page.url()).searchParams.get('RegionId')).toBe('hub.lakewinnipeg');

    await page.selectOption('select[data-value="yearFrom"]', '2019');
    await settled();
    await noteLatency();
    expect(await shownTotal()).toBe(await count(and(selection, 'ActivityStartYear ge 2019')));
  });

  it('goes back and forward through selections, and a shared URL opens the same selection', async () => {
    const withYear = await shownTotal();
    await page.goBack();
    await settled();
    expect(await shownTotal()).toBe(await count(and(`RegionId eq 'hub.lakewinnipeg'`, `ActivityGroupType eq 'Lab Sample'`)));
    expect(await page.isChecked('input[data-facet="ActivityGroupType"][data-value="Lab Sample"]')).toBe(true);
    await page.goForward();
    await settled();
    expect(await shownTotal()).toBe(withYear);
    const shared = await browser.newPage();
    await shared.goto(page.url());
    await shared.waitForSelector('#total[data-total]');
    expect(Number(await shared.getAttribute('#total', 'data-total'))).toBe(withYear);
    await shared.close();
  });

  it('maps every matching location and previews the first rows, paging by next links', async () => {
    await page.goto(`${api.origin}/explore?DOI=${encodeURIComponent(smallDoi)}`);
    await settled();
    const filter = `DOI eq ${q(smallDoi)}`;
    const points = await mapPoints(page);
    expect(points).toBe(await count(filter, 'Locations'));
    await page.waitForFunction(() => performance.getEntriesByName('map-draw').length > 0);
    mapDraw.push({ points, ms: Math.round(await page.evaluate(() => performance.getEntriesByName('map-draw').at(-1)!.duration)) });

    const first = await get<{ value: { Id: number }[]; '@odata.nextLink': string }>(`/Observations?$select=Id&$top=20&$filter=${encodeURIComponent(filter)}`);
    const shownIds = () => page.$$eval('#preview tbody tr', (rows) => rows.map((r) => Number(r.querySelector('td')!.textContent)));
    expect(await shownIds()).toEqual(first.value.map((r) => r.Id));
    await page.click('#preview button.next');
    await page.waitForFunction(() => document.querySelector('#preview .status')?.textContent?.startsWith('Page 2'));
    const second = (await (await fetch(first['@odata.nextLink'], { headers: { 'x-api-key': KEY } })).json()) as { value: { Id: number }[] };
    expect(await shownIds()).toEqual(second.value.map((r) => r.Id));
    await page.click('#preview button.first');
    await page.waitForFunction(() => document.querySelector('#preview .status')?.textContent?.startsWith('Page 1'));
  });

  it('clicking a location on the map shows it with its count under the filters and charts it; detection-limit results stay apart', async () => {
    // A lab characteristic whose results include detection-limit rows (no ResultValue).
    const characteristic = 'Total Phosphorus, mixed forms';
    const rows = (await get<{ value: { LocationId: number; ResultValue: number | null }[] }>(`/Observations?$select=LocationId,ResultValue&$top=10000&$filter=${encodeURIComponent(`CharacteristicName eq ${q(characteristic)}`)}`)).value;
    const withLimits = [...new Set(rows.filter((r) => r.ResultValue === null).map((r) => r.LocationId))];
    expect(withLimits.length).toBeGreaterThan(0);
    const target = withLimits[0]!;
    const doi = (await get<{ value: { DOI: string }[] }>(`/Locations?$select=DOI&$filter=LocationId eq ${target}`)).value[0]!.DOI;

    await page.goto(`${api.origin}/explore?DOI=${encodeURIComponent(doi)}&CharacteristicName=${encodeURIComponent(characteristic)}`);
    await settled();
    const filter = and(`DOI eq ${q(doi)}`, `CharacteristicName eq ${q(characteristic)}`);

    // Click a drawn marker where the canvas shows one (the map is one canvas: no element per marker). Leaflet's
    // canvas reaches past the visible map, so the marker is looked for inside the map's box, and clicked at the
    // centre of its blue fill.
    const spot = await page.evaluate(() => {
      const canvas = document.querySelector<HTMLCanvasElement>('#map canvas')!;
      const { data, width, height } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      const box = canvas.getBoundingClientRect(), view = document.querySelector('#map')!.getBoundingClientRect();
      const sx = box.width / width, sy = box.height / height;
      const blue = (x: number, y: number) => {
        const i = (y * width + x) * 4;
        // Opaque only: the edges of the boundary lines leave faint pixels of any hue.
        return data[i]! < 80 && data[i + 1]! < 140 && data[i + 2]! > 180 && data[i + 3]! > 200;
      };
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++) {
          const cx = box.left + x * sx, cy = box.top + y * sy;
          if (!blue(x, y) || cx < view.left + 20 || cx > view.right - 20 || cy < view.top + 20 || cy > view.bottom - 20) continue;
          let n = 0, mx = 0, my = 0;
          for (let dy = 0; dy <= 8; dy++) for (let dx = -6; dx <= 6; dx++) if (blue(x + dx, y + dy)) (n++, (mx += x + dx), (my += y + dy));
          if (n < 10) continue;
          return { x: box.left + (mx / n) * sx, y: box.top + (my / n) * sy };
        }
      return undefined;
    });
    expect(spot).toBeDefined();
    await page.mouse.click(spot!.x, spot!.y);
    await page.waitForSelector('.leaflet-popup-content .popup');
    await page.waitForFunction(() => !document.querySelector('.leaflet-popup-content')?.textContent?.includes('counting'));
    const popup = (await page.textContent('.leaflet-popup-content'))!;
    const picked = Number(/Id (\d+)/.exec(popup)![1]);
    const location = (await get<{ value: { Name: string; ID: string; MonitoringLocationType: string }[] }>(`/Locations?$filter=LocationId eq ${picked}`)).value[0]!;
    expect(popup).toContain(location.Name);
    expect(popup).toContain(`ID ${location.ID}`);
    expect(popup).toContain(location.MonitoringLocationType);
    expect(Number(/([\d,]+) observations/.exec(popup)![1]!.replace(/,/g, ''))).toBe(await count(and(filter, `LocationId eq ${picked}`)));
    await settled();
    expect(new URL(page.url()).searchParams.getAll('LocationId')).toEqual([String(picked)]);

    // The keyboard way: pick the location with detection limits from the list.
    if (picked !== target) {
      await page.selectOption('#chart-location', String(target));
      await page.click('#chart-add');
      await settled();
    }
    const charted = picked === target ? [target] : [picked, target];
    const lengths = (await page.getAttribute('#chart', 'data-series-lengths'))!.split(',').map(Number);
    const unplaced = Number(await page.getAttribute('#chart', 'data-unplaced'));
    expect(lengths.reduce((a, b) => a + b, 0) + unplaced).toBe(await count(and(filter, `LocationId in (${charted.join(',')})`)));
    const legend = await page.$$eval('#chart .u-legend .u-series', (s) => s.map((e) => e.textContent ?? ''));
    expect(legend.some((l) => l.includes('below detection limit'))).toBe(true);
    const limits = rows.filter((r) => r.ResultValue === null && charted.includes(r.LocationId)).length;
    // The x series, when the legend lists it, and the guidelines and exceedance rings drawn after the results.
    const series = legend.filter((l) => !l.startsWith('Date') && !l.includes(': guideline ') && l !== 'Exceeds a guideline');
    const atLimit = (l: string) => l.includes('below detection limit') || l.includes('above quantification limit');
    const limitLengths = series.map((l, i) => (atLimit(l) ? lengths[i]! : 0)).reduce((a, b) => a + b, 0);
    expect(series).toHaveLength(lengths.length);
    expect(limitLengths + unplaced).toBe(limits);
    expect(await page.textContent('#chart .u-title')).toBe(characteristic);

    // The popup and the band read the summaries with their qualifiers (issue 52): `<0.02` as a laboratory writes it,
    // and a band whose P10 lies below a detection limit open to the plot's edge.
    type Summary = { LocationId: number; ResultUnit: string | null; P10: number | null; P10Qualifier: string | null; Median: number | null; MedianQualifier: string | null; P90: number | null; P90Qualifier: string | null };
    const summaries = (await get<{ value: Summary[] }>(`/LocationSummaries?$filter=${encodeURIComponent(`CharacteristicName eq ${q(characteristic)} and LocationId in (${charted.join(',')})`)}`)).value;
    await page.waitForSelector('.leaflet-popup-content table.summary');
    const shown = (await page.textContent('.leaflet-popup-content table.summary tbody tr td:nth-child(2)'))!;
    const own = summaries.filter((s) => s.LocationId === picked);
    const digits = (q: string | null, v: number | null) => (v === null ? '–' : `${q ?? ''}${Number(v.toPrecision(3))}`);
    expect(own).toHaveLength(1);
    expect(shown).toBe(`${digits(own[0]!.MedianQualifier, own[0]!.Median)} (${digits(own[0]!.P10Qualifier, own[0]!.P10)}–${digits(own[0]!.P90Qualifier, own[0]!.P90)}) ${own[0]!.ResultUnit}`);
    const bands = (await page.getAttribute('#chart', 'data-bands')) ?? '';
    for (const id of charted) {
      const one = summaries.filter((s) => s.LocationId === id);
      if (one.length !== 1 || one[0]!.P10 === null) continue;
      const lower = one[0]!.P10Qualifier === '<' ? 'open' : String(one[0]!.P10);
      expect(bands).toContain(`${id}:${lower}..`);
    }
  });

  it('charts a site whose median is below the detection limit: its non-detects at their limit, its band open below (issue 52)', async () => {
    type Summary = { LocationId: number; DOI: string; CharacteristicName: string; P90: number };
    const [site] = (await get<{ value: Summary[] }>(`/LocationSummaries?$filter=${encodeURIComponent("MedianQualifier eq '<' and P90Qualifier eq null")}&$top=1`)).value;
    expect(site).toBeDefined();
    await page.goto(`${api.origin}/explore?DOI=${encodeURIComponent(site!.DOI)}&CharacteristicName=${encodeURIComponent(site!.CharacteristicName)}&LocationId=${site!.LocationId}`);
    await settled();
    await page.waitForSelector('#chart[data-bands]');
    expect(await page.getAttribute('#chart', 'data-bands')).toBe(`${site!.LocationId}:open..${site!.P90}`);
    const legend = await page.$$eval('#chart .u-legend .u-series', (s) => s.map((e) => e.textContent ?? ''));
    expect(legend.some((l) => l.includes('below detection limit (at the limit)'))).toBe(true);
    expect(await page.textContent('#chart-note')).toContain('to the edge where a percentile lies beyond a detection limit');
  });

  it('charts the guidelines that apply to the charted results, day by day as their bounds move, and rings each result that exceeds one', async () => {
    type Comparison = { ObservationId: number; GuidelineId: number; ActivityStartDate: string; ResultUnit: string | null; GuidelineLower: number | null; GuidelineUpper: number | null; Verdict: string };
    // A bound is a measure, never a group (issue 56): its distinct values per guideline are counted instead.
    const groups = (await get<{ value: { LocationId: number; CharacteristicName: string; GuidelineId: number; Bounds: number; N: number }[] }>(
      `/GuidelineComparisons?$apply=${encodeURIComponent("filter(Verdict eq 'exceeds')/groupby((LocationId,CharacteristicName,GuidelineId,ResultUnit),aggregate($count as N,GuidelineUpper with countdistinct as Bounds))")}&$top=10000`)).value;
    expect(groups.length).toBeGreaterThan(0);
    // A location whose bound moves (several values of one guideline) when the fixture has one: its line must move too.
    const chosen = groups.find((g) => g.Bounds > 1) ?? groups[0]!;
    const { LocationId: location, CharacteristicName: characteristic } = chosen;
    const of = `CharacteristicName eq ${q(characteristic)} and LocationId eq ${location}`;
    const observations = (await get<{ value: { Id: number; ResultValue: number | null; ResultUnit: string | null; ResultDetectionQuantitationLimitMeasure: number | null; ResultDetectionQuantitationLimitUnit: string | null }[] }>(
      `/Observations?$select=Id,ResultValue,ResultUnit,ResultDetectionQuantitationLimitMeasure,ResultDetectionQuantitationLimitUnit&$top=10000&$filter=${encodeURIComponent(of)}`)).value;
    const comparisons = (await get<{ value: Comparison[] }>(`/GuidelineComparisons?$top=10000&$filter=${encodeURIComponent(of)}`)).value;

    await page.goto(`${api.origin}/explore?CharacteristicName=${encodeURIComponent(characteristic)}&LocationId=${location}`);
    await settled();
    await page.waitForSelector('#chart[data-exceeding]');

    // Expected from the rows themselves: every observation placed on the chart (a value or a limit) with an exceeds verdict is ringed…
    const placed = new Map(observations.filter((o) => o.ResultValue !== null || o.ResultDetectionQuantitationLimitMeasure !== null).map((o) => [o.Id, o]));
    const ringed = new Set(comparisons.filter((c) => c.Verdict === 'exceeds' && placed.has(c.ObservationId)).map((c) => c.ObservationId));
    expect(ringed.size).toBeGreaterThan(0);
    expect(Number(await page.getAttribute('#chart', 'data-exceeding'))).toBe(ringed.size);
    // …and each guideline bound in a unit of the charted results is a line through each day it was compared on.
    const units = new Set([...placed.values()].map((o) => (o.ResultValue !== null ? o.ResultUnit : o.ResultDetectionQuantitationLimitUnit)).filter((u): u is string => u !== null));
    const days = new Map<string, Set<string>>();
    for (const c of comparisons)
      for (const [bound, v] of [['lower', c.GuidelineLower], ['upper', c.GuidelineUpper]] as const)
        if (v !== null && c.ResultUnit !== null && units.has(c.ResultUnit) && placed.has(c.ObservationId)) {
          const k = `${location}:${c.GuidelineId}:${bound}`;
          days.set(k, (days.get(k) ?? new Set()).add(c.ActivityStartDate));
        }
    const drawn = (await page.getAttribute('#chart', 'data-guidelines'))!.split(',').filter(Boolean);
    expect(Object.fromEntries(drawn.map((d) => [d.slice(0, d.lastIndexOf(':')), Number(d.slice(d.lastIndexOf(':') + 1))]))).toEqual(Object.fromEntries([...days].map(([k, d]) => [k, d.size])));
    const legend = await page.$$eval('#chart .u-legend .u-series', (s) => s.map((e) => e.textContent ?? ''));
    expect(legend.filter((l) => l.includes(': guideline '))).toHaveLength(drawn.length);
    expect(legend.some((l) => l.includes('Exceeds a guideline'))).toBe(true);
    expect(await page.textContent('#chart-note')).toContain('exceed');
  });

  it('downloads the selection as CSV: one page at once, a large one after saying rows and time', async () => {
    const small = `DOI eq ${q(smallDoi)}`;
    await page.goto(`${api.origin}/explore?DOI=${encodeURIComponent(smallDoi)}`);
    await settled();
    const expectedSmall = await count(small);
    expect(expectedSmall).toBeLessThan(10_000);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#take-away button.download')]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv).toMatch(/^Id,DOI,LocationId,/);
    expect(csvRows(csv)).toBe(expectedSmall);

    await page.click('#clear');
    await settled();
    const all = await count('');
    expect(all).toBeGreaterThan(10_000);
    await page.click('#take-away button.download');
    await page.waitForSelector('#take-away .confirm:not([hidden])');
    const question = (await page.textContent('#take-away .confirm p'))!;
    expect(question).toContain(`${all.toLocaleString('en-CA')} rows`);
    expect(question).toMatch(/rows\/s\): the whole download takes about \d/);
    const [big] = await Promise.all([page.waitForEvent('download'), page.click('#take-away .confirm button.yes')]);
    const bigCsv = readFileSync((await big.path())!, 'utf8');
    expect(csvRows(bigCsv)).toBe(all);
    expect(bigCsv.split('\n').filter((l) => l.startsWith('Id,')).length).toBe(1);
  });

  it('with keys required, offers no export link: it says an export needs a key, which the API asks of the page too', async () => {
    await page.goto(`${api.origin}/explore?DOI=${encodeURIComponent(smallDoi)}`);
    await settled();
    expect(await page.$$('#take-away a.export')).toHaveLength(0);
    expect(await page.textContent('#take-away p.exports')).toMatch(/need an API key, which this page does not hold/);
    const status = await page.evaluate(async () => (await fetch(`/v1/export/Observations?$format=csv`)).status);
    expect(status).toBe(401);
  });

  it('with no key configured (make start), downloads the whole selection in one request from the export route, as Parquet and as CSV', async () => {
    const filter = `DOI eq ${q(smallDoi)}`;
    await page.goto(`${openApi.origin}/explore?DOI=${encodeURIComponent(smallDoi)}`);
    await settled();
    const expected = await count(filter);
    expect(await page.textContent('#take-away a.export[data-format="parquet"]')).toBe(`Parquet (${expected.toLocaleString('en-CA')} rows)`);
    const [parquet] = await Promise.all([page.waitForEvent('download'), page.click('#take-away a.export[data-format="parquet"]')]);
    expect(parquet.suggestedFilename()).toBe('Observations.parquet');
    const file = (await parquet.path())!;
    const reader = await DuckDBInstance.create(':memory:');
    const conn = await reader.connect();
    const read = (await conn.runAndReadAll(`SELECT count(*)::INTEGER AS n, count(DISTINCT "DOI")::INTEGER AS dois FROM read_parquet('${file}')`)).getRowObjects()[0]!;
    conn.closeSync();
    reader.closeSync();
    expect(read).toEqual({ n: expected, dois: 1 });
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#take-away a.export[data-format="csv"]')]);
    const text = readFileSync((await csv.path())!, 'utf8');
    expect(text).toMatch(/^Id,DOI,LocationId,/);
    expect(csvRows(text)).toBe(expected);
  });

  it('"copy as" snippets run for real (curl, Python, Node) and fetch exactly the selection', async () => {
    const selection = and(`CharacteristicName eq 'pH'`, `RegionId eq 'admin.4.ca.ab'`);
    await page.goto(`${api.origin}/explore?CharacteristicName=pH&RegionId=admin.4.ca.ab`);
    await settled();
    const expected = await count(selection);
    expect(expected).toBeGreaterThan(0);
    const run = async (language: string, file: string, command: string[]) => {
      await page.selectOption('#take-away select.language', language);
      const code = (await page.textContent('#take-away pre.snippet code'))!;
      expect(code).toContain(selection.includes("'") ? 'pH' : selection);
      const work = mkdtempSync(join(dir, `${language}-`));
      writeFileSync(join(work, file), code);
      // Asynchronously: the API answering the snippet runs in this process.
      const { stdout } = await promisify(execFile)(command[0]!, [...command.slice(1), file], { cwd: work, env: { ...process.env, TRIBUTARY_API_KEY: KEY }, encoding: 'utf8', timeout: 60_000 });
      return { out: stdout, csv: readFileSync(join(work, 'observations.csv'), 'utf8') };
    };
    const curl = await run('curl', 'snippet.sh', ['bash']);
    expect(JSON.parse(curl.out.split('\n')[0]!).value).toBe(expected);
    expect(csvRows(curl.csv)).toBe(Math.min(expected, 10_000));
    const python = await run('python', 'snippet.py', ['python3']);
    expect(python.out.trim()).toBe(`${expected} rows written to observations.csv`);
    expect(csvRows(python.csv)).toBe(expected);
    const node = await run('javascript', 'snippet.mjs', [process.execPath]);
    expect(node.out.trim()).toBe(`${expected} rows written to observations.csv`);
    expect(csvRows(node.csv)).toBe(expected);
    // No R runtime on this machine: the R snippet is checked for the same request, not run.
    await page.selectOption('#take-away select.language', 'r');
    const r = (await page.textContent('#take-away pre.snippet code'))!;
    expect(r).toContain('`$filter` = "CharacteristicName eq \'pH\' and RegionId eq \'admin.4.ca.ab\'"');
    expect(r).toContain('resp_link_url(resp, "next")');
  });

  it('filters to exceedances only: the preview, download, pinned link and snippets all follow the governing GuidelineComparisons with Verdict eq exceeds', async () => {
    const byCharacteristic = (await get<{ value: { CharacteristicName: string; N: number }[] }>(
      `/GuidelineComparisons?$apply=${encodeURIComponent("filter(Governing eq true and Verdict eq 'exceeds')/groupby((CharacteristicName),aggregate($count as N))")}`)).value;
    const { CharacteristicName: characteristic } = byCharacteristic.filter((r) => r.N <= 10_000).sort((a, b) => b.N - a.N)[0]!;
    const shown = and(`CharacteristicName eq ${q(characteristic)}`, "Governing eq true and Verdict eq 'exceeds'");
    const expected = await count(shown, 'GuidelineComparisons');
    expect(expected).toBeGreaterThan(0);
    await page.goto(`${api.origin}/explore?CharacteristicName=${encodeURIComponent(characteristic)}`);
    await settled();
    await page.selectOption('#view', 'exceeds');
    await settled();
    expect(new URL(page.url()).searchParams.get('view')).toBe('exceeds');
    await page.waitForFunction(() => !/counting/.test(document.querySelector('#take-away button.download')?.textContent ?? 'counting'));

    const verdicts = await page.$$eval('#preview td[data-column="Verdict"]', (tds) => tds.map((td) => td.textContent));
    expect(verdicts.length).toBe(Math.min(expected, 20));
    expect(new Set(verdicts)).toEqual(new Set(['exceeds']));
    const pinned = new URL((await page.getAttribute('#take-away a.pinned', 'href'))!);
    expect(pinned.pathname).toBe('/v1/odata/v4/GuidelineComparisons');
    expect(pinned.searchParams.get('$filter')).toBe(shown);
    expect(await page.textContent('#take-away button.download')).toContain(expected.toLocaleString('en'));
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#take-away button.download')]);
    expect(download.suggestedFilename()).toBe('tributary-guideline-comparisons.csv');
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text.split('\n')[0]).toContain('Verdict');
    expect(csvRows(text)).toBe(expected);
    await page.selectOption('#take-away select.language', 'python');
    const code = (await page.textContent('#take-away pre.snippet code'))!;
    const work = mkdtempSync(join(dir, 'exceeds-python-'));
    writeFileSync(join(work, 'snippet.py'), code);
    const { stdout } = await promisify(execFile)('python3', ['snippet.py'], { cwd: work, env: { ...process.env, TRIBUTARY_API_KEY: KEY }, encoding: 'utf8', timeout: 60_000 });
    // Named for what it holds (it was observations.csv whatever the view).
    expect(stdout.trim()).toBe(`${expected} rows written to guideline-comparisons.csv`);
    expect(readFileSync(join(work, 'guideline-comparisons.csv'), 'utf8')).toBe(text);

    // Every governing comparison, with the reason of an indeterminate one, exactly as the API pages them.
    await page.selectOption('#view', 'comparisons');
    await settled();
    const headers = await page.$$eval('#preview th', (ths) => ths.map((th) => th.textContent));
    expect(headers).toEqual(expect.arrayContaining(['Verdict', 'Reason', 'GuidelineUpper', 'Term', 'Alternatives']));
    const first = (await get<{ value: { Verdict: string; Reason: string | null }[] }>(`/GuidelineComparisons?$select=Verdict,Reason&$top=20&$filter=${encodeURIComponent(`CharacteristicName eq ${q(characteristic)} and Governing eq true`)}`)).value;
    const cells = await page.$$eval('#preview tbody tr', (trs) => trs.map((tr) => [tr.querySelector('[data-column="Verdict"]')!.textContent, tr.querySelector('[data-column="Reason"]')!.textContent]));
    expect(cells).toEqual(first.map((r) => [r.Verdict, r.Reason ?? '—']));
    await page.selectOption('#view', 'observations');
    await settled();
  });

  it('colours each location by its share of exceedances under the filter, from one groupby of its governing comparisons', async () => {
    const characteristic = (await get<{ value: { CharacteristicName: string; N: number }[] }>(
      `/GuidelineComparisons?$apply=${encodeURIComponent("filter(Verdict eq 'exceeds')/groupby((CharacteristicName),aggregate($count as N))")}`)).value.sort((a, b) => b.N - a.N)[0]!.CharacteristicName;
    const filter = `CharacteristicName eq ${q(characteristic)}`;
    const asked: string[] = [];
    const listen = (r: { url: () => string }) => void (r.url().includes('/GuidelineComparisons?') && asked.push(decodeURIComponent(r.url())));
    page.on('request', listen);
    await page.goto(`${api.origin}/explore?CharacteristicName=${encodeURIComponent(characteristic)}`);
    await settled();
    page.off('request', listen);
    // Expected from the comparisons' own rows, counted here (not from the API's groupby).
    const rows: { LocationId: number; Verdict: string }[] = [];
    for (let next: string | undefined = `/GuidelineComparisons?$select=LocationId,Verdict&$top=10000&$filter=${encodeURIComponent(`${filter} and Governing eq true`)}`; next;) {
      const got: { value: typeof rows; '@odata.nextLink'?: string } = await get(next);
      rows.push(...got.value);
      next = got['@odata.nextLink']?.replace(/^.*\/v1\/odata\/v4/, '');
    }
    const byLocation = new Map<number, [number, number]>();
    for (const r of rows) {
      const [e, n] = byLocation.get(r.LocationId) ?? [0, 0];
      byLocation.set(r.LocationId, [e + (r.Verdict === 'exceeds' ? 1 : 0), n + 1]);
    }
    const expected = [...byLocation].filter(([, [e]]) => e > 0).map(([id, [e, n]]) => `${id}:${e}/${n}`).sort();
    expect(expected.length).toBeGreaterThan(0);
    expect((await page.getAttribute('#map', 'data-shares'))!.split(',').sort()).toEqual(expected);
    expect(await page.isVisible('#map-legend')).toBe(true);
    expect(asked.filter((u) => u.includes('groupby((LocationId,Verdict)'))).toHaveLength(1);
  });

  it('offers a link to the selection pinned to the publication its rows came from, which answers the same count', async () => {
    await page.goto(`${api.origin}/explore?RegionId=hub.pacific`);
    await settled();
    const href = (await page.getAttribute('#take-away a.pinned', 'href'))!;
    const publication = ((await (await fetch(`${api.origin}/readyz`)).json()) as { publication: string }).publication;
    const url = new URL(href);
    expect(url.searchParams.get('publication')).toBe(publication);
    expect(url.searchParams.get('$filter')).toBe("RegionId eq 'hub.pacific'");
    url.searchParams.set('$count', 'true');
    const res = await fetch(url, { headers: { 'x-api-key': KEY } });
    expect(res.headers.get('tributary-publication')).toBe(publication);
    expect(((await res.json()) as { value: number }).value).toBe(await shownTotal());
  });

  it('lists the datasets of the selection with their citation, DOI link and observations, from the API’s citation', async () => {
    await page.goto(`${api.origin}/explore?RegionId=hub.pacific`);
    await settled();
    const groups = (await get<{ value: { DOI: string; Count: number }[] }>(`/Observations?$apply=${encodeURIComponent("filter(RegionId eq 'hub.pacific')/groupby((DOI),aggregate($count as Count))")}`)).value;
    const expected = groups.map((r) => r.DOI).sort();
    const links = await page.$$eval('#citation-list a', (a) => a.map((e) => e.getAttribute('href')));
    expect(links).toEqual(expected.map((doi) => `https://doi.org/${doi}`));
    const metadata = await get<{ value: { DOI: string; Citation: string }[] }>('/Metadata?$select=DOI,Citation');
    const texts = await page.$$eval('#citation-list cite', (c) => c.map((e) => e.textContent));
    expect(texts).toEqual(expected.map((doi) => metadata.value.find((m) => m.DOI === doi)!.Citation));
    // Each dataset's observations, as $apply counts them, and their sum is the total the page shows.
    const rows = await page.$$eval('#citation-list li', (li) => li.map((e) => [e.getAttribute('data-doi'), Number(e.getAttribute('data-rows'))]));
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(groups.map((g) => [g.DOI, g.Count])));
    expect(groups.reduce((n, g) => n + g.Count, 0)).toBe(await shownTotal());
    expect(await page.textContent('#citation-summary')).toMatch(new RegExp(`from ${expected.length} datasets \\(publication [^)]+\\): credit each`));
  });

  it('downloads the citation of the selection as BibTeX, RIS and CSL-JSON, and links the pinned query', async () => {
    await page.goto(`${api.origin}/explore?RegionId=hub.pacific&CharacteristicName=pH`);
    await settled();
    const dois = await page.$$eval('#citation-list li', (li) => li.map((e) => e.getAttribute('data-doi')!));
    expect(dois.length).toBeGreaterThan(0);
    const saved = async (format: string) => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#citation-downloads a[data-format="${format}"]`)]);
      return { name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') };
    };
    const bib = await saved('bibtex');
    expect(bib.name).toBe('Observations-citation.bib');
    expect(bib.text.match(/^@misc\{/gm)).toHaveLength(dois.length);
    for (const doi of dois) expect(bib.text).toContain(`url = {https://doi.org/${doi}}`);
    const ris = await saved('ris');
    expect(ris.text.split('\r\n').filter((l) => l.startsWith('DO  - ')).map((l) => l.slice(6))).toEqual(dois);
    const csl = await saved('csl');
    expect((JSON.parse(csl.text) as { DOI: string; type: string }[]).map((i) => [i.DOI, i.type])).toEqual(dois.map((d) => [d, 'dataset']));
    const pinned = new URL((await page.getAttribute('#citation-downloads a[data-pinned]', 'href'))!);
    expect(pinned.pathname).toBe('/v1/odata/v4/Observations');
    expect(pinned.searchParams.get('$filter')).toContain("CharacteristicName eq 'pH'");
    expect(pinned.searchParams.get('$filter')).toContain("RegionId eq 'hub.pacific'");
    expect(pinned.searchParams.get('publication')).toMatch(/\S/);
  });

  it('with keys required, lists each dataset file of the selection with its size and says a file needs a key', async () => {
    await page.goto(`${api.origin}/explore?DOI=${encodeURIComponent(smallDoi)}`);
    await settled();
    expect(await page.$$('#file-list a')).toHaveLength(0);
    const shown = await page.$$eval('#file-list li [data-format]', (s) => s.map((e) => e.textContent));
    expect(shown.length).toBeGreaterThan(0);
    for (const text of shown) expect(text).toMatch(/^(Parquet|CSV|Guideline comparisons \(Parquet\)) \(\d+(\.\d)? (kB|MB|bytes)\)$/);
    expect(await page.textContent('#dataset-files p')).toMatch(/these files need an API key/);
  });

  it('with no key configured, lists each dataset file of the selection with its size, and a link that downloads exactly that file', async () => {
    await page.goto(`${openApi.origin}/explore?DOI=${encodeURIComponent(smallDoi)}`);
    await settled();
    const index = (await (await fetch(`${openApi.origin}/v1/downloads`)).json()) as { datasets: { DOI: string; files: Record<string, { url: string; bytes: number; sha256: string }> }[] };
    const listed = index.datasets.find((d) => d.DOI === smallDoi)!;
    const links = await page.$$eval('#file-list li a', (a) => a.map((e) => ({ href: e.getAttribute('href'), text: e.textContent, format: e.getAttribute('data-format') })));
    expect(links.map((l) => [l.format, l.href])).toEqual(Object.entries(listed.files).map(([format, f]) => [format, f.url]));
    for (const l of links) expect(l.text).toMatch(/^(Parquet|CSV|Guideline comparisons \(Parquet\)) \(\d+(\.\d)? (kB|MB|bytes)\)$/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#file-list a[data-format="csv"]')]);
    const bytes = readFileSync((await download.path())!);
    expect(bytes.length).toBe(listed.files['csv']!.bytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(listed.files['csv']!.sha256);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
  });

  it('works by keyboard: the characteristic search filters the list and a value toggles with Space', async () => {
    await page.goto(`${api.origin}/explore`);
    await settled();
    await page.focus('#characteristic-search');
    await page.keyboard.type('phosph');
    const values = Object.keys(await facet('CharacteristicName'));
    expect(values.length).toBeGreaterThan(0);
    expect(values.every((v) => v.toLowerCase().includes('phosph'))).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('characteristic-search');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await settled();
    await noteLatency();
    expect(new URL(page.url()).searchParams.getAll('CharacteristicName')).toEqual([values[0]]);
    expect(await shownTotal()).toBe(await count(`CharacteristicName eq ${q(values[0]!)}`));
  });

  it('has no accessibility violation axe-core finds (labels, contrast, roles, names), at a laptop and a phone width', async () => {
    const axe = readFileSync(join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${api.origin}/explore?RegionId=admin.4.ca.on&CharacteristicName=${encodeURIComponent('Total Phosphorus, mixed forms')}`);
      await settled();
      // At phone width the filters start folded: unfold them (by keyboard) so their labels are checked too.
      if (width < 800) {
        expect(await page.evaluate(() => (document.getElementById('filters') as HTMLDetailsElement).open)).toBe(false);
        await page.focus('#filters > summary');
        await page.keyboard.press('Enter');
      }
      await page.evaluate(axe); // evaluated by the test harness: the page's CSP rightly refuses inline scripts
      const violations = await page.evaluate(async () => {
        type Result = { id: string; impact: string; nodes: { target: string[] }[] };
        const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: Result[]; passes: Result[] }> } }).axe;
        // Leaflet's own panes (tiles, canvas, controls) are the library's; the page's markup is what is checked.
        const result = await axe.run({ exclude: [['.leaflet-pane'], ['.leaflet-control-container']] }, { resultTypes: ['violations'] });
        const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        return { checked: result.passes.map((p) => p.id), serious: serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), other: result.violations.map((v) => `${v.impact} ${v.id}`) };
      });
      console.log(`axe at ${width}px: ${violations.checked.length} rules passed; violations: ${JSON.stringify(violations.other)}`);
      expect(violations.checked).toEqual(expect.arrayContaining(['label', 'color-contrast', 'button-name', 'html-has-lang', 'aria-allowed-role']));
      expect(violations.other, `width ${width}: ${violations.serious.join('; ')}`).toEqual([]);
    }
    await page.setViewportSize({ width: 1366, height: 900 });
  });

  it('saves screenshots at a laptop and a phone width', async () => {
    await page.goto(`${api.origin}/explore?RegionId=admin.4.ca.on&CharacteristicName=${encodeURIComponent('Total Phosphorus, mixed forms')}`);
    await settled();
    await page.selectOption('#chart-location', { index: 0 });
    await page.click('#chart-add');
    await settled();
    await page.screenshot({ path: join(ARTIFACTS, 'desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await settled();
    await page.screenshot({ path: join(ARTIFACTS, 'phone.png'), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1366, height: 900 });
    expect(existsSync(join(ARTIFACTS, 'phone.png'))).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});

describe('the explorer page when the API refuses', () => {
  it('a 400 shows the API’s message, and the page recovers when the selection changes', async () => {
    const api = await startApi({ maxUrlBytes: 60 * 1024 });
    const page = await browser.newPage();
    // More than the 1,000 values an `in (…)` may hold: the API answers 400 too_many_values.
    const many = Array.from({ length: 1001 }, (_, i) => `CharacteristicName=c${i}`).join('&');
    await page.goto(`${api.origin}/explore?${many}`);
    await page.waitForSelector('#problem:not([hidden])');
    await page.waitForSelector('#results:not([aria-busy])');
    expect(await page.textContent('#problem')).toMatch(/^400: .*1,?000.*The page keeps working/);
    await page.click('#clear');
    await page.waitForSelector('#results:not([aria-busy])');
    await page.waitForSelector('#problem', { state: 'hidden' });
    expect(Number(await page.getAttribute('#total', 'data-total'))).toBeGreaterThan(0);
    expect(await mapPoints(page)).toBeGreaterThan(0);
    await page.close();
  });

  /** The texts #problem showed, in order, while the page ran. */
  async function watchProblems(page: Page): Promise<string[]> {
    const notices: string[] = [];
    await page.exposeFunction('noteProblem', (t: string) => notices.push(t));
    await page.addInitScript(() => {
      new MutationObserver(() => {
        const p = document.getElementById('problem');
        if (p && !p.hidden) void (window as unknown as { noteProblem: (t: string) => void }).noteProblem(p.textContent ?? '');
      }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    return notices;
  }

  it('503s (every query slot taken) are waited out and said; the page loads once a slot is free, or offers to try again', async () => {
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 0, maxWaitMs: 1000 });
    // Another client's query holds the only slot.
    const slot = (await gate.acquire()) as QuerySlot;
    const api = await startApi({ queryGate: gate });
    const page = await browser.newPage();
    const notices = await watchProblems(page);
    await page.goto(`${api.origin}/explore`);
    await page.waitForFunction(() => /busy \(503\): retrying in/.test(document.getElementById('problem')?.textContent ?? ''));
    slot.release();
    await page.waitForSelector('#total[data-total]', { timeout: 30_000 });
    await page.waitForSelector('#results:not([aria-busy])', { timeout: 30_000 });
    expect(notices.some((t) => /busy \(503\)/.test(t))).toBe(true);
    expect(await mapPoints(page)).toBeGreaterThan(0);
    expect(await page.isHidden('#problem')).toBe(true);

    await page.close();

    // Held for good: after its retries the page says what the API said and offers to start over. A new page
    // (its own HTTP cache: a reload would take the counts from the cache, which is the point of max-age).
    const held = (await gate.acquire()) as QuerySlot;
    const again = await browser.newPage();
    await again.goto(`${api.origin}/explore`);
    await again.waitForSelector('#problem button', { timeout: 30_000 });
    expect(await again.textContent('#problem')).toMatch(/^503: .*The page keeps working/);
    held.release();
    await again.click('#problem button');
    await again.waitForSelector('#total[data-total]', { timeout: 30_000 });
    await again.close();
  });

  it('429s under the documented per-client rate are waited out and said, then the page loads', async () => {
    // A budget of two requests at once and one a second: each request counts at least the largest page it may ask.
    const api = await startApi({ rateLimit: { rps: 10_000, burst: 20_000, minRows: 10_000 }, maxConcurrentPerKey: 2 });
    const page = await browser.newPage();
    const notices = await watchProblems(page);
    await page.goto(`${api.origin}/explore`);
    await page.waitForSelector('#total[data-total]', { timeout: 30_000 });
    await page.waitForSelector('#results:not([aria-busy])', { timeout: 30_000 });
    expect(notices.some((t) => /busy \(429\): retrying in/.test(t))).toBe(true);
    expect(await mapPoints(page)).toBeGreaterThan(0);
    await page.close();
  });
});

describe('the explorer page under make start\'s defaults (issue 39)', () => {
  it('its first view is complete with no notice and no request refused: discovery documents spend no page budget, pages over the burst wait', async () => {
    const api = await listenAsMakeStart(db, { deps: { explore: { assetsDir: join(dir, 'assets') }, regionsFile: join(REPO_ROOT, 'scripts/sample/hubs.geojson') } });
    servers.push(api);
    const page = await browser.newPage();
    const shown: string[] = [];
    await page.exposeFunction('noteShown', (t: string) => shown.push(t));
    await page.addInitScript(() => {
      new MutationObserver(() => {
        const p = document.getElementById('problem');
        if (p && !p.hidden) void (window as unknown as { noteShown: (t: string) => void }).noteShown(p.textContent ?? '');
      }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await page.goto(`${api.origin}/explore`);
    await page.waitForSelector('#total[data-total]', { timeout: 30_000 });
    await page.waitForSelector('#results:not([aria-busy])', { timeout: 30_000 });
    expect(await mapPoints(page)).toBeGreaterThan(0);
    expect(shown).toEqual([]);
    expect(await page.isHidden('#problem')).toBe(true);
    expect(refusals(api)).toEqual([]);
    // Its first screen's data requests go out together, beside the discovery documents, and each is served.
    expect(api.answered.filter((a) => a.target.startsWith('/v1/')).length).toBeGreaterThan(1);
    await page.close();
  });
});

describe('the explorer map with an operator’s tile server', () => {
  it('draws tiles from EXPLORE_TILE_URL below the boundaries, with their attribution', async () => {
    // A 1×1 PNG for every tile: what matters is that the page asks for them, and the CSP lets them in.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkaPhfDwAE/wH+qGbd1AAAAABJRU5ErkJggg==', 'base64');
    const asked: string[] = [];
    const tiles = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(png);
    });
    await new Promise<void>((r) => tiles.listen(0, '127.0.0.1', r));
    const tileOrigin = `http://127.0.0.1:${(tiles.address() as AddressInfo).port}`;
    try {
      const api = await startApi({}, { tileUrl: `${tileOrigin}/{z}/{x}/{y}.png`, tileAttribution: 'Test tiles' });
      const page = await browser.newPage();
      const blocked: string[] = [];
      page.on('console', (m) => m.text().includes('Content Security Policy') && blocked.push(m.text()));
      await page.goto(`${api.origin}/explore`);
      await page.waitForSelector('#results:not([aria-busy])');
      await page.waitForFunction(() => document.querySelectorAll('#map img.leaflet-tile-loaded').length > 0);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every((u) => /^\/\d+\/\d+\/\d+\.png$/.test(u))).toBe(true);
      expect(await page.textContent('#map .leaflet-control-attribution')).toContain('Test tiles');
      expect(blocked).toEqual([]);
      await page.close();
    } finally {
      await new Promise((r) => tiles.close(r));
    }
  });
});
