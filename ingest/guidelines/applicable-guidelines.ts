import type { DuckDBConnection } from '@duckdb/node-api';
import { qualityControlSql } from '../../schemas/index.js';
import { appendRows, run, type AppendValue } from '../db.js';
import { ident, literal } from '../sql.js';
import { alternativesSql, termSql } from './governing.js';
import { ambiguousCharacteristics, ecosystemOf, marineMedia, mediaOf, regionOfJurisdiction } from './guideline-pairing.js';
import type { Guideline } from './guideline-table.js';
import { workTables as T } from './work-tables.js';

/**
 * The pairing step (docs/guidelines.md, "Pairing"): the guidelines this build compares with, and which of them
 * apply to each location × characteristic × medium × fraction × speciation of the build's results.
 */

/** A constant guideline's value (a number or a range of numbers); undefined for a formula. */
export function constantOf(g: Guideline): { lo: number; hi: number } | undefined {
  const f = g.formula;
  if (f?.kind === 'number') return { lo: f.value, hi: f.value };
  if (f?.kind === 'range' && f.lo.kind === 'number' && f.hi.kind === 'number') return { lo: f.lo.value, hi: f.hi.value };
  return undefined;
}

const guidelineColumns = [
  ['GuidelineId', 'BIGINT'], ['CharacteristicName', 'VARCHAR'], ['fractions', 'VARCHAR[]'], ['MethodSpeciation', 'VARCHAR'], ['MediaName', 'VARCHAR'],
  ['Ecosystem', 'VARCHAR'], ['Publisher', 'VARCHAR'], ['ProtectionLevel', 'VARCHAR'], ['Bound', 'VARCHAR'], ['Unit', 'VARCHAR'], ['regions', 'VARCHAR[]'],
  ['inputs', 'VARCHAR[]'], ['is_formula', 'BOOLEAN'], ['const_lo', 'DOUBLE'], ['const_hi', 'DOUBLE'],
] as const;

function guidelineRow(g: Guideline): AppendValue[] {
  const constant = constantOf(g);
  return [
    BigInt(g.Id), g.CharacteristicName, g.fractions, g.MethodSpeciation, g.MediaName, g.Ecosystem, g.Publisher, g.ProtectionLevel, g.Bound, g.Unit ?? '',
    g.Jurisdictions.map(regionOfJurisdiction).filter((r) => r !== undefined), g.Inputs, constant === undefined, constant?.lo ?? null, constant?.hi ?? null,
  ];
}

/**
 * The guidelines compared (those with a value, of the characteristics `compared` names), the pairing tables, and
 * every publisher of the summary (`every`), so that a publisher's rank never varies by build.
 */
export async function applicableGuidelines(conn: DuckDBConnection, compared: readonly Guideline[], every: readonly Guideline[]): Promise<void> {
  await run(conn, `CREATE OR REPLACE TEMP TABLE ${T.guidelines} (${guidelineColumns.map(([n, t]) => `${ident(n)} ${t}`).join(', ')})`);
  await appendRows(conn, T.guidelines, compared.filter((g) => g.formula !== undefined).map(guidelineRow), 'main', 'temp');
  await run(conn, `CREATE OR REPLACE TEMP TABLE ${T.media} (ActivityMediaName VARCHAR, MediaName VARCHAR)`);
  await appendRows(conn, T.media, Object.entries(mediaOf), 'main', 'temp');
  await run(conn, `CREATE OR REPLACE TEMP TABLE ${T.ecosystems} (MonitoringLocationType VARCHAR, Ecosystem VARCHAR)`);
  await appendRows(conn, T.ecosystems, Object.entries(ecosystemOf), 'main', 'temp');
  await run(conn, `CREATE OR REPLACE TEMP TABLE ${T.ambiguous} (CharacteristicName VARCHAR, candidate VARCHAR, reason VARCHAR)`);
  const ambiguous = Object.entries(ambiguousCharacteristics).flatMap(([c, a]) => a.candidates.map((candidate) => [c, candidate, a.reason]));
  await appendRows(conn, T.ambiguous, ambiguous, 'main', 'temp');
  await writePublishers(conn, every);
  // Each location of the build: its type's ecosystem and its regions (all_regions, derive.ts).
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE ${T.locations} AS
     SELECT l."Id" AS LocationId, l."MonitoringLocationType" AS MonitoringLocationType, e.Ecosystem AS ecosystem,
            coalesce((SELECT list(r."RegionId") FROM all_regions r WHERE r."LocationId" = l."Id"), []) AS regions
     FROM all_locations l LEFT JOIN ${T.ecosystems} e ON e.MonitoringLocationType = l."MonitoringLocationType"`,
  );
  await applicableByLocation(conn);
}

/** The publishers in name order: their rank orders an index row's Id after its location and year. */
async function writePublishers(conn: DuckDBConnection, every: readonly Guideline[]): Promise<void> {
  await run(conn, `CREATE OR REPLACE TEMP TABLE ${T.publishers} (Publisher VARCHAR, rank BIGINT)`);
  const publishers = [...new Set(every.map((g) => g.Publisher))].sort();
  if (publishers.length > 64) throw new Error(`the guideline summary has ${publishers.length} publishers; water_quality_index Ids hold 64`);
  await appendRows(conn, T.publishers, publishers.map((p, i) => [p, i]), 'main', 'temp');
}

/** What pairs a result with guidelines: its location, characteristic, medium, fraction and speciation. */
const pairingKey = ['LocationId', 'CharacteristicName', 'ActivityMediaName', 'ResultSampleFraction', 'MethodSpeciation'].map((c) => `"${c}"`);

/**
 * Which guidelines apply to each pairing key of the build's environmental results (a quality-control result, a
 * blank, a replicate, a spike, is not water: schemas/activity-group.ts), decided once per distinct key rather than
 * per observation: the medium, the ecosystem, the jurisdiction, the fraction and the speciation depend on nothing
 * else. The guideline's own columns are copied in with its Term and the Alternatives it stands among
 * (governing.ts), so that pairing an observation is one hash join on this table. An ambiguous characteristic pairs
 * with its candidates' guidelines, `ambiguity` saying why its comparisons decide nothing.
 */
async function applicableByLocation(conn: DuckDBConnection): Promise<void> {
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE ${T.applicable} AS
     WITH k AS (
       SELECT DISTINCT "LocationId", "CharacteristicName", CAST("ActivityMediaName" AS VARCHAR) AS "ActivityMediaName", "ResultSampleFraction", "MethodSpeciation"
       FROM observations WHERE NOT ${qualityControlSql('"ActivityGroupType"')}
     ), a AS (
       SELECT k.*, l.MonitoringLocationType, amb.reason AS ambiguity, g.* EXCLUDE (CharacteristicName, MethodSpeciation, fractions), ${termSql('g.ProtectionLevel')} AS Term
       FROM k
       LEFT JOIN ${T.ambiguous} amb ON amb.CharacteristicName = k."CharacteristicName"
       JOIN ${T.media} m ON m.ActivityMediaName = k."ActivityMediaName"
       JOIN ${T.guidelines} g ON g.CharacteristicName = coalesce(amb.candidate, k."CharacteristicName") AND g.MediaName = m.MediaName
       JOIN ${T.locations} l ON l.LocationId = k."LocationId"
       WHERE (g.Ecosystem IS NULL OR g.Ecosystem = CASE WHEN k."ActivityMediaName" = ${literal(marineMedia)} THEN 'Marine' ELSE l.ecosystem END)
         AND list_has_any(g.regions, l.regions)
         AND (len(g.fractions) = 0 OR k."ResultSampleFraction" IS NULL OR list_contains(g.fractions, k."ResultSampleFraction"))
         AND (g.MethodSpeciation IS NULL OR k."MethodSpeciation" IS NULL OR g.MethodSpeciation = k."MethodSpeciation")
     )
     SELECT a.*, ${alternativesSql([...pairingKey, 'Publisher', 'Term'].join(', '))} AS Alternatives FROM a`,
  );
}

/**
 * The FROM and WHERE that pair each environmental observation `o` with each guideline `g` that applies to it: what
 * the later steps compute per result.
 */
export function pairedObservations(guidelineFilter = 'TRUE'): string {
  const on = pairingKey.map((c) => `g.${c} IS NOT DISTINCT FROM o.${c}`).join(' AND ');
  return `FROM observations o
     JOIN ${T.applicable} g ON ${on}
     WHERE ${guidelineFilter} AND NOT ${qualityControlSql('o."ActivityGroupType"')}`;
}
