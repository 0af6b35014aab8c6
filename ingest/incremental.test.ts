import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSample } from '../scripts/sample/generate.js';
import { runCompact } from './compact.js';
import { runIngest } from './pipeline.js';
import { runRemove } from './remove.js';
import { query, tempDir } from './test-support.js';

/**
 * Property: a seeded random sequence of adds, replaces and removes, each published incrementally (merge.ts), yields
 * after every step the rows and Ids a straightforward model of the Id rules predicts — kept datasets keep their
 * Ids; the datasets of one ingest are numbered after the high-water mark in DOI order, each in the documented key
 * order — with statistics, rollups, locations and datasets equal to a brute-force recount from the rows.
 */

const hubs = new URL('../scripts/sample/hubs.geojson', import.meta.url).pathname;

/** mulberry32: small, seeded, good enough to pick operations. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Source {
  readonly folder: string;
  readonly doi: string;
}

/** A new version of a dataset: its data lines thinned by a seeded rule (the header and metadata unchanged). */
async function variant(pool: string, folder: string, dest: string, version: number): Promise<void> {
  await cp(join(pool, folder), dest, { recursive: true });
  for (const name of await readdir(dest)) {
    if (!name.endsWith('.csv') && !name.endsWith('.csv.gz')) continue;
    const gz = name.endsWith('.gz');
    const bytes = await readFile(join(dest, name));
    const [header, ...rest] = (gz ? gunzipSync(bytes) : bytes).toString('utf8').split('\n');
    const kept = rest.filter((l, i) => l !== '' && (i + version) % (3 + (version % 4)) !== 0);
    const text = Buffer.from(`${[header, ...kept].join('\n')}\n`);
    await writeFile(join(dest, name), gz ? gzipSync(text) : text);
  }
}

/** The rows of each dataset in Id order, without Ids: what a fresh build must hold too. */
async function rowsByDataset(db: string): Promise<Map<string, string[]>> {
  const rows = await query(db, `SELECT "DOI", "MonitoringLocationID", "ActivityStartDate", "ActivityStartTime", "CharacteristicName", "ResultValue" FROM observations ORDER BY "Id"`);
  const byDoi = Map.groupBy(rows, (r) => String(r.DOI));
  return new Map([...byDoi].map(([doi, rs]) => [doi, rs.map((r) => JSON.stringify([r.MonitoringLocationID, r.ActivityStartDate, r.ActivityStartTime, r.CharacteristicName, r.ResultValue]))]));
}

/** Every derived table against a recount from observations (each query returns the rows that differ). */
const recounts: Record<string, string> = {
  observation_stats: `(SELECT "LocationId", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear", count(*) AS n, min("Id") AS min_id, max("Id") AS max_id
      FROM observations GROUP BY ALL) x FULL JOIN observation_stats s USING ("LocationId", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear")
    WHERE x.n IS DISTINCT FROM s.n OR x.min_id IS DISTINCT FROM s.min_id OR x.max_id IS DISTINCT FROM s.max_id`,
  // Sums of doubles in another order differ in the last bits: compared relatively.
  observation_value_stats: `(SELECT "LocationId", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear", "ResultUnit", count(*) AS n,
        count("ResultValue") AS value_n, sum("ResultValue") AS value_sum, min("ResultValue") AS value_min, max("ResultValue") AS value_max
      FROM observations GROUP BY ALL) x
    FULL JOIN observation_value_stats v ON v."LocationId" = x."LocationId" AND v."CharacteristicName" = x."CharacteristicName" AND v."ActivityMediaName" = x."ActivityMediaName"
      AND v."ActivityGroupType" = x."ActivityGroupType" AND v."ActivityStartYear" = x."ActivityStartYear" AND v."ResultUnit" IS NOT DISTINCT FROM x."ResultUnit"
    WHERE x.n IS DISTINCT FROM v.n OR x.value_n IS DISTINCT FROM v.value_n OR x.value_min IS DISTINCT FROM v.value_min OR x.value_max IS DISTINCT FROM v.value_max
      OR (x.value_sum IS NULL) <> (v.value_sum IS NULL) OR abs(x.value_sum - v.value_sum) > 1e-9 * greatest(1, abs(x.value_sum))`,
  observation_rollup: `(SELECT o."DOI", l."MonitoringLocationType", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear", count(*) AS n
      FROM observations o JOIN locations l ON l."Id" = o."LocationId" GROUP BY ALL) x
    FULL JOIN observation_rollup r USING ("DOI", "MonitoringLocationType", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear")
    WHERE x.n IS DISTINCT FROM r.n`,
  observation_region_rollup: `(SELECT m."RegionId", o."DOI", l."MonitoringLocationType", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear", count(*) AS n
      FROM observations o JOIN locations l ON l."Id" = o."LocationId" JOIN location_regions m ON m."LocationId" = o."LocationId" GROUP BY ALL) x
    FULL JOIN observation_region_rollup r USING ("RegionId", "DOI", "MonitoringLocationType", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear")
    WHERE x.n IS DISTINCT FROM r.n`,
  locations: `(SELECT "LocationId" AS "Id", min("Id") AS lo, max("Id") AS hi, count(*) AS n, any_value("DOI") AS doi FROM observations GROUP BY ALL) x
    FULL JOIN locations l USING ("Id")
    WHERE x.lo IS DISTINCT FROM l.first_obs_id OR x.hi IS DISTINCT FROM l.last_obs_id OR x.n <> x.hi - x.lo + 1 OR x.doi IS DISTINCT FROM l."DOI"`,
  datasets: `(SELECT "DOI", [min("ActivityStartDate"), max("ActivityStartDate")] AS extent FROM observations GROUP BY ALL) x
    FULL JOIN datasets d USING ("DOI") WHERE x.extent IS DISTINCT FROM d."TemporalExtent"`,
  location_regions: `location_regions m FULL JOIN locations l ON l."Id" = m."LocationId" WHERE l."Id" IS NULL`,
  // Blank fractions, speciations and units are groups too: matched with IS NOT DISTINCT FROM, not USING. Quality
  // control is left out, and a censored result without a unit is in its limit's (../shared/statistics/README.md §2).
  location_summaries: `(SELECT "LocationId", "DOI", "CharacteristicName", "ResultSampleFraction", "MethodSpeciation",
        coalesce("ResultUnit", CASE WHEN "ResultValue" IS NULL AND "ResultDetectionQuantitationLimitMeasure" IS NOT NULL
          AND "ResultDetectionCondition" IN ('Below Detection/Quantification Limit', 'Not Detected', 'Above Detection/Quantification Limit')
          THEN "ResultDetectionQuantitationLimitUnit" END) AS "ResultUnit", count(*) AS n, min("ActivityStartDate") AS first, max("Id") AS last_id
      FROM observations WHERE "ActivityGroupType" NOT LIKE 'Quality Control%' GROUP BY ALL) x
    FULL JOIN location_summaries s ON s."LocationId" = x."LocationId" AND s."DOI" = x."DOI" AND s."CharacteristicName" = x."CharacteristicName"
      AND s."ResultSampleFraction" IS NOT DISTINCT FROM x."ResultSampleFraction" AND s."MethodSpeciation" IS NOT DISTINCT FROM x."MethodSpeciation" AND s."ResultUnit" IS NOT DISTINCT FROM x."ResultUnit"
    WHERE x.n IS DISTINCT FROM s."Count" OR x.first IS DISTINCT FROM s."FirstDate" OR s."LatestObservationId" > x.last_id`,
  // Every key is NOT NULL (schemas/storage.ts), so USING matches; a key with no comparison left must have no row.
  guideline_comparison_stats: `(SELECT "LocationId", "DOI", "MonitoringLocationType", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear",
        "GuidelineId", "Publisher", "ProtectionLevel", "Verdict", count(*) AS n
      FROM guideline_comparisons GROUP BY ALL) x
    FULL JOIN guideline_comparison_stats s USING ("LocationId", "DOI", "MonitoringLocationType", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear",
      "GuidelineId", "Publisher", "ProtectionLevel", "Verdict")
    WHERE x.n IS DISTINCT FROM s.n`,
  guideline_comparison_totals: `(SELECT "LocationId", "DOI", "MonitoringLocationType", "CharacteristicName", "GuidelineId", "Publisher", "ProtectionLevel", "Verdict", count(*) AS n
      FROM guideline_comparisons GROUP BY ALL) x
    FULL JOIN guideline_comparison_totals s USING ("LocationId", "DOI", "MonitoringLocationType", "CharacteristicName", "GuidelineId", "Publisher", "ProtectionLevel", "Verdict")
    WHERE x.n IS DISTINCT FROM s.n`,
  // search_datasets' index: one row per published dataset, its name and its locations' bounding box as they are now.
  dataset_search: `(SELECT d."Id" AS "DatasetId", d."DOI", lower(d."DatasetName") AS name, min(l."Longitude") AS west, min(l."Latitude") AS south, max(l."Longitude") AS east, max(l."Latitude") AS north
      FROM datasets d LEFT JOIN locations l ON l."DOI" = d."DOI" GROUP BY ALL) x
    FULL JOIN dataset_search s USING ("DOI")
    WHERE x."DatasetId" IS DISTINCT FROM s."DatasetId" OR x.name IS DISTINCT FROM s."NameText" OR x.west IS DISTINCT FROM s."West" OR x.south IS DISTINCT FROM s."South"
      OR x.east IS DISTINCT FROM s."East" OR x.north IS DISTINCT FROM s."North"`,
};

async function checkDerived(db: string): Promise<void> {
  for (const [table, from] of Object.entries(recounts)) {
    expect(await query(db, `SELECT count(*)::INTEGER AS n FROM ${from}`), table).toEqual([{ n: 0 }]);
  }
  // Physical order: ascending Ids (the paging design depends on it).
  for (const table of ['observations', 'location_summaries']) {
    const [order] = await query(db, `SELECT count(*)::INTEGER AS n FROM (SELECT "Id" - lag("Id") OVER () AS step FROM ${table}) WHERE step <= 0`);
    expect(order, table).toEqual({ n: 0 });
  }
  // The search index is rewritten in DOI order by every merge.
  const [unsorted] = await query(db, `SELECT count(*)::INTEGER AS n FROM (SELECT "DOI" < lag("DOI") OVER () AS back FROM dataset_search) WHERE back`);
  expect(unsorted, 'dataset_search').toEqual({ n: 0 });
  // The comparisons' statistics stay in LocationId order (a merge appends the delta's): each location's rows together.
  for (const table of ['guideline_comparison_stats', 'guideline_comparison_totals']) {
    const [scattered] = await query(db, `SELECT count(*)::INTEGER AS n FROM (SELECT "LocationId" - lag("LocationId") OVER () AS step FROM ${table}) WHERE step < 0`);
    expect(scattered, table).toEqual({ n: 0 });
  }
}

describe('incremental publication', () => {
  let pool: string;
  let dir: string;
  let sources: Source[];
  beforeAll(async () => {
    dir = await tempDir();
    pool = join(dir, 'pool');
    const summary = await generateSample({ rows: 30_000, out: pool, seed: 7 }, () => {});
    sources = summary.datasets.map((d) => ({ folder: d.folder, doi: d.doi }));
  });

  it('matches the model of the Id rules and a recount after every step of a seeded random sequence', async () => {
    const random = prng(19);
    const db = join(dir, 'hub', 'tributary.duckdb');
    /** The model: each published dataset's Id range and version; the high-water mark. */
    const model = new Map<string, { lo: number; hi: number; version: number }>();
    let highWater = 0;
    const versions = new Map<string, number>();
    let step = 0;

    const ingest = async (picked: Source[]) => {
      const src = join(dir, `src-${step}`);
      for (const s of picked) {
        const version = (versions.get(s.doi) ?? -1) + 1;
        versions.set(s.doi, version);
        if (version === 0) await cp(join(pool, s.folder), join(src, s.folder), { recursive: true });
        else await variant(pool, s.folder, join(src, s.folder), version);
      }
      const report = await runIngest({ src, duckdbPath: db, regionsFile: hubs });
      expect(report.published, JSON.stringify(report.datasets.map((d) => d.error))).toBe(true);
      for (const s of [...picked].sort((a, b) => (a.doi < b.doi ? -1 : 1))) {
        const loaded = report.datasets.find((d) => d.DOI === s.doi)!;
        expect(loaded.status, `${s.doi} v${versions.get(s.doi)}: ${loaded.error ?? ""}`).toBe("loaded");
        model.set(s.doi, { lo: highWater + 1, hi: highWater + loaded.rowsLoaded, version: versions.get(s.doi)! });
        highWater += loaded.rowsLoaded;
      }
      await rm(src, { recursive: true });
    };

    await ingest(sources.slice(0, 3));
    for (step = 1; step <= 16; step++) {
      const published = sources.filter((s) => model.has(s.doi));
      const unpublished = sources.filter((s) => !model.has(s.doi));
      const roll = random();
      if (roll < 0.3 && published.length > 1) {
        const victim = published[Math.floor(random() * published.length)]!;
        expect((await runRemove({ duckdbPath: db, doi: victim.doi })).published).toBe(true);
        model.delete(victim.doi);
      } else {
        // One to three datasets at once, each new or a new version of a published one.
        const picked = new Set<Source>();
        for (let k = 1 + Math.floor(random() * 3); k > 0; k--) {
          const fromNew = unpublished.length > 0 && (published.length === 0 || random() < 0.5);
          const list = fromNew ? unpublished : published;
          picked.add(list[Math.floor(random() * list.length)]!);
        }
        await ingest([...picked]);
      }

      const ranges = await query(db, `SELECT "DOI", min(first_obs_id)::INTEGER AS lo, max(last_obs_id)::INTEGER AS hi FROM locations GROUP BY "DOI" ORDER BY "DOI"`);
      const expected = [...model.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([doi, m]) => ({ DOI: doi, lo: m.lo, hi: m.hi }));
      expect(ranges, `step ${step}`).toEqual(expected);
      const [meta] = await query(db, `SELECT value FROM tributary_meta WHERE key = 'max_observation_id'`);
      expect(Number(meta?.value)).toBe(highWater);
      await checkDerived(db);
    }

    // The same content built from scratch holds the same rows in the same order per dataset (Ids aside).
    const fresh = join(dir, 'fresh', 'tributary.duckdb');
    const src = join(dir, 'src-fresh');
    for (const [doi, m] of model) {
      const s = sources.find((x) => x.doi === doi)!;
      if (m.version === 0) await cp(join(pool, s.folder), join(src, s.folder), { recursive: true });
      else await variant(pool, s.folder, join(src, s.folder), m.version);
    }
    expect((await runIngest({ src, duckdbPath: fresh, regionsFile: hubs })).published).toBe(true);
    expect(await rowsByDataset(db)).toEqual(await rowsByDataset(fresh));

    // Compaction rewrites the file as a first ingest would, keeping every Id.
    const before = await query(db, 'SELECT * FROM observations ORDER BY "Id"');
    expect((await runCompact({ duckdbPath: db })).published).toBe(true);
    expect(await query(db, 'SELECT * FROM observations')).toEqual(before);
    await checkDerived(db);
  }, 300_000);
});
