/**
 * §L the layer rate (issue 46): how fast the GIS clients a new user opens first page a layer of OGC API – Features
 * on `make start`'s defaults (config.ts's budgets, no key issued): QGIS's own OAPIF
 * provider (Debian's python3-qgis, headless), GDAL's ogr2ogr, and geopandas (pyogrio's GDAL). Each reads the first
 * LAYER_FEATURES observations at its own page size, timed around its reading alone; the goal is ≥ 5,000 features/s,
 * which the pages' budget of rows allows whatever the page size above PAGE_MIN_ROWS.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { apiSettings } from '../../services/api/config.js';
import { startApi } from './api-process.js';
import type { Context } from './context.js';
import { summarise } from './stats.js';
import { verdict } from './table.js';

const run = promisify(execFile);
const LAYER_FEATURES = 20_000;
const TARGET = 5000;
const QGIS_SCRIPT = join(import.meta.dirname, '..', '..', 'services', 'api', 'ogc', 'qgis_layer.py');

export type LayerContext = Pick<Context, 'figures' | 'details' | 'log'> & { readonly duckdbPath: string };

interface LayerClient {
  readonly name: string;
  /** Reads the layer; resolves the features read and the seconds its reading took. */
  read(origin: string, dir: string): Promise<{ features: number; seconds: number }>;
}

const CLIENTS: readonly LayerClient[] = [
  {
    name: 'QGIS 3.22 (OAPIF provider, 1,000 per page)',
    async read(origin) {
      const { stdout } = await run('/usr/bin/python3', [QGIS_SCRIPT, origin, 'observations', String(LAYER_FEATURES)], { env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' }, maxBuffer: 1 << 20 });
      const read = JSON.parse(stdout) as { features: number; seconds: number };
      return { features: read.features, seconds: read.seconds };
    },
  },
  {
    // As docs/recipes/gdal-qgis.md runs it: GDAL 3.6's default of 10 features a request is bounded by PAGE_MIN_ROWS.
    name: 'GDAL ogr2ogr (OAPIF driver, PAGE_SIZE=1000 as the recipe)',
    async read(origin, dir) {
      const out = join(dir, 'layer.geojsonl');
      const start = performance.now();
      await run('ogr2ogr', ['-f', 'GeoJSONSeq', out, `OAPIF:${origin}/v1/features`, 'observations', '-oo', 'PAGE_SIZE=1000', '-limit', String(LAYER_FEATURES)]);
      const seconds = (performance.now() - start) / 1000;
      const { stdout } = await run('wc', ['-l', out]);
      return { features: Number(stdout.trim().split(/\s+/)[0]), seconds };
    },
  },
  {
    name: 'geopandas (pyogrio, its GDAL: 1,000 per page)',
    async read(origin) {
      const script = `
import json, sys, time
import geopandas
start = time.monotonic()
layer = geopandas.read_file("OAPIF:" + sys.argv[1] + "/v1/features", layer="observations", max_features=int(sys.argv[2]))
print(json.dumps({"features": len(layer), "seconds": time.monotonic() - start}))
`;
      const { stdout } = await run('python3', ['-c', script, origin, String(LAYER_FEATURES)], { maxBuffer: 1 << 20 });
      return JSON.parse(stdout) as { features: number; seconds: number };
    },
  },
];

export async function layerSection(ctx: LayerContext): Promise<void> {
  const { figures, log } = ctx;
  log('§L the layer rate of GIS clients on make start\'s defaults');
  const defaults = Object.fromEntries(['PAGE_ROWS_PER_SECOND', 'PAGE_ROWS_BURST', 'PAGE_MIN_ROWS', 'RATE_LIMIT_MAX_WAIT_MS', 'MAX_CONCURRENT_PER_KEY'].map((k) => [k, apiSettings[k as keyof typeof apiSettings].default]));
  // No key issued, as on a fresh clone (QGIS 3.22's OAPIF provider cannot send one).
  const api = await startApi(ctx.duckdbPath, { ...defaults, API_KEYS: '' });
  const dir = await mkdtemp(join(tmpdir(), 'tributary-layer-'));
  const results: Record<string, unknown> = {};
  try {
    for (const client of CLIENTS) {
      const read = await client.read(api.base, dir).catch((err: unknown) => ({ error: String(err).slice(0, 300) }));
      if ('error' in read) {
        log(`§L ${client.name}: ${read.error}`);
        results[client.name] = read;
        continue;
      }
      const rate = read.features / read.seconds;
      results[client.name] = { ...read, rate };
      figures.push({
        section: 'L',
        name: `${client.name}: the first ${LAYER_FEATURES} observations as a layer`,
        unit: 'features/s',
        value: summarise([rate]),
        target: `≥ ${TARGET} features/s`,
        verdict: verdict(rate >= TARGET && read.features === LAYER_FEATURES),
        note: `${read.features} features in ${read.seconds.toFixed(1)} s, on the default budget of ${defaults['PAGE_ROWS_PER_SECOND']} rows/s (each page at least ${defaults['PAGE_MIN_ROWS']})`,
      });
      log(`§L ${client.name}: ${Math.round(rate)} features/s`);
    }
  } finally {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
  ctx.details['layer'] = results;
}
