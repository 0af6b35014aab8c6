import { all, appendRows, run } from './db.js';
import { boundaryRegionsAt, regionsContaining } from './regions.js';
import type { DerivePart, IngestBuild } from './stage-parts.js';

/**
 * Stage 4 (derive): RegionId memberships of every location of the build, by point-in-polygon in JS over the
 * locations (thousands), never over observations: the boundaries the build's locations can lie in (parsed on first
 * need, regions.ts), then REGIONS_FILE's (read with the sources). ActivityStartYear and ActivityGroupType are
 * derived in the load's bulk insert, where the rows already pass.
 */

const pointKey = (l: Record<string, unknown>) => `${String(l.Longitude)},${String(l.Latitude)}`;

export async function derive(build: IngestBuild): Promise<DerivePart> {
  const conn = build.conn;
  await run(conn, 'CREATE OR REPLACE TEMP TABLE all_regions (LocationId BIGINT, RegionId VARCHAR)');
  const locations = await all(conn, 'SELECT "Id", "Latitude", "Longitude" FROM all_locations ORDER BY "Id"');
  const points = new Map<string, [number, number]>();
  for (const l of locations) points.set(pointKey(l), [Number(l.Longitude), Number(l.Latitude)]);
  const regions = [...(await boundaryRegionsAt(points.values())), ...build.regions];
  const ids = new Map([...points].map(([key, [lon, lat]]) => [key, regionsContaining(lon, lat, regions)]));
  const memberships: [bigint, string][] = [];
  for (const l of locations) for (const id of ids.get(pointKey(l))!) memberships.push([BigInt(l.Id as bigint), id]);
  await appendRows(conn, 'all_regions', memberships, 'main', 'temp');
  return { memberships: memberships.length };
}
