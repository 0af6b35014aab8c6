import { all, appendRows, run } from './db.js';
import { regionsContaining } from './regions.js';
import type { IngestBuild } from './stage-parts.js';

/**
 * Stage 4 (derive): RegionId memberships of every location of the build, by point-in-polygon in JS over the
 * locations (thousands), never over observations. ActivityStartYear and ActivityGroupType are derived in the
 * load's bulk insert, where the rows already pass.
 */

/** The derive stage's part: how many memberships were found. */
export interface DerivePart {
  readonly memberships: number;
}

export async function derive(build: IngestBuild): Promise<DerivePart> {
  const conn = build.conn;
  await run(conn, 'CREATE OR REPLACE TEMP TABLE all_regions (LocationId BIGINT, RegionId VARCHAR)');
  const locations = await all(conn, 'SELECT "Id", "Latitude", "Longitude" FROM all_locations ORDER BY "Id"');
  const cache = new Map<string, string[]>();
  const memberships: [bigint, string][] = [];
  for (const l of locations) {
    const key = `${String(l.Longitude)},${String(l.Latitude)}`;
    let ids = cache.get(key);
    if (!ids) {
      ids = regionsContaining(Number(l.Longitude), Number(l.Latitude), build.regions);
      cache.set(key, ids);
    }
    for (const id of ids) memberships.push([BigInt(l.Id as bigint), id]);
  }
  await appendRows(conn, 'all_regions', memberships, 'main', 'temp');
  return { memberships: memberships.length };
}
