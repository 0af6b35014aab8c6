/**
 * The landing pages in Chromium (Debian's package, driven by playwright-core) against a real API on the fixture
 * file: axe-core finds no accessibility violation at a laptop and a phone width (the check the explorer passes),
 * the page's CSP refuses nothing it carries (its styles, its map, its JSON-LD), and the browser's own parse of the
 * JSON-LD block is the dataset or place the page shows. Screenshots land in test-artifacts/pages/ (git-ignored).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { REPO_ROOT } from '../testing/fixture-db.js';
import { listen, type TestServer } from '../testing/test-server.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts/pages');

let db: Database;
let server: TestServer;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  db = await openDatabase(inject('apiFixtureDb'));
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }));
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  page.on('pageerror', (e) => problems.push(e.message));
  // A CSP refusal is reported on the console.
  page.on('console', (m) => (m.type() === 'error' ? problems.push(m.text()) : undefined));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await db?.close();
});

async function axeViolations(): Promise<{ checked: string[]; other: string[]; serious: string[] }> {
  await page.evaluate(readFileSync(join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8')); // the page's CSP rightly refuses inline scripts
  return page.evaluate(async () => {
    type Result = { id: string; impact: string; nodes: { target: string[] }[] };
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: Result[]; passes: Result[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    return { checked: result.passes.map((p) => p.id), serious: serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), other: result.violations.map((v) => `${v.impact} ${v.id}`) };
  });
}

describe('the landing pages in Chromium', () => {
  const pages = async () => {
    const index = (await (await fetch(`${server.origin}/v1/downloads`)).json()) as { datasets: { DOI: string }[] };
    const doi = index.datasets[0]!.DOI;
    const locations = (await (await fetch(`${server.origin}/v1/odata/v4/Locations?$filter=${encodeURIComponent(`DOI eq '${doi}'`)}&$top=1`)).json()) as { value: { Id: number }[] };
    return [
      { name: 'dataset', path: `/datasets/${doi}`, type: 'Dataset' },
      { name: 'location', path: `/locations/${locations.value[0]!.Id}`, type: 'Place' },
    ];
  };

  it('has no accessibility violation axe-core finds, at a laptop and a phone width, and nothing refused by its CSP', { timeout: 180_000 }, async () => {
    for (const p of await pages()) {
      for (const width of [1366, 390]) {
        await page.setViewportSize({ width, height: 900 });
        problems.length = 0;
        const res = await page.goto(`${server.origin}${p.path}`);
        expect(res?.status()).toBe(200);
        expect(problems, `${p.path}: ${problems.join('; ')}`).toEqual([]);
        const v = await axeViolations();
        console.log(`axe on the ${p.name} page at ${width}px: ${v.checked.length} rules passed; violations: ${JSON.stringify(v.other)}`);
        expect(v.checked).toEqual(expect.arrayContaining(['color-contrast', 'html-has-lang', 'document-title', 'landmark-one-main', 'page-has-heading-one', 'svg-img-alt', 'th-has-data-cells']));
        expect(v.other, `${p.path} at ${width}px: ${v.serious.join('; ')}`).toEqual([]);
        // Nothing wider than the screen but the tables' own scroll.
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${p.path} at ${width}px scrolls sideways`).toBe(true);
        await page.screenshot({ path: join(ARTIFACTS, `${p.name}-${width}.png`), fullPage: true });
      }
    }
  });

  it('carries one JSON-LD block the browser parses into the thing the page shows', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    for (const p of await pages()) {
      await page.goto(`${server.origin}${p.path}`);
      const [data, h1] = await page.evaluate(() => [JSON.parse(document.querySelector('script[type="application/ld+json"]')!.textContent!) as { '@type': string | string[]; name: string }, document.querySelector('h1')!.textContent]);
      expect([data['@type']].flat()).toContain(p.type);
      expect(data.name).toBe(h1);
    }
  });
});
