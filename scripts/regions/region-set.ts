/**
 * Turns a published boundary file into a REGIONS_FILE set: each feature keeps its outline and gets
 * `RegionId` `<set>.<code>`, `name` and `set`, so `RegionId eq 'huc10.1702000805'` selects the locations in it.
 * The input is GeoJSON in WGS 84 as ogr2ogr writes it from the published files (docs/ingest.md, "Watershed sets"):
 *
 *   node --import tsx scripts/regions/region-set.ts --set huc8 --code huc8 --name name WBD_HU8.geojson > regions/huc8.geojson
 *
 * `--code` and `--name` are the properties holding the unit's code and name (WBD: huc8/huc10 and name).
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export interface RegionSetOptions {
  /** The set's prefix: lower-case letters and digits (`huc8`, `nhn`). */
  readonly set: string;
  /** The property holding each unit's code. */
  readonly code: string;
  /** The property holding each unit's name. */
  readonly name: string;
}

type Feature = { type?: unknown; properties?: Record<string, unknown> | null; geometry?: unknown };

export function regionSet(json: unknown, options: RegionSetOptions): { type: 'FeatureCollection'; name: string; features: object[] } {
  if (!/^[a-z][a-z0-9]*$/.test(options.set)) throw new Error(`--set '${options.set}' must be lower-case letters and digits, starting with a letter (huc8, nhn)`);
  const fc = json as { type?: unknown; features?: unknown } | null;
  if (fc?.type !== 'FeatureCollection' || !Array.isArray(fc.features)) throw new Error('the input is not a GeoJSON FeatureCollection');
  const features = (fc.features as Feature[]).map((f, i) => {
    const code = f.properties?.[options.code];
    if ((typeof code !== 'string' && typeof code !== 'number') || !/^[A-Za-z0-9_-]+$/.test(String(code)))
      throw new Error(`feature ${i}: property '${options.code}' (--code) is ${JSON.stringify(code)}, not a unit code of letters and digits`);
    const name = f.properties?.[options.name];
    return {
      type: 'Feature',
      properties: { RegionId: `${options.set}.${String(code)}`, name: typeof name === 'string' && name.trim() ? name : String(code), set: options.set },
      geometry: f.geometry,
    };
  });
  return { type: 'FeatureCollection', name: options.set, features };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { set: { type: 'string' }, code: { type: 'string' }, name: { type: 'string', default: 'name' } }, allowPositionals: true });
  if (!values.set || !values.code || positionals.length !== 1) {
    throw new Error('usage: region-set.ts --set <prefix> --code <code property> [--name <name property>] <input.geojson> > <set>.geojson');
  }
  const json = JSON.parse(await readFile(positionals[0]!, 'utf8')) as unknown;
  process.stdout.write(`${JSON.stringify(regionSet(json, { set: values.set, code: values.code, name: values.name! }))}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: Error) => {
    console.error(`region-set: ${err.message}`);
    process.exit(2);
  });
}
