/**
 * The explorer's facet-update latency on a database of any size: click → counts repainted, as the page itself
 * measures it (Performance API entries 'facet-update'), in Debian's Chromium against a running API.
 *
 *   make api DUCKDB_PATH=data/bench/<key>/tributary.duckdb REGIONS_FILE=scripts/sample/hubs.geojson \
 *     CORS_ORIGINS=http://127.0.0.1:3000 &
 *   node --import tsx scripts/bench/explore-latency.ts http://127.0.0.1:3000
 *
 * Prints the time the page took to load its counts and each click's update time, then their median. With keys
 * required, the page's calls draw from BROWSER_PAGE_ROWS_PER_SECOND/BURST (one bucket per address): set both high, as
 * the bench does PAGE_ROWS_*, or the load time measures the rate limit's waits.
 */
import { chromium } from 'playwright-core';

const origin = process.argv[2] ?? 'http://127.0.0.1:3000';
const CLICKS = 12;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
try {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  const settled = async () => {
    await page.waitForSelector('#total[data-total]', { timeout: 120_000 });
    await page.waitForSelector('#results:not([aria-busy])', { timeout: 120_000 });
  };
  const t0 = performance.now();
  await page.goto(`${origin}/explore`);
  await settled();
  const loadMs = performance.now() - t0;
  // Alternate between facets so every click changes the other facets' counts.
  const inputs = await page.$$eval('fieldset[data-facet] li input[data-facet][data-value]', (els) =>
    els.map((e) => ({ facet: (e as HTMLInputElement).dataset['facet']!, value: (e as HTMLInputElement).dataset['value']! })).filter((i) => i.facet !== 'RegionId'),
  );
  const byFacet = Map.groupBy(inputs, (i) => i.facet);
  const plan = [...byFacet].flatMap(([facet, values]) => values.slice(0, 2).map(({ value }) => ({ facet, value }))).slice(0, CLICKS);
  const updates: number[] = [];
  for (const { facet, value } of plan) {
    for (let twice = 0; twice < 2; twice++) {
      await page.click(`input[data-facet="${facet}"][data-value="${value.replaceAll('"', '\\"')}"]`);
      await settled();
      const ms = await page.evaluate(() => performance.getEntriesByName('facet-update').at(-1)?.duration);
      if (ms !== undefined) updates.push(Math.round(ms * 10) / 10);
    }
  }
  const sorted = [...updates].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  process.stdout.write(`${JSON.stringify({ origin, loadMs: Math.round(loadMs), clicks: updates.length, facetUpdateMs: updates, median, max: sorted.at(-1) })}\n`);
} finally {
  await browser.close();
}
