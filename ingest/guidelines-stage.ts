import type { DuckDBConnection } from '@duckdb/node-api';
import { guidelineFields } from '../schemas/guideline-fields.js';
import { columnNames, type StorageTable } from '../schemas/index.js';
import { list } from './build-tables.js';
import { writeComparisonStats } from './comparison-stats.js';
import { all, appendRows, run, scalarNumber, type AppendValue } from './db.js';
import { inputNames, type InputName } from './guideline-expression.js';
import { ecosystemOf, marineMedia, mediaOf, regionOfJurisdiction } from './guideline-pairing.js';
import { compileGuideline, inputColumn } from './guideline-sql.js';
import { servedGuidelines, type Guideline } from './guideline-table.js';
import { ident, literal } from './sql.js';
import type { GuidelinesPart, IngestBuild } from './stage-parts.js';
import { conversion } from './unit-conversion.js';

/**
 * Stage 5b (guidelines, after statistics): loads the guideline summary into `guidelines`, compares every
 * observation of the build (the new and changed datasets: a delta holds nothing else) with every guideline that
 * applies to it into `guideline_comparisons`, and computes the CCME Water Quality Index of each location-year into
 * `water_quality_index` (docs/guidelines.md). The work is DuckDB SQL over the build; TypeScript parses the
 * summary's expressions, compiles them to SQL, and converts each distinct pair of units once through UCUM.
 */

/** The inputs Tributary pairs, their unit, and the characteristics they come from (docs/guidelines.md, "Inputs"). */
export const pairedInputs = {
  hardness: { unit: 'mg/L', characteristics: ['Total hardness', 'Hardness, Ca, Mg', 'Calcium', 'Magnesium'] },
  pH: { unit: '', characteristics: ['pH', 'pH, lab'] },
  temperature: { unit: 'deg C', characteristics: ['Temperature, water'] },
  DOC: { unit: 'mg/L', characteristics: ['Organic carbon'] },
} as const satisfies Partial<Record<InputName, { unit: string; characteristics: readonly string[] }>>;
type PairedInput = keyof typeof pairedInputs;
const paired = Object.keys(pairedInputs) as PairedInput[];
const isPaired = (name: InputName): name is PairedInput => name in pairedInputs;

const inputUnits: Partial<Record<InputName, string>> = { hardness: 'mg/L', DOC: 'mg/L', temperature: '°C' };

const belowLimit = ['Not Detected', 'Below Detection/Quantification Limit'];
const aboveLimit = 'Above Detection/Quantification Limit';

export async function guidelinesStage(build: IngestBuild, options: { readonly comparisons?: boolean } = {}): Promise<GuidelinesPart> {
  const conn = build.conn;
  const guidelines = servedGuidelines();
  await insertGuidelines(conn, guidelines);
  if (options.comparisons === false) return { guidelines: guidelines.length, comparisons: 0, indexRows: 0 };
  // Only the guidelines of characteristics the build measured (a publish of a few datasets pairs with few).
  const measured = new Set((await all(conn, 'SELECT DISTINCT "CharacteristicName" AS c FROM all_stats')).map((r) => String(r.c)));
  await createGuidelineTables(conn, guidelines.filter((g) => measured.has(g.CharacteristicName)), guidelines);
  await applicableGuidelines(conn);
  if ((await scalarNumber(conn, 'SELECT count(*) FROM gl_lg')) === 0) {
    await dropTemporary(conn);
    return { guidelines: guidelines.length, comparisons: 0, indexRows: 0 };
  }
  await formulaDays(conn);
  await convertUnits(conn);
  await collectInputs(conn);
  await evaluateFormulas(conn, guidelines);
  const comparisons = await writeComparisons(conn);
  await writeComparisonStats(conn);
  const indexRows = await writeWaterQualityIndex(conn);
  await dropTemporary(conn);
  return { guidelines: guidelines.length, comparisons, indexRows };
}

async function dropTemporary(conn: DuckDBConnection): Promise<void> {
  for (const t of ['gl_g', 'gl_media', 'gl_eco', 'gl_loc', 'gl_lg', 'gl_fkeys', 'gl_units', 'gl_in', 'gl_fv', 'gl_pub']) await run(conn, `DROP TABLE IF EXISTS ${t}`);
}

type Column = readonly [name: string, type: string];

// The guidelines go in through the appender: as JSON read by from_json, DuckDB parsed the whole summary's text
// again in every publish, for a table each publish writes whole.
async function insertGuidelines(conn: DuckDBConnection, guidelines: readonly Guideline[]): Promise<void> {
  // The appender fills columns by position: the table's own order, each value typed by its field.
  const types = new Map(guidelineFields.map((f) => [f.column, f.type]));
  const value = (g: Guideline, column: string): AppendValue => {
    const v = (g as unknown as Record<string, string | number | readonly string[] | null>)[column] ?? null;
    return types.get(column) === 'integer' && typeof v === 'number' ? BigInt(v) : v;
  };
  const columns = columnNames('guidelines');
  await appendRows(conn, 'guidelines', guidelines.map((g) => columns.map((c) => value(g, c))));
}

/** A constant guideline's value (a number or a range of numbers); undefined for a formula. */
function constantOf(g: Guideline): { lo: number; hi: number } | undefined {
  const f = g.formula;
  if (f?.kind === 'number') return { lo: f.value, hi: f.value };
  if (f?.kind === 'range' && f.lo.kind === 'number' && f.hi.kind === 'number') return { lo: f.lo.value, hi: f.hi.value };
  return undefined;
}

/** gl_g: the guidelines compared; gl_pub: every publisher of the summary (`every`), so that ranks never vary by build. */
async function createGuidelineTables(conn: DuckDBConnection, guidelines: readonly Guideline[], every: readonly Guideline[]): Promise<void> {
  const columns: Column[] = [
    ['GuidelineId', 'BIGINT'], ['CharacteristicName', 'VARCHAR'], ['fractions', 'VARCHAR[]'], ['MethodSpeciation', 'VARCHAR'], ['MediaName', 'VARCHAR'],
    ['Ecosystem', 'VARCHAR'], ['Publisher', 'VARCHAR'], ['ProtectionLevel', 'VARCHAR'], ['Bound', 'VARCHAR'], ['Unit', 'VARCHAR'], ['regions', 'VARCHAR[]'],
    ['inputs', 'VARCHAR[]'], ['is_formula', 'BOOLEAN'], ['const_lo', 'DOUBLE'], ['const_hi', 'DOUBLE'],
  ];
  await run(conn, `CREATE OR REPLACE TEMP TABLE gl_g (${columns.map(([n, t]) => `${ident(n)} ${t}`).join(', ')})`);
  const rows = guidelines.filter((g) => g.formula !== undefined).map((g): AppendValue[] => {
    const constant = constantOf(g);
    return [
      BigInt(g.Id), g.CharacteristicName, g.fractions, g.MethodSpeciation, g.MediaName, g.Ecosystem, g.Publisher, g.ProtectionLevel, g.Bound, g.Unit ?? '',
      g.Jurisdictions.map(regionOfJurisdiction).filter((r) => r !== undefined), g.Inputs, constant === undefined, constant?.lo ?? null, constant?.hi ?? null,
    ];
  });
  await appendRows(conn, 'gl_g', rows, 'main', 'temp');
  await run(conn, 'CREATE OR REPLACE TEMP TABLE gl_media (ActivityMediaName VARCHAR, MediaName VARCHAR)');
  await appendRows(conn, 'gl_media', Object.entries(mediaOf), 'main', 'temp');
  await run(conn, 'CREATE OR REPLACE TEMP TABLE gl_eco (MonitoringLocationType VARCHAR, Ecosystem VARCHAR)');
  await appendRows(conn, 'gl_eco', Object.entries(ecosystemOf), 'main', 'temp');
  // The publishers in name order: their rank orders an index row's Id after its location and year.
  await run(conn, 'CREATE OR REPLACE TEMP TABLE gl_pub (Publisher VARCHAR, rank BIGINT)');
  const publishers = [...new Set(every.map((g) => g.Publisher))].sort();
  if (publishers.length > 64) throw new Error(`the guideline summary has ${publishers.length} publishers; water_quality_index Ids hold 64`);
  await appendRows(conn, 'gl_pub', publishers.map((p, i) => [p, i]), 'main', 'temp');
  // Each location of the build: its type's ecosystem and its regions (all_regions, derive.ts).
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE gl_loc AS
     SELECT l."Id" AS LocationId, l."MonitoringLocationType" AS MonitoringLocationType, e.Ecosystem AS ecosystem,
            coalesce((SELECT list(r."RegionId") FROM all_regions r WHERE r."LocationId" = l."Id"), []) AS regions
     FROM all_locations l LEFT JOIN gl_eco e ON e.MonitoringLocationType = l."MonitoringLocationType"`,
  );
}

/**
 * gl_lg: which guidelines apply to each location's characteristics and media (docs/guidelines.md, "Pairing"),
 * decided once per (location, characteristic, medium) of the build's statistics (all_stats, thousands of rows)
 * rather than per observation: the medium, the ecosystem and the jurisdiction depend on nothing else. The
 * guideline's own columns are copied in, so that pairing an observation is one hash join on this table.
 */
async function applicableGuidelines(conn: DuckDBConnection): Promise<void> {
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE gl_lg AS
     SELECT s."LocationId", s."CharacteristicName", s."ActivityMediaName", l.MonitoringLocationType, g.*
     FROM (SELECT DISTINCT "LocationId", "CharacteristicName", CAST("ActivityMediaName" AS VARCHAR) AS "ActivityMediaName" FROM all_stats) s
     JOIN gl_media m ON m.ActivityMediaName = s."ActivityMediaName"
     JOIN gl_g g ON g.CharacteristicName = s."CharacteristicName" AND g.MediaName = m.MediaName
     JOIN gl_loc l ON l.LocationId = s."LocationId"
     WHERE (g.Ecosystem IS NULL OR g.Ecosystem = CASE WHEN s."ActivityMediaName" = ${literal(marineMedia)} THEN 'Marine' ELSE l.ecosystem END)
       AND list_has_any(g.regions, l.regions)`,
  );
}

/** The FROM and WHERE that pair each observation `o` with each applicable guideline `g`: the rest is per result. */
function pairing(guidelineFilter = 'TRUE'): string {
  return `FROM observations o
     JOIN gl_lg g ON g."LocationId" = o."LocationId" AND g."CharacteristicName" = o."CharacteristicName" AND g."ActivityMediaName" = o."ActivityMediaName"
     WHERE ${guidelineFilter}
       AND (len(g.fractions) = 0 OR o."ResultSampleFraction" IS NULL OR list_contains(g.fractions, o."ResultSampleFraction"))
       AND (g.MethodSpeciation IS NULL OR o."MethodSpeciation" IS NULL OR g.MethodSpeciation = o."MethodSpeciation")`;
}

/** gl_fkeys: each location-day × formula guideline compared on it (the few rows whose inputs are looked up). */
async function formulaDays(conn: DuckDBConnection): Promise<void> {
  await run(conn, `CREATE OR REPLACE TEMP TABLE gl_fkeys AS SELECT DISTINCT o."LocationId", o."ActivityStartDate", g.GuidelineId, g.inputs ${pairing('g.is_formula')}`);
}

/** gl_units: each distinct pair of units the comparisons and inputs convert between, converted once through UCUM. */
async function convertUnits(conn: DuckDBConnection): Promise<void> {
  const inputChars = paired.flatMap((p) => pairedInputs[p].characteristics as readonly string[]);
  const pairs = await all(
    conn,
    `WITH u AS (SELECT DISTINCT "CharacteristicName", "ResultUnit", "ResultDetectionQuantitationLimitUnit" AS limit_unit FROM observations),
     p AS (SELECT DISTINCT g.Unit AS g_unit, u."ResultUnit", u.limit_unit FROM u JOIN gl_g g ON g.CharacteristicName = u."CharacteristicName")
     SELECT g_unit AS "from", coalesce("ResultUnit", limit_unit, '') AS "to" FROM p
     UNION SELECT coalesce(limit_unit, ''), coalesce("ResultUnit", limit_unit, '') FROM p
     UNION SELECT DISTINCT coalesce("ResultUnit", ''), CASE WHEN "CharacteristicName" = 'Temperature, water' THEN 'deg C' ELSE 'mg/L' END
       FROM observations WHERE "CharacteristicName" IN (${inputChars.map(literal).join(', ')})`,
  );
  const rows: [string, string, number, number][] = [];
  for (const p of pairs) {
    const c = conversion(String(p.from), String(p.to));
    if (c) rows.push([String(p.from), String(p.to), c.factor, c.offset]);
  }
  await run(conn, 'CREATE OR REPLACE TEMP TABLE gl_units (from_unit VARCHAR, to_unit VARCHAR, factor DOUBLE, "offset" DOUBLE)');
  await appendRows(conn, 'gl_units', rows, 'main', 'temp');
}

/**
 * gl_in: the inputs of each location-day that a formula guideline is compared on: quantified values converted to
 * the input's unit and averaged, with the Ids they came from; hardness by the hierarchy Total hardness, then
 * Hardness, Ca, Mg, then 2.497·Ca + 4.118·Mg (each Dissolved, else Total).
 */
async function collectInputs(conn: DuckDBConnection): Promise<void> {
  const chars = paired.flatMap((p) => pairedInputs[p].characteristics as readonly string[]);
  const mean = (name: string, where: string) =>
    `avg(v) FILTER (WHERE ${where}) AS ${name}, list(o_id ORDER BY o_id) FILTER (WHERE ${where}) AS ${name}_ids`;
  const is = (c: string, fraction?: string) => `c = ${literal(c)}${fraction ? ` AND f = ${literal(fraction)}` : ''}`;
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE gl_in_raw AS
     WITH days AS (SELECT DISTINCT "LocationId", "ActivityStartDate" FROM gl_fkeys),
     v AS (
       SELECT o."LocationId", o."ActivityStartDate", o."Id" AS o_id, o."CharacteristicName" AS c, o."ResultSampleFraction" AS f,
              CASE WHEN o."CharacteristicName" IN ('pH', 'pH, lab') THEN o."ResultValue" ELSE o."ResultValue" * u.factor + u."offset" END AS v
       FROM observations o
       SEMI JOIN days d ON d."LocationId" = o."LocationId" AND d."ActivityStartDate" = o."ActivityStartDate"
       LEFT JOIN gl_units u ON u.from_unit = coalesce(o."ResultUnit", '')
         AND u.to_unit = CASE WHEN o."CharacteristicName" = 'Temperature, water' THEN 'deg C' ELSE 'mg/L' END
       WHERE o."CharacteristicName" IN (${chars.map(literal).join(', ')}) AND o."ResultValue" IS NOT NULL
     )
     SELECT "LocationId", "ActivityStartDate",
       ${mean('h_total', is('Total hardness'))}, ${mean('h_camg', is('Hardness, Ca, Mg'))},
       ${mean('ca_d', is('Calcium', 'Dissolved'))}, ${mean('ca_t', is('Calcium', 'Total'))},
       ${mean('mg_d', is('Magnesium', 'Dissolved'))}, ${mean('mg_t', is('Magnesium', 'Total'))},
       ${mean('ph_field', is('pH'))}, ${mean('ph_lab', is('pH, lab'))},
       ${mean('temp', is('Temperature, water'))}, ${mean('doc', is('Organic carbon', 'Dissolved'))}
     FROM v WHERE v IS NOT NULL GROUP BY ALL`,
  );
  const unpaired = inputNames.filter((n) => !isPaired(n)).map((n) => `CAST(NULL AS DOUBLE) AS ${inputColumn(n)}`);
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE gl_in AS
     SELECT "LocationId", "ActivityStartDate",
       CASE WHEN h_total IS NOT NULL THEN h_total WHEN h_camg IS NOT NULL THEN h_camg
            WHEN coalesce(ca_d, ca_t) IS NOT NULL AND coalesce(mg_d, mg_t) IS NOT NULL THEN 2.497 * coalesce(ca_d, ca_t) + 4.118 * coalesce(mg_d, mg_t) END AS ${inputColumn('hardness')},
       CASE WHEN h_total IS NOT NULL THEN h_total_ids WHEN h_camg IS NOT NULL THEN h_camg_ids
            WHEN coalesce(ca_d, ca_t) IS NOT NULL AND coalesce(mg_d, mg_t) IS NOT NULL
            THEN list_concat(CASE WHEN ca_d IS NOT NULL THEN ca_d_ids ELSE ca_t_ids END, CASE WHEN mg_d IS NOT NULL THEN mg_d_ids ELSE mg_t_ids END) END AS hardness_ids,
       coalesce(ph_field, ph_lab) AS ${inputColumn('pH')}, CASE WHEN ph_field IS NOT NULL THEN ph_field_ids ELSE ph_lab_ids END AS pH_ids,
       temp AS ${inputColumn('temperature')}, temp_ids AS temperature_ids,
       doc AS ${inputColumn('DOC')}, doc_ids AS DOC_ids,
       ${unpaired.join(', ')}
     FROM gl_in_raw`,
  );
  await run(conn, 'DROP TABLE gl_in_raw');
}

/**
 * gl_fv: each formula guideline's value on each location-day it is compared on, from the SQL its expression
 * compiles to, with the inputs used (JSON) and the sentences for clamped, missing and unpaired inputs.
 */
async function evaluateFormulas(conn: DuckDBConnection, guidelines: readonly Guideline[]): Promise<void> {
  // Only the formulas compared in this build: each is a CASE arm DuckDB binds whether it is used or not.
  const present = new Set((await all(conn, 'SELECT DISTINCT GuidelineId AS id FROM gl_fkeys')).map((r) => Number(r.id)));
  const formulas = guidelines.filter((g) => present.has(g.Id) && g.formula !== undefined && constantOf(g) === undefined);
  const compiled = formulas.map((g) => ({ id: g.Id, ...compileGuideline(g.formula!, inputUnits) }));
  const caseOf = (pick: (c: (typeof compiled)[number]) => string, otherwise: string) =>
    compiled.length === 0 ? otherwise : `CASE k.GuidelineId ${compiled.map((c) => `WHEN ${c.id} THEN ${pick(c)}`).join(' ')} ELSE ${otherwise} END`;
  const clampList = (c: (typeof compiled)[number]) => (c.clamps.length === 0 ? 'CAST([] AS VARCHAR[])' : `list_filter([${c.clamps.join(', ')}], x -> x IS NOT NULL)`);
  const used = (name: InputName) => `list_contains(k.inputs, ${literal(name)})`;
  const missing = inputNames.map((n) =>
    isPaired(n)
      ? `CASE WHEN ${used(n)} AND ${inputColumn(n)} IS NULL THEN ${literal(`no ${n === 'pH' ? 'pH' : n === 'DOC' ? 'dissolved organic carbon' : n === 'temperature' ? 'water temperature' : 'hardness'} measured at this location on this day`)} END`
      : `CASE WHEN ${used(n)} THEN ${literal(`input ${n} is not one Tributary pairs (only hardness, pH, temperature and DOC)`)} END`,
  );
  const inputStructs = paired.map(
    (n) => `CASE WHEN ${used(n)} AND ${inputColumn(n)} IS NOT NULL THEN {'name': ${literal(n)}, 'value': ${inputColumn(n)}, 'unit': ${literal(pairedInputs[n].unit)}, 'observationIds': ${n}_ids} END`,
  );
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE gl_fv AS
     WITH k AS (SELECT * FROM gl_fkeys)
     SELECT k."LocationId", k."ActivityStartDate", k.GuidelineId,
       ${caseOf((c) => c.lo, 'CAST(NULL AS DOUBLE)')} AS lo,
       ${caseOf((c) => c.hi, 'CAST(NULL AS DOUBLE)')} AS hi,
       ${caseOf(clampList, 'CAST([] AS VARCHAR[])')} AS clamps,
       NULLIF(concat_ws('; ', ${missing.join(', ')}), '') AS missing,
       NULLIF(to_json(list_filter([${inputStructs.join(', ')}], x -> x IS NOT NULL))::VARCHAR, '[]') AS inputs_json,
       ${paired.map(inputColumn).join(', ')}
     FROM k LEFT JOIN gl_in i ON i."LocationId" = k."LocationId" AND i."ActivityStartDate" = k."ActivityStartDate"`,
  );
}

/** The comparisons: bounds in the result's unit, the verdict of §4, the reason, in Id order. */
async function writeComparisons(conn: DuckDBConnection): Promise<number> {
  const num = (x: string) => `CAST(round(${x}, 6) AS VARCHAR)`;
  // One statement from the observations to the table: the pairs are never materialised on their own.
  const compared = `
     WITH p AS (
       SELECT o."Id" AS ObservationId, g.GuidelineId, o."DOI", o."LocationId", o."ActivityStartDate", o."ActivityStartYear", o."CharacteristicName",
              o."ResultSampleFraction", o."MethodSpeciation", o."ResultValue", o."ResultUnit", o."ResultDetectionCondition",
              o."ResultDetectionQuantitationLimitMeasure" AS limit_value, o."ResultDetectionQuantitationLimitUnit" AS limit_unit,
              g.MonitoringLocationType, o."ActivityMediaName", o."ActivityGroupType",
              g.Publisher, g.ProtectionLevel, g.Bound, g.Unit AS g_unit, g.is_formula, g.const_lo, g.const_hi
       ${pairing()}
     ), b AS (
       SELECT p.*, coalesce(p."ResultUnit", p.limit_unit) AS r_unit,
         CASE WHEN p.is_formula THEN fv.lo ELSE p.const_lo END AS lo_g,
         CASE WHEN p.is_formula THEN fv.hi ELSE p.const_hi END AS hi_g,
         fv.clamps, fv.missing, fv.inputs_json
       FROM p LEFT JOIN gl_fv fv ON fv."LocationId" = p."LocationId" AND fv."ActivityStartDate" = p."ActivityStartDate" AND fv.GuidelineId = p.GuidelineId
     ), c AS (
       SELECT b.*, ug.factor IS NOT NULL AS converts,
         CASE WHEN b.Bound <> 'maximum' THEN b.lo_g * ug.factor + ug."offset" END AS L,
         CASE WHEN b.Bound <> 'minimum' THEN b.hi_g * ug.factor + ug."offset" END AS U,
         b.limit_value * ud.factor + ud."offset" AS d
       FROM b
       LEFT JOIN gl_units ug ON ug.from_unit = b.g_unit AND ug.to_unit = coalesce(b.r_unit, '')
       LEFT JOIN gl_units ud ON ud.from_unit = coalesce(b.limit_unit, '') AND ud.to_unit = coalesce(b.r_unit, '')
     ), v AS (
       SELECT c.*, c.converts AND ((c.Bound = 'maximum' AND c.U IS NOT NULL) OR (c.Bound = 'minimum' AND c.L IS NOT NULL) OR (c.Bound = 'range' AND c.L IS NOT NULL AND c.U IS NOT NULL)) AS bounded,
         c."ResultDetectionCondition" IN (${belowLimit.map(literal).join(', ')}) AS below, c."ResultDetectionCondition" = ${literal(aboveLimit)} AS above
       FROM c
     ), w AS (
     SELECT v.*,
       CASE
         WHEN NOT v.bounded THEN 'indeterminate'
         WHEN v."ResultValue" IS NOT NULL THEN CASE WHEN v."ResultValue" < v.L OR v."ResultValue" > v.U THEN 'exceeds' ELSE 'meets' END
         WHEN v.d IS NULL THEN 'indeterminate'
         WHEN v.below THEN CASE WHEN v.Bound = 'maximum' THEN CASE WHEN v.d <= v.U THEN 'meets' ELSE 'indeterminate' END
                                ELSE CASE WHEN v.d <= v.L THEN 'exceeds' ELSE 'indeterminate' END END
         WHEN v.above THEN CASE v.Bound WHEN 'maximum' THEN CASE WHEN v.d >= v.U THEN 'exceeds' ELSE 'indeterminate' END
                                        WHEN 'minimum' THEN CASE WHEN v.d >= v.L THEN 'meets' ELSE 'indeterminate' END
                                        ELSE 'indeterminate' END
         ELSE 'indeterminate'
       END AS Verdict
     FROM v)`;
  const bound = `CASE Bound WHEN 'maximum' THEN ${num('U')} WHEN 'minimum' THEN ${num('L')} ELSE ${num('L')} || '–' || ${num('U')} END || ' ' || coalesce(r_unit, '')`;
  // A result with nothing to compare says so alone; otherwise each applicable sentence, in this order.
  const nothing = `"ResultValue" IS NULL AND (limit_value IS NULL OR NOT coalesce(below OR above, false))`;
  const reason = `CASE WHEN ${nothing} THEN coalesce("ResultDetectionCondition" || ': no value or limit to compare', 'no value and no detection condition') ELSE NULLIF(concat_ws('; ',
      CASE WHEN r_unit IS NULL THEN 'the result has no unit'
           WHEN NOT converts THEN 'unit ' || r_unit || ' does not convert to the guideline''s unit ' || CASE WHEN g_unit = '' THEN '(none)' ELSE g_unit END END,
      CASE WHEN is_formula AND lo_g IS NULL AND hi_g IS NULL THEN coalesce(missing, 'the inputs fall outside every case of the formula') END,
      CASE WHEN is_formula AND (lo_g IS NOT NULL OR hi_g IS NOT NULL) AND missing IS NOT NULL THEN missing || ': the value the guideline gives without it is used' END,
      CASE WHEN is_formula AND len(clamps) > 0 THEN array_to_string(clamps, '; ') END,
      CASE WHEN bounded AND "ResultValue" IS NULL THEN
        CASE
          WHEN d IS NULL THEN "ResultDetectionCondition" || ': its limit''s unit ' || coalesce(limit_unit, '(none)') || ' does not convert to ' || r_unit
          WHEN Verdict = 'meets' THEN "ResultDetectionCondition" || ': its limit ' || ${num('d')} || ' ' || r_unit || ' is within the guideline (' || ${bound} || ')'
          WHEN Verdict = 'exceeds' THEN "ResultDetectionCondition" || ': its limit ' || ${num('d')} || ' ' || r_unit || ' is outside the guideline (' || ${bound} || ')'
          WHEN Bound = 'range' AND above THEN "ResultDetectionCondition" || ': a lower limit (' || ${num('d')} || ' ' || r_unit || ') cannot place a result within a range (' || ${bound} || ')'
          ELSE "ResultDetectionCondition" || ': its limit ' || ${num('d')} || ' ' || r_unit || ' is ' || CASE WHEN below THEN 'above' ELSE 'below' END || ' the guideline (' || ${bound} || '), so the result may or may not exceed it'
        END
      END), '') END`;
  const cols = columnNames('guideline_comparisons');
  const exprs: Record<string, string> = {
    Id: 'ObservationId * 4096 + GuidelineId', GuidelineLower: 'L', GuidelineUpper: 'U', Reason: reason, Inputs: 'inputs_json', ResultUnit: 'r_unit',
  };
  const inserted = await run(conn, `INSERT INTO guideline_comparisons (${list(cols)}) ${compared} SELECT ${cols.map((c) => `${exprs[c] ?? ident(c)} AS ${ident(c)}`).join(', ')} FROM w ORDER BY ObservationId, GuidelineId`);
  return inserted;
}

/** The CCME Water Quality Index (CCME 2001, calculator 1.0) per location, year and publisher (shared definitions, §5). */
async function writeWaterQualityIndex(conn: DuckDBConnection): Promise<number> {
  const table: StorageTable = 'water_quality_index';
  const cols = columnNames(table);
  const inserted = await run(
    conn,
    `INSERT INTO ${table} (${list(cols)})
     WITH c AS (
       SELECT "ObservationId", "GuidelineId", "DOI", "LocationId", "ActivityStartYear", "Publisher", "CharacteristicName", "ResultSampleFraction", "MethodSpeciation",
         "ResultValue", "ResultUnit", "Verdict", "GuidelineLower" AS L, "GuidelineUpper" AS U
       FROM guideline_comparisons
       WHERE "ProtectionLevel" LIKE 'Chronic%' AND "Verdict" IN ('meets', 'exceeds')
       QUALIFY row_number() OVER (PARTITION BY "ObservationId", "Publisher" ORDER BY U ASC NULLS LAST, L DESC NULLS LAST, "GuidelineId") = 1
     ), limits AS (
       -- A failed test with no value failed by its limit (a non-detect below a minimum, a result above a maximum's
       -- quantification limit): its excursion is the limit's, in the result's unit as the bounds are.
       SELECT c."ObservationId", o."ResultDetectionQuantitationLimitMeasure" * u.factor + u."offset" AS d
       FROM (SELECT DISTINCT "ObservationId", "ResultUnit" FROM c WHERE "ResultValue" IS NULL AND "Verdict" = 'exceeds') c
       JOIN observations o ON o."Id" = c."ObservationId"
       JOIN gl_units u ON u.from_unit = coalesce(o."ResultDetectionQuantitationLimitUnit", '') AND u.to_unit = coalesce(c."ResultUnit", '')
     ), t AS (
       SELECT "DOI", "LocationId", "ActivityStartYear" AS Year, "Publisher" AS Publisher, "CharacteristicName", coalesce("ResultSampleFraction", '') AS f, coalesce("MethodSpeciation", '') AS s,
         "Verdict" = 'exceeds' AS failed, coalesce("ResultValue", limits.d) AS x, L, U
       FROM c LEFT JOIN limits USING ("ObservationId")
     ), e AS (
       SELECT t.*, CASE WHEN failed THEN CASE WHEN U IS NOT NULL AND x > U THEN x / NULLIF(U, 0) - 1 WHEN L IS NOT NULL AND x < L THEN L / NULLIF(x, 0) - 1 END END AS excursion FROM t
     ), var AS (
       SELECT "DOI", "LocationId", Year, Publisher, "CharacteristicName", f, s, count(*) AS n, count(*) FILTER (WHERE failed) AS nf, coalesce(sum(excursion), 0) AS exc
       FROM e GROUP BY ALL
     ), agg AS (
       SELECT "DOI", "LocationId", Year, Publisher,
         count(*) FILTER (WHERE n >= 4) AS Variables, coalesce(sum(n) FILTER (WHERE n >= 4), 0) AS Tests,
         count(*) FILTER (WHERE n >= 4 AND nf > 0) AS FailedVariables, coalesce(sum(nf) FILTER (WHERE n >= 4), 0) AS FailedTests,
         coalesce(sum(exc) FILTER (WHERE n >= 4), 0) AS exc
       FROM var GROUP BY ALL
     ), f AS (
       SELECT agg.*, Variables >= 4 AS computed,
         CASE WHEN Variables >= 4 THEN 100.0 * FailedVariables / Variables END AS F1,
         CASE WHEN Variables >= 4 THEN 100.0 * FailedTests / Tests END AS F2,
         CASE WHEN Variables >= 4 THEN (exc / Tests) / (0.01 * (exc / Tests) + 0.01) END AS F3
       FROM agg
     ), w AS (SELECT f.*, 100 - sqrt(F1 * F1 + F2 * F2 + F3 * F3) / 1.732 AS WQI FROM f)
     SELECT (w."LocationId" * 16384 + w.Year) * 64 + p.rank AS "Id", w."DOI", w."LocationId", w.Year, w.Publisher, w.Variables, w.Tests, w.FailedVariables, w.FailedTests,
       w.F1, w.F2, w.F3, w.WQI,
       CASE WHEN w.WQI IS NULL THEN NULL WHEN w.WQI >= 95 THEN 'Excellent' WHEN w.WQI >= 80 THEN 'Good' WHEN w.WQI >= 65 THEN 'Fair' WHEN w.WQI >= 45 THEN 'Marginal' ELSE 'Poor' END,
       CASE WHEN NOT w.computed THEN w.Variables || ' variable(s) with at least 4 tests in ' || w.Year || ' against ' || w.Publisher || '''s long-term guidelines; the index needs 4' END
     FROM w JOIN gl_pub p ON p.Publisher = w.Publisher
     ORDER BY "Id"`,
  );
  const bad = await scalarNumber(conn, 'SELECT count(*) FROM water_quality_index WHERE "Year" < 0 OR "Year" >= 16384');
  if (bad > 0) throw new Error(`internal error: ${bad} water quality index row(s) with a year outside 0–16383`);
  return inserted;
}
