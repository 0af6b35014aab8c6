/**
 * OGC API – Features' HTML encoding (features-html.ts): which requests get it (f=html, a browser's Accept) and which
 * keep JSON (GDAL's, OWSLib's and curl's Accept, none); every page in Chromium with axe-core, as the explorer is
 * checked; the items page's map, table and next link against the JSON of the same page; escaping of data values.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { REPO_ROOT } from '../testing/fixture-db.js';
import { listen, type TestServer } from '../testing/test-server.js';
import { itemsHtml } from './features-html.js';
import { prefersHtml, withF } from './html-negotiation.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const F = '/v1/features';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let db: Database;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }));
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await db?.close();
});

const PATHS = [F, `${F}/conformance`, `${F}/collections`, `${F}/collections/locations`, `${F}/collections/observations/items?limit=20`, `${F}/collections/locations/items?limit=50`];

describe('which requests get HTML', () => {
  it.each([
    [BROWSER_ACCEPT, true],
    ['text/html', true],
    ['application/geo+json, application/json', false], // GDAL's OAPIF driver
    ['application/json', false], // OWSLib
    ['*/*', false], // curl
    ['text/html;q=0.5, application/json', false],
    ['text/html, application/json', false], // a tie is JSON
    [undefined, false],
  ])('Accept: %s → HTML %s', (accept, html) => expect(prefersHtml(accept)).toBe(html));

  it('f=html and a browser get HTML, f=json and JSON clients JSON; every JSON document links its HTML alternate', async () => {
    for (const path of PATHS) {
      const url = `${server.origin}${path}`;
      for (const [init, type] of [
        [{ headers: { Accept: BROWSER_ACCEPT } }, 'text/html; charset=utf-8'],
        [{}, path.includes('/items') ? 'application/geo+json' : 'application/json'],
        [{ headers: { Accept: 'application/geo+json, application/json' } }, path.includes('/items') ? 'application/geo+json' : 'application/json'],
      ] as const) {
        const res = await fetch(url, init);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('content-type'), `${path} ${JSON.stringify(init)}`).toBe(type);
        expect(res.headers.get('vary')).toMatch(/Accept/);
        const body = await res.text();
        if (type.startsWith('text/html')) expect(body).toMatch(/^<!doctype html>/);
        else if (!path.endsWith('/conformance')) {
          const links = (JSON.parse(body) as { links: { rel: string; type?: string; href: string }[] }).links;
          expect(links.find((l) => l.rel === 'alternate' && l.type === 'text/html')?.href, path).toBe(withF(url, 'html'));
        }
      }
      const forced = await fetch(withF(url, 'json'), { headers: { Accept: BROWSER_ACCEPT } });
      expect(forced.headers.get('content-type')).not.toMatch(/html/);
      const html = await fetch(withF(url, 'html'));
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(html.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    const conformance = (await (await fetch(`${server.origin}${F}/conformance`)).json()) as { conformsTo: string[] };
    expect(conformance.conformsTo).toContain('http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html');
    const bad = await fetch(`${server.origin}${F}/collections?f=xml`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain('f can be json');
  });

  it('escapes every value from the data', () => {
    const hostile = '<script>alert(1)</script>"\'&';
    const page = itemsHtml('http://h', 'http://h/v1/features/collections/locations/items', { id: 'locations', title: 'Monitoring locations' }, {
      features: [{ id: 1, geometry: { coordinates: [-63.5, 44.6] }, properties: { Name: hostile } }],
      numberReturned: 1,
      links: [],
    });
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;');
  });
});

describe('the HTML pages in Chromium', () => {
  let page: Page;
  beforeAll(async () => {
    page = await browser.newPage();
  });

  it('items: the map has a point per feature, the table a row per feature, and the next link is the JSON next link as HTML', async () => {
    const url = `${server.origin}${F}/collections/locations/items?limit=25`;
    const json = (await (await fetch(url)).json()) as { features: { id: number; geometry: { coordinates: [number, number] } }[]; links: { rel: string; href: string }[] };
    await page.goto(withF(url, 'html'));
    expect(await page.locator('svg[role="group"] circle').count()).toBe(json.features.length);
    const ids = await page.$$eval('tbody tr td:first-child a', (as) => as.map((a) => Number(a.textContent)));
    expect(ids).toEqual(json.features.map((f) => f.id));
    const next = json.links.find((l) => l.rel === 'next')!.href;
    expect(await page.getAttribute('a[rel="next"] >> nth=0', 'href')).toBe(withF(next, 'html'));
    // Following the link pages on, and the first feature's page shows its coordinates.
    await page.click('a[rel="next"] >> nth=0');
    expect(page.url()).toBe(withF(next, 'html'));
    expect(await page.locator('a[rel="first"]').count()).toBeGreaterThan(0);
    const first = json.features[0]!;
    await page.goto(withF(`${server.origin}${F}/collections/locations/items/${first.id}`, 'html'));
    expect(await page.textContent('h1')).toContain(`feature ${first.id}`);
    expect(await page.locator('svg[role="group"] circle').count()).toBe(1);
    expect(await page.textContent('dl')).toContain(String(first.geometry.coordinates[0]));
  });

  it('has no accessibility violation axe-core finds on any page, at a laptop and a phone width', { timeout: 240_000 }, async () => {
    const axe = readFileSync(join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
    const featureId = ((await (await fetch(`${server.origin}${F}/collections/observations/items?limit=1`)).json()) as { features: { id: number }[] }).features[0]!.id;
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of [...PATHS, `${F}/collections/observations/items/${featureId}`]) {
        await page.goto(withF(`${server.origin}${path}`, 'html'));
        await page.evaluate(axe); // by the harness: the page's CSP rightly refuses scripts
        const result = await page.evaluate(async () => {
          type Result = { id: string; impact: string; nodes: { target: string[] }[] };
          const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: Result[]; passes: Result[] }> } }).axe;
          const r = await axe.run(document, { resultTypes: ['violations'] });
          return { checked: r.passes.map((p) => p.id), violations: r.violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`) };
        });
        expect(result.checked).toEqual(expect.arrayContaining(['html-has-lang', 'document-title', 'color-contrast', 'link-name']));
        expect(result.violations, `${path} at ${width}px`).toEqual([]);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${path} at ${width}px scrolls sideways`).toBeLessThanOrEqual(0);
      }
    }
  });
});
