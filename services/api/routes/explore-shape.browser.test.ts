/**
 * Selecting by area in the explorer, in Chromium against a real API on the fixture file: a polygon drawn by
 * clicks on the map, a region picked from the `regions` collection. Every number the page shows for a shape is
 * checked against an independent point-in-polygon (turf, over the locations read from the file itself), and
 * against the API's own count; the shape survives a reload from its URL; region names (the operator's files)
 * are shown as text, never markup; axe-core finds no violation with the area tools in use. A screenshot of the
 * drawn shape lands in test-artifacts/explore/shape.png (git-ignored).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { DuckDBInstance } from '@duckdb/node-api';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildExplore } from '../../../scripts/build/build-explore.js';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { parseShape, shapeFilter } from '../explore/shape.js';
import { REPO_ROOT } from '../testing/fixture-db.js';
import { listen, type TestServer } from '../testing/test-server.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const HOSTILE = `<img src=x onerror="document.title='pwned'">Bad & "quoted" basin`;

let db: Database;
let dir: string;
let browser: Browser;
let api: TestServer;
let page: Page;
/** Every location of the file with its dataset and observation count: the independent side of each check. */
let locations: { lon: number; lat: number; doi: string; n: number }[];
const requested: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-explore-shape-'));
  await buildExplore(join(dir, 'assets'));
  writeFileSync(join(dir, 'hostile.geojson'), JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { RegionId: 'test.hostile', name: HOSTILE }, geometry: { type: 'Polygon', coordinates: [[[-100, 50], [-99, 50], [-99, 51], [-100, 50]]] } }] }));
  const path = inject('apiFixtureDb');
  db = await openDatabase(path);
  const ref = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const conn = await ref.connect();
  locations = ((await conn.runAndReadAll(`SELECT l."Longitude" AS lon, l."Latitude" AS lat, l."DOI" AS doi, (SELECT count(*) FROM observations o WHERE o."LocationId" = l."Id")::INTEGER AS n FROM locations l`)).getRowObjectsJson()) as typeof locations;
  conn.closeSync();
  ref.closeSync();
  let app: ReturnType<typeof createApp> | undefined;
  api = await listen({ fetch: (req: Request) => app!.fetch(req) });
  app = createApp({
    acquire: () => db.acquire(),
    links: { trustProxy: false },
    regionsFile: `${join(REPO_ROOT, 'scripts/sample/hubs.geojson')},${join(dir, 'hostile.geojson')}`,
    explore: { assetsDir: join(dir, 'assets') },
  });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('request', (r) => requested.push(decodeURIComponent(r.url())));
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const settled = async () => {
  await page.waitForSelector('#total[data-total]:not([data-total=""])');
  await page.waitForSelector('#results:not([aria-busy])', { timeout: 30_000 });
};
const shownTotal = async () => Number(await page.getAttribute('#total', 'data-total'));
const apiCount = async (filter: string) => {
  const res = await fetch(`${api.origin}/v1/odata/v4/Observations?$count=true&$filter=${encodeURIComponent(filter)}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { value: number }).value;
};
const inside = (shape: readonly (readonly [number, number])[]) => {
  const ring = { type: 'Polygon' as const, coordinates: [[...shape, shape[0]!].map(([x, y]) => [x, y])] };
  return locations.filter((l) => booleanPointInPolygon([l.lon, l.lat], ring));
};

describe('selecting by area in the explorer', () => {
  it('draws a polygon by clicks: the URL keeps it, the total is the exact count inside it, the rows, datasets and export are the shape’s', async () => {
    await page.goto(`${api.origin}/explore`);
    await settled();
    const box = (await page.locator('#map').boundingBox())!;
    await page.click('#shape-draw');
    expect(await page.getAttribute('#shape-draw', 'aria-pressed')).toBe('true');
    expect(await page.isDisabled('#shape-close')).toBe(true);
    // A quadrilateral over the middle of the map, where the fitted locations are.
    for (const [fx, fy] of [[0.25, 0.2], [0.8, 0.3], [0.7, 0.85], [0.2, 0.75]] as const) await page.mouse.click(box.x + box.width * fx, box.y + box.height * fy);
    expect(await page.textContent('#shape-status')).toMatch(/4 corners/);
    const before = requested.length;
    await page.click('#shape-close');
    await settled();

    const shape = parseShape(new URL(page.url()).searchParams.get('shape'));
    expect(shape).toHaveLength(4);
    const matched = inside(shape!);
    const expected = matched.reduce((n, l) => n + l.n, 0);
    expect(expected).toBeGreaterThan(0);
    expect(await shownTotal()).toBe(expected);
    expect(await apiCount(shapeFilter(shape!))).toBe(expected);
    expect(await page.textContent('#total')).toMatch(/inside the drawn shape/);
    expect(await page.isVisible('#facets-note')).toBe(true);
    // The map's points and the preview's rows are asked for with the shape's filter.
    // The map's own event: its points are set when its locations request is answered, not when the results settle.
    await page.waitForFunction((n) => document.getElementById('map')?.dataset['points'] === String(n), matched.length, { timeout: 30_000 }).catch(() => {});
    expect(Number(await page.getAttribute('#map', 'data-points'))).toBe(matched.length);
    const sent = requested.slice(before);
    expect(sent.some((u) => u.includes('/v1/odata/v4/Observations?') && u.includes('$top=') && u.includes(shapeFilter(shape!)))).toBe(true);
    // The datasets cited are those with a location inside the shape.
    const cited = await page.$$eval('#citation-list li a[href*="doi.org"]', (as) => as.map((a) => decodeURIComponent(a.getAttribute('href')!.replace(/^https:\/\/doi\.org\//, ''))));
    expect(cited.sort()).toEqual([...new Set(matched.map((l) => l.doi))].sort());
    // The export links carry the shape.
    const exportHref = await page.getAttribute('a.export[data-format="csv"]', 'href');
    expect(decodeURIComponent(exportHref ?? '')).toContain(shapeFilter(shape!));
    mkdirSync(join(REPO_ROOT, 'test-artifacts/explore'), { recursive: true });
    await page.locator('#map-section').screenshot({ path: join(REPO_ROOT, 'test-artifacts/explore/shape.png') });
  });

  it('opens the same selection from its URL, and clears the shape', async () => {
    const url = page.url();
    const total = await shownTotal();
    await page.goto(url);
    await settled();
    expect(await shownTotal()).toBe(total);
    expect(await page.isEnabled('#shape-clear')).toBe(true);
    await page.click('#shape-clear');
    await settled();
    expect(new URL(page.url()).searchParams.get('shape')).toBeNull();
    expect(await shownTotal()).toBe(locations.reduce((n, l) => n + l.n, 0));
  });

  it('picks a region from the regions collection; names are text, never markup', async () => {
    await page.goto(`${api.origin}/explore`);
    await settled();
    await page.selectOption('#watershed', 'hub.pacific');
    await settled();
    expect(new URL(page.url()).searchParams.get('RegionId')).toBe('hub.pacific');
    expect(await shownTotal()).toBe(await apiCount("RegionId eq 'hub.pacific'"));
    const options = await page.$$eval('#watershed option', (os) => os.map((o) => o.textContent));
    expect(options).toContain(`${HOSTILE} (test.hostile)`);
    expect(await page.$$eval('#area-tools img, #facets img', (imgs) => imgs.length)).toBe(0);
    expect(await page.title()).not.toBe('pwned');
  });

  it('selects a region by a click on its outline, as the region list does', async () => {
    await page.goto(`${api.origin}/explore`);
    await settled();
    // The outlines are drawn on the map's one canvas: click where it shows an opaque pixel of their violet stroke.
    const spot = await page.evaluate(() => {
      const canvas = document.querySelector<HTMLCanvasElement>('#map canvas')!;
      const { data, width, height } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      const box = canvas.getBoundingClientRect(), view = document.querySelector('#map')!.getBoundingClientRect();
      const sx = box.width / width, sy = box.height / height;
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        const px = box.left + x * sx, py = box.top + y * sy;
        if (px < view.left + 60 || px > view.right - 10 || py < view.top + 10 || py > view.bottom - 10) continue;
        if (data[i]! > 100 && data[i]! < 150 && data[i + 1]! < 90 && data[i + 2]! > 200 && data[i + 3]! > 220) return { x: px, y: py };
      }
      return null;
    });
    expect(spot).not.toBeNull();
    await page.mouse.click(spot!.x, spot!.y);
    await settled();
    const region = new URL(page.url()).searchParams.get('RegionId');
    const hubs = (JSON.parse(readFileSync(join(REPO_ROOT, 'scripts/sample/hubs.geojson'), 'utf8')) as { features: { properties: { RegionId: string } }[] }).features.map((f) => f.properties.RegionId);
    expect(hubs).toContain(region);
    expect(await shownTotal()).toBe(await apiCount(`RegionId eq '${region}'`));
    expect(await page.inputValue('#watershed')).toBe(region);
  });

  it('has no accessibility violation axe-core finds while drawing', async () => {
    await page.click('#shape-draw');
    const axe = readFileSync(join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
    await page.evaluate(axe);
    const violations = await page.evaluate(async () => {
      type Result = { id: string; impact: string; nodes: { target: string[] }[] };
      const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: Result[] }> } }).axe;
      const result = await axe.run({ exclude: [['.leaflet-pane'], ['.leaflet-control-container']] }, { resultTypes: ['violations'] });
      return result.violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
    });
    expect(violations).toEqual([]);
    await page.keyboard.press('Escape');
    expect(await page.getAttribute('#shape-draw', 'aria-pressed')).toBe('false');
    expect(pageErrors).toEqual([]);
  });
});
