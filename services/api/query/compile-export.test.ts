/**
 * The export query: exact SQL, parameters and COPY options per format, then the same SQL text run on the published
 * fixture file, where it returns exactly the rows and text the pages return for the same filter.
 */
import { describe, expect, it } from 'vitest';
import { wkbPointSql } from '../../../schemas/geoparquet.js';
import type { ExportFormat } from '../export-formats.js';
import { compileExport } from './compile-export.js';
import { compilePageIds, compilePageRows } from './compile-page.js';
import { FILTER_SHAPES, page, run, useFixture } from '../testing/plans.js';

/** A text cell as CSV writes it (schemas/csv-cell.ts): a leading quote where a spreadsheet would read a formula. */
const cell = (c: string) =>
  `CASE WHEN ascii(${c}) IN (61, 64, 9, 13) OR (ascii(${c}) IN (43, 45) AND NOT (translate(${c}[2:], '0123456789.eE+-', '') = '' AND TRY_CAST(${c} AS DOUBLE) IS NOT NULL) ` +
  `AND NOT (length(${c}) = 6 AND ${c}[4:4] = ':' AND length(${c}[2:3] || ${c}[5:6]) = 4 AND translate(${c}[2:3] || ${c}[5:6], '0123456789', '') = '')) THEN chr(39) || ${c} ELSE ${c} END`;

const fixture = useFixture();

const TEXT_OPTIONS = (newline: string) => `FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\x01', NEW_LINE '${newline}'`;
const PH = "$select=Id,CharacteristicName,ResultValue&$filter=CharacteristicName eq 'pH'";
const PH_WHERE = `FROM "observations" t WHERE (t."CharacteristicName" = CAST($1 AS VARCHAR))`;
const LOCATIONS_PH = "$select=Id,Name&$filter=CharacteristicName eq 'pH'";
/** GeoParquet's columns after the fields, whatever $select names; the WKB's bytes are pinned by schemas/geoparquet.test.ts. */
const [LON, LAT] = ['t."MonitoringLocationLongitude"', 't."MonitoringLocationLatitude"'];
const GEO_COLUMNS = `${wkbPointSql(LON, LAT)} AS "geometry", struct_pack(xmin := ${LON}, ymin := ${LAT}, xmax := ${LON}, ymax := ${LAT}) AS "bbox"`;

const EXPORTS: readonly (readonly [resource: string, qs: string, format: ExportFormat, sql: string, params: readonly unknown[], options: string | undefined])[] = [
  ['Records', PH, 'parquet', `SELECT t."Id" AS "Id", t."CharacteristicName" AS "CharacteristicName", t."ResultValue" AS "ResultValue", ${GEO_COLUMNS} ${PH_WHERE}`, ['pH'], 'FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880'],
  [
    'Records',
    PH,
    'csv',
    `SELECT concat_ws(',', CAST(t."Id" AS VARCHAR), '"' || replace(${cell('t."CharacteristicName"')}, '"', '""') || '"', COALESCE(CAST(t."ResultValue" AS VARCHAR), '')) AS row ${PH_WHERE}`,
    ['pH'],
    TEXT_OPTIONS('\\r\\n'),
  ],
  ['Records', PH, 'ndjson', `SELECT json_object('Id', t."Id", 'CharacteristicName', t."CharacteristicName", 'ResultValue', t."ResultValue")::VARCHAR AS row ${PH_WHERE}`, ['pH'], TEXT_OPTIONS('\\n')],
  ['Records', PH, 'arrow', `SELECT t."Id" AS id, t."Id" AS c0, t."CharacteristicName" AS c1, t."ResultValue" AS c2, concat(t."CharacteristicName") AS text_bytes ${PH_WHERE}`, ['pH'], undefined],
  [
    'Locations',
    LOCATIONS_PH,
    'csv',
    `SELECT concat_ws(',', CAST(t."Id" AS VARCHAR), '"' || replace(${cell('t."Name"')}, '"', '""') || '"') AS row FROM "locations" t WHERE EXISTS (SELECT 1 FROM "observation_stats" s WHERE s."LocationId" = t."Id" AND (s."CharacteristicName" = CAST($1 AS VARCHAR)))`,
    ['pH'],
    TEXT_OPTIONS('\\r\\n'),
  ],
];

/** Every Id the filter matches, in Id order: what the pages return one after another. */
async function pageIds(resource: string, qs: string): Promise<bigint[]> {
  return (await run(fixture(), compilePageIds(page(resource, qs), { ordered: true, limit: 1_000_000 }))).map((r) => r['Id'] as bigint);
}

describe('compileExport: golden SQL, parameters and COPY options', () => {
  it.each(EXPORTS)('%s ? %s (%s)', (resource, qs, format, sql, params, options) => {
    const compiled = compileExport(page(resource, qs), format);
    expect(compiled.query.sql).toBe(sql);
    expect(compiled.query.params).toEqual(params);
    expect(compiled.kind === 'copy' ? compiled.options : undefined).toBe(options);
  });

  it("Parquet's bbox: a query with the export's filter, whose answer completes the COPY's options with GeoParquet's geo", () => {
    const compiled = compileExport(page('Records', PH), 'parquet');
    if (compiled.kind !== 'copy' || !compiled.geo) throw new Error('a Parquet export has geo options');
    expect(compiled.geo.bounds).toEqual({ sql: `SELECT min(${LON}) AS xmin, min(${LAT}) AS ymin, max(${LON}) AS xmax, max(${LAT}) AS ymax ${PH_WHERE}`, params: ['pH'] });
    const options = compiled.geo.options([-120.5, 44.6, -63.5, 62.5]);
    expect(options.startsWith('FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880, KV_METADATA {geo: \'{"version":"1.1.0"')).toBe(true);
    expect(options).toContain('"bbox":[-120.5,44.6,-63.5,62.5]');
    expect(compiled.geo.options(undefined)).not.toContain('"bbox":[');
  });

  it.each(EXPORTS)('on the fixture file: %s ? %s (%s) is every row the pages return', async (resource, qs, format) => {
    const p = page(resource, qs);
    const rows = await run(fixture(), compileExport(p, format).query);
    const ids = await pageIds(resource, qs);
    expect(ids.length).toBeGreaterThan(1);
    // Order is compared where the resource's table is scanned alone; a query with a semi-join (EXISTS) on
    // DuckDB's threads need not return the table's order, so there only which rows.
    const inOrder = p.resource.table === 'observations' ? <T>(xs: T[]) => xs : <T>(xs: T[]) => xs.map(String).sort();
    if (format === 'arrow') expect(inOrder(rows.map((r) => r['id']))).toEqual(inOrder(ids));
    if (format === 'parquet') expect(inOrder(rows.map((r) => r['Id']))).toEqual(inOrder(ids));
    if (format === 'csv' || format === 'ndjson') {
      const window = await run(fixture(), compilePageRows(p, { first: ids[0]!, last: ids[ids.length - 1]! }, format === 'csv' ? 'csv' : 'json'));
      expect(inOrder(rows.map((r) => String(r['row'])))).toEqual(inOrder(window.map((r) => String(r['row']))));
    }
  });
});

describe('compileExport: every filter shape runs on the fixture file', () => {
  it.each(FILTER_SHAPES)('%s ? %s', async (resource, qs) => {
    // Parquet's typed columns are the export's own; the text and Arrow columns are the pages' (compile-page.test.ts).
    for (const format of ['parquet', 'csv'] as const) await run(fixture(), compileExport(page(resource, qs), format).query);
  });
});
