import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import type { ExploreOptions } from './explore.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-explore-route-'));
  writeFileSync(join(dir, 'explore.js'), 'console.log(1)');
  writeFileSync(join(dir, 'regions.geojson'), '{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"RegionId":"hub.x"},"geometry":null}]}');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// These routes never query: a database that is not there must not matter.
const app = (explore: ExploreOptions) =>
  createApp({ acquire: () => { throw new Error('no database in this test'); }, links: { trustProxy: false }, explore });

describe('/explore', () => {
  it('serves the page with a CSP naming only itself, and the tile server when one is configured', async () => {
    const plain = await app({ assetsDir: dir }).request('/explore');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^text\/html/);
    expect(plain.headers.get('content-security-policy')).toBe("default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
    expect(await plain.text()).toContain('<script type="application/json" id="explore-config">{}</script>');

    const tiles = await app({ assetsDir: dir, tileUrl: 'https://tiles.example.org/{z}/{x}/{y}.png', tileAttribution: '© Tiles </script><b>' }).request('/explore');
    expect(tiles.headers.get('content-security-policy')).toContain("img-src 'self' data: blob: https://tiles.example.org;");
    const html = await tiles.text();
    expect(html).toContain('"tileUrl":"https://tiles.example.org/{z}/{x}/{y}.png"');
    // A configured text cannot close the config element.
    expect(html).toContain('"tileAttribution":"© Tiles \\u003c/script>\\u003cb>"');
  });

  it('serves the listed built assets only, and says how to build them when they are missing', async () => {
    const a = app({ assetsDir: dir });
    const js = await a.request('/explore/assets/explore.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toBe('console.log(1)');

    const missing = await a.request('/explore/assets/explore.css');
    expect(missing.status).toBe(503);
    expect(((await missing.json()) as { message: string }).message).toMatch(/not built .*run 'make build'/);

    for (const path of ['/explore/assets/..%2Fexplore.js', '/explore/assets/regions.geojson', '/explore/assets/.env']) {
      const res = await a.request(path);
      expect(res.status, path).toBe(404);
    }
  });

  it('needs no key, while /v1 does', async () => {
    const { openKeyStore } = await import('../keys/key-store.js');
    const keys = await openKeyStore({ plainKeys: ['k'], pollMs: 0 });
    const keyed = createApp({ acquire: () => { throw new Error('no database'); }, links: { trustProxy: false }, explore: { assetsDir: dir }, access: { keys } });
    expect((await keyed.request('/explore')).status).toBe(200);
    expect((await keyed.request('/explore/assets/explore.js')).status).toBe(200);
    expect((await keyed.request('/v1/odata/v4/Observations')).status).toBe(401);
    keys.close();
  });

  it('offers the export links only while keys are off: with keys, it says a key is needed instead of linking to a 401', async () => {
    const { openKeyStore } = await import('../keys/key-store.js');
    const open = await (await app({ assetsDir: dir }).request('/explore')).text();
    expect(open).toContain('<a class="export" data-format="parquet" download>');
    expect(open).not.toContain('data-needs-key');
    const keys = await openKeyStore({ plainKeys: ['k'], pollMs: 0 });
    const keyed = createApp({ acquire: () => { throw new Error('no database'); }, links: { trustProxy: false }, explore: { assetsDir: dir }, access: { keys } });
    const html = await (await keyed.request('/explore')).text();
    keys.close();
    expect(html).not.toContain('class="export"');
    expect(html).toMatch(/<p class="exports" data-needs-key>The whole result in one file, and the dataset files below, need an API key/);
    expect(html).toContain('<script type="application/json" id="explore-config">{"bulkNeedsKey":true}</script>');
  });
});
