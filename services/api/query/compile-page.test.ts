/**
 * Phase one (the page's Ids) and phase two (the rows of their window): exact SQL and parameters, then the same SQL
 * text run on the published fixture file, where phase two must return exactly the rows phase one found.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import type { Format } from '../formats.js';
import { compilePageIds, compilePageRows, type PageQueryOptions } from './compile-page.js';
import type { Key } from './plan.js';
import { FILTER_SHAPES, page, run, useFixture } from '../testing/plans.js';

/** A text cell as CSV writes it (schemas/csv-cell.ts): a leading quote where a spreadsheet would read a formula. */
const cell = (c: string) =>
  `CASE WHEN ascii(${c}) IN (61, 64, 9, 13) OR (ascii(${c}) IN (43, 45) AND NOT (translate(${c}[2:], '0123456789.eE+-', '') = '' AND TRY_CAST(${c} AS DOUBLE) IS NOT NULL) ` +
  `AND NOT (length(${c}) = 6 AND ${c}[4:4] = ':' AND length(${c}[2:3] || ${c}[5:6]) = 4 AND translate(${c}[2:3] || ${c}[5:6], '0123456789', '') = '')) THEN chr(39) || ${c} ELSE ${c} END`;

const fixture = useFixture();

describe('compilePageIds: golden SQL and parameters', () => {
  it.each([
    [
      'Observations',
      "$filter=CharacteristicName eq 'pH'&$top=10",
      `SELECT t."Id" FROM "observations" t WHERE (t."CharacteristicName" = CAST($1 AS VARCHAR)) LIMIT 11`,
      ['pH'],
    ],
    [
      'Observations',
      "$filter=LocationId eq '42' and ActivityStartYear ge 2015&$skiptoken=Id:1000",
      `SELECT t."Id" FROM "observations" t WHERE ((t."LocationId" = CAST($1 AS BIGINT)) AND (t."ActivityStartYear" >= CAST($2 AS BIGINT))) AND t."Id" > CAST($3 AS BIGINT) LIMIT 1001`,
      [42n, 2015n, 1000n],
    ],
    [
      'Records',
      "$filter=RegionId eq 'admin.4.ca.ab' and not (DOI in ('10.25976/aaaa-aa11','10.25976/bbbb-bb22'))",
      `SELECT t."Id" FROM "observations" t WHERE ((t."LocationId" IN (SELECT "LocationId" FROM "location_regions" WHERE "RegionId" = CAST($1 AS VARCHAR))) AND (NOT (t."DOI" IN (CAST($2 AS VARCHAR), CAST($3 AS VARCHAR))))) LIMIT 1001`,
      ['admin.4.ca.ab', '10.25976/aaaa-aa11', '10.25976/bbbb-bb22'],
    ],
    [
      'Locations',
      "$filter=CharacteristicName eq 'pH' and ActivityStartYear eq 2020",
      `SELECT t."Id" FROM "locations" t WHERE EXISTS (SELECT 1 FROM "observation_stats" s WHERE s."LocationId" = t."Id" AND ((s."CharacteristicName" = CAST($1 AS VARCHAR)) AND (s."ActivityStartYear" = CAST($2 AS BIGINT)))) ORDER BY t."Id" LIMIT 1001`,
      ['pH', 2020n],
    ],
    [
      'Metadata',
      "$filter=CreateTimestamp gt '2020-03-23' and Latitude gt 49",
      `SELECT t."Id" FROM "datasets" t WHERE EXISTS (SELECT 1 FROM "locations" l WHERE l."DOI" = t."DOI" AND ((t."CreateTimestamp" > CAST($1 AS TIMESTAMP)) AND (l."Latitude" > CAST($2 AS DOUBLE)))) ORDER BY t."Id" LIMIT 1001`,
      ['2020-03-23 00:00:00.000', 49],
    ],
    [
      'Observations',
      "$filter=CharacteristicName eq 'pH' and ResultValue gt 9 and ActivityStartDate ge 2020-06-01",
      `SELECT t."Id" FROM "observations" t WHERE (((t."CharacteristicName" = CAST($1 AS VARCHAR)) AND (t."ResultValue" > CAST($2 AS DOUBLE))) AND (t."ActivityStartDate" >= CAST($3 AS DATE))) LIMIT 1001`,
      ['pH', 9, '2020-06-01'],
    ],
    [
      'Locations',
      "$filter=CharacteristicName eq 'pH' and ResultValue gt 9",
      `SELECT t."Id" FROM "locations" t WHERE EXISTS (SELECT 1 FROM "observations" o WHERE o."LocationId" = t."Id" AND ((o."CharacteristicName" = CAST($1 AS VARCHAR)) AND (o."ResultValue" > CAST($2 AS DOUBLE)))) ORDER BY t."Id" LIMIT 1001`,
      ['pH', 9],
    ],
    [
      'Metadata',
      "$filter=ResultValue gt 9 and Latitude gt 49 and RegionId eq 'admin.2.ca'",
      `SELECT t."Id" FROM "datasets" t WHERE EXISTS (SELECT 1 FROM "observations" o JOIN "locations" l ON l."Id" = o."LocationId" WHERE o."DOI" = t."DOI" AND (((o."ResultValue" > CAST($1 AS DOUBLE)) AND (l."Latitude" > CAST($2 AS DOUBLE))) AND (o."LocationId" IN (SELECT "LocationId" FROM "location_regions" WHERE "RegionId" = CAST($3 AS VARCHAR))))) ORDER BY t."Id" LIMIT 1001`,
      [9, 49, 'admin.2.ca'],
    ],
    [
      // Under `not`, a comparison with a null value must be false rather than unknown, or NOT would drop the row.
      'Records',
      '$filter=not (ResultValue gt 9) and ResultValue lt 20',
      `SELECT t."Id" FROM "observations" t WHERE ((NOT COALESCE(t."ResultValue" > CAST($1 AS DOUBLE), false)) AND (t."ResultValue" < CAST($2 AS DOUBLE))) LIMIT 1001`,
      [9, 20],
    ],
  ])('%s ? %s', (resource, qs, sql, params) => {
    const compiled = compilePageIds(page(resource, qs));
    expect(compiled.sql).toBe(sql);
    expect(compiled.params).toEqual(params);
  });

  it('region ranges and a limit of its own: Id ranges first, no ORDER BY when the scan keeps order', () => {
    const q = compilePageIds(page('Records', "$filter=CharacteristicName eq 'pH'&$skiptoken=Id:10"), { ordered: false, limit: 50, idRanges: [[1n, 20n], [40n, 60n]] });
    expect(q.sql).toBe(
      `SELECT t."Id" FROM "observations" t WHERE (t."Id" BETWEEN CAST($1 AS BIGINT) AND CAST($2 AS BIGINT) OR t."Id" BETWEEN CAST($3 AS BIGINT) AND CAST($4 AS BIGINT)) AND (t."CharacteristicName" = CAST($5 AS VARCHAR)) AND t."Id" > CAST($6 AS BIGINT) LIMIT 50`,
    );
    expect(q.params).toEqual([1n, 20n, 40n, 60n, 'pH', 10n]);
    expect(compilePageIds(page('Records', ''), { ordered: true, idRanges: [] }).sql).toBe('SELECT t."Id" FROM "observations" t WHERE false ORDER BY t."Id" LIMIT 1001');
  });
});

interface RowsCase {
  readonly name: string;
  readonly resource: string;
  readonly qs: string;
  readonly format: Format;
  readonly opts?: PageQueryOptions;
  readonly window: { first: Key; last: Key };
  readonly sql: string;
  readonly params: readonly unknown[];
}

const METADATA_WINDOW = { first: '0b8e9c56-8a2f-4a8a-9a55-1f2d3c4b5a69', last: 'fb8e9c56-8a2f-4a8a-9a55-1f2d3c4b5a69' };
const ROWS: readonly RowsCase[] = [
  {
    name: 'JSON: json_object in catalogue order, values as DuckDB renders them',
    resource: 'Records',
    qs: "$select=Id,DOI,ResultValue,ActivityStartDate,ActivityStartTime&$filter=CharacteristicName eq 'pH'",
    format: 'json',
    window: { first: 100n, last: 200n },
    sql: `SELECT json_object('Id', t."Id", 'DOI', t."DOI", 'ActivityStartDate', t."ActivityStartDate", 'ActivityStartTime', t."ActivityStartTime", 'ResultValue', t."ResultValue")::VARCHAR AS row FROM "observations" t WHERE t."Id" BETWEEN CAST($1 AS BIGINT) AND CAST($2 AS BIGINT) AND (t."CharacteristicName" = CAST($3 AS VARCHAR)) ORDER BY t."Id"`,
    params: [100n, 200n, 'pH'],
  },
  {
    name: 'CSV: text quoted, dates and times formatted, nullable columns empty when null',
    resource: 'Records',
    qs: "$select=Id,DOI,ResultValue,ActivityStartDate,ActivityStartTime&$filter=CharacteristicName eq 'pH'",
    format: 'csv',
    window: { first: 100n, last: 200n },
    sql: `SELECT concat_ws(',', CAST(t."Id" AS VARCHAR), '"' || replace(${cell('t."DOI"')}, '"', '""') || '"', strftime(t."ActivityStartDate", '%Y-%m-%d'), COALESCE(left(CAST(t."ActivityStartTime" AS VARCHAR), 8), ''), COALESCE(CAST(t."ResultValue" AS VARCHAR), '')) AS row FROM "observations" t WHERE t."Id" BETWEEN CAST($1 AS BIGINT) AND CAST($2 AS BIGINT) AND (t."CharacteristicName" = CAST($3 AS VARCHAR)) ORDER BY t."Id"`,
    params: [100n, 200n, 'pH'],
  },
  {
    name: 'CSV on Metadata: UUID keys, lists joined by ;, timestamps in ISO 8601 UTC',
    resource: 'Metadata',
    qs: '$select=Id,Keywords,CreateTimestamp,TemporalExtent',
    format: 'csv',
    window: METADATA_WINDOW,
    sql: `SELECT concat_ws(',', CAST(t."Id" AS VARCHAR), COALESCE('"' || replace(${cell(`array_to_string(t."Keywords", ';')`)}, '"', '""') || '"', ''), COALESCE(strftime(t."CreateTimestamp", '%Y-%m-%dT%H:%M:%S.%gZ'), ''), COALESCE('"' || array_to_string(list_transform(t."TemporalExtent", d -> strftime(d, '%Y-%m-%d')), ';') || '"', '')) AS row FROM "datasets" t WHERE t."Id" BETWEEN CAST($1 AS UUID) AND CAST($2 AS UUID) ORDER BY t."Id"`,
    params: [METADATA_WINDOW.first, METADATA_WINDOW.last],
  },
  {
    name: 'JSON on Metadata: timestamps formatted, lists as JSON arrays',
    resource: 'Metadata',
    qs: '$select=Id,Keywords,CreateTimestamp,TemporalExtent',
    format: 'json',
    window: METADATA_WINDOW,
    sql: `SELECT json_object('Id', t."Id", 'Keywords', t."Keywords", 'CreateTimestamp', strftime(t."CreateTimestamp", '%Y-%m-%dT%H:%M:%S.%gZ'), 'TemporalExtent', t."TemporalExtent")::VARCHAR AS row FROM "datasets" t WHERE t."Id" BETWEEN CAST($1 AS UUID) AND CAST($2 AS UUID) ORDER BY t."Id"`,
    params: [METADATA_WINDOW.first, METADATA_WINDOW.last],
  },
  {
    name: 'Arrow on Locations: the Id and typed columns, the finer filter through EXISTS',
    resource: 'Locations',
    qs: "$select=Id,ID,Name,Latitude&$filter=CharacteristicName eq 'pH'",
    format: 'arrow',
    window: { first: 1n, last: 40n },
    sql: `SELECT t."Id" AS id, t."Id" AS c0, t."MonitoringLocationID" AS c1, t."Name" AS c2, t."Latitude" AS c3, concat(t."MonitoringLocationID", t."Name") AS text_bytes FROM "locations" t WHERE t."Id" BETWEEN CAST($1 AS BIGINT) AND CAST($2 AS BIGINT) AND EXISTS (SELECT 1 FROM "observation_stats" s WHERE s."LocationId" = t."Id" AND (s."CharacteristicName" = CAST($3 AS VARCHAR))) ORDER BY t."Id"`,
    params: [1n, 40n, 'pH'],
  },
  {
    name: "region ranges: the window, then the regions' Id ranges clipped to it, then the rest of the filter",
    resource: 'Observations',
    qs: '$select=Id,LocationId,ResultValue&$filter=not (ResultValue gt 9)',
    format: 'csv',
    opts: { ordered: true, idRanges: [[1n, 50n], [400n, 500n]] },
    window: { first: 1n, last: 500n },
    sql: `SELECT concat_ws(',', CAST(t."Id" AS VARCHAR), CAST(t."LocationId" AS VARCHAR), COALESCE(CAST(t."ResultValue" AS VARCHAR), '')) AS row FROM "observations" t WHERE t."Id" BETWEEN CAST($1 AS BIGINT) AND CAST($2 AS BIGINT) AND (t."Id" BETWEEN CAST($3 AS BIGINT) AND CAST($4 AS BIGINT) OR t."Id" BETWEEN CAST($5 AS BIGINT) AND CAST($6 AS BIGINT)) AND (NOT COALESCE(t."ResultValue" > CAST($7 AS DOUBLE), false)) ORDER BY t."Id"`,
    params: [1n, 500n, 1n, 50n, 400n, 500n, 9],
  },
];

/** The fields of one RFC 4180 line (no line break): quoted fields may hold commas and doubled quotes. */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let at = 0;
  while (at <= line.length) {
    if (line[at] === '"') {
      let end = at + 1;
      while (end < line.length && !(line[end] === '"' && line[end + 1] !== '"')) end += line[end] === '"' ? 2 : 1;
      fields.push(line.slice(at + 1, end).replaceAll('""', '"'));
      at = end + 2;
    } else {
      const end = line.indexOf(',', at) === -1 ? line.length : line.indexOf(',', at);
      fields.push(line.slice(at, end));
      at = end + 1;
    }
  }
  return fields;
}

/** A row's key and its field names (JSON) or count (CSV, Arrow), whatever the format. */
function rowShape(row: Record<string, DuckDBValue>, format: Format): { id: string; fields: number; names?: string[] } {
  // Arrow: the Id, the typed columns and their text bytes (render-row.ts TEXT_BYTES_COLUMN).
  if (format === 'arrow') return { id: String(row['id']), fields: Object.keys(row).filter((k) => k !== 'id' && k !== 'text_bytes').length };
  const text = String(row['row']);
  if (format === 'csv') {
    const fields = csvFields(text);
    return { id: fields[0]!, fields: fields.length };
  }
  const object = JSON.parse(text) as Record<string, unknown>;
  return { id: String(object['Id']), fields: Object.keys(object).length, names: Object.keys(object) };
}

describe('compilePageRows: golden SQL and parameters of phase two', () => {
  it.each(ROWS)('$name', ({ resource, qs, format, opts, window, sql, params }) => {
    const compiled = compilePageRows(page(resource, qs), window, format, opts);
    expect(compiled.sql).toBe(sql);
    expect(compiled.params).toEqual(params);
  });

  it.each(ROWS)('on the fixture file, the same SQL reads exactly the rows phase one found: $name', async ({ resource, qs, format, opts, sql }) => {
    const p = page(resource, qs);
    const found = await run(fixture(), compilePageIds(p, { ordered: true, limit: 100, ...(opts?.idRanges ? { idRanges: opts.idRanges } : {}) }));
    const ids = found.map((r) => (typeof r['Id'] === 'bigint' ? r['Id'] : String(r['Id'])));
    expect(ids.length).toBeGreaterThan(1);
    const compiled = compilePageRows(p, { first: ids[0]!, last: ids[ids.length - 1]! }, format, opts);
    expect(compiled.sql).toBe(sql);
    const shapes = (await run(fixture(), compiled)).map((row) => rowShape(row, format));
    expect(shapes.map((s) => s.id)).toEqual(ids.map(String));
    for (const s of shapes) {
      expect(s.fields).toBe(p.fields.length);
      if (s.names) expect(s.names).toEqual(p.fields.map((f) => f.name));
    }
  });
});

describe('compilePageIds and compilePageRows: every filter shape runs on the fixture file', () => {
  it.each(FILTER_SHAPES)('%s ? %s', async (resource, qs) => {
    const p = page(resource, qs);
    await run(fixture(), compilePageIds(p));
    const key = p.resource.table === 'datasets' ? '0b8e9c56-8a2f-4a8a-9a55-1f2d3c4b5a69' : 1n;
    for (const format of ['json', 'csv', 'arrow'] as const) await run(fixture(), compilePageRows(p, { first: key, last: key }, format));
  });
});
