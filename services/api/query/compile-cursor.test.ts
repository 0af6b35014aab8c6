/**
 * The cursor query: exact SQL and parameters, then the same SQL text run on the published fixture file, where its
 * rows after the position are the Ids phase one finds there and, byte for byte, the text phase two renders.
 */
import { describe, expect, it } from 'vitest';
import type { TextFormat } from '../formats.js';
import { compileCursorRows } from './compile-cursor.js';
import { compilePageIds, compilePageRows } from './compile-page.js';
import { FILTER_SHAPES, page, run, useFixture } from '../testing/plans.js';

/** A text cell as CSV writes it (schemas/csv-cell.ts): a leading quote where a spreadsheet would read a formula. */
const cell = (c: string) =>
  `CASE WHEN ascii(${c}) IN (61, 64, 9, 13) OR (ascii(${c}) IN (43, 45) AND NOT (translate(${c}[2:], '0123456789.eE+-', '') = '' AND TRY_CAST(${c} AS DOUBLE) IS NOT NULL) ` +
  `AND NOT (length(${c}) = 6 AND ${c}[4:4] = ':' AND length(${c}[2:3] || ${c}[5:6]) = 4 AND translate(${c}[2:3] || ${c}[5:6], '0123456789', '') = '')) THEN chr(39) || ${c} ELSE ${c} END`;

const fixture = useFixture();

const CURSORS: readonly (readonly [resource: string, qs: string, format: TextFormat, sql: string, params: readonly unknown[]])[] = [
  [
    'Records',
    "$select=Id,CharacteristicName,ResultValue&$filter=CharacteristicName eq 'pH'&$skiptoken=Id:1000",
    'json',
    `SELECT t."Id" AS id, json_object('Id', t."Id", 'CharacteristicName', t."CharacteristicName", 'ResultValue', t."ResultValue")::VARCHAR AS row FROM "observations" t WHERE (t."CharacteristicName" = CAST($1 AS VARCHAR)) AND t."Id" > CAST($2 AS BIGINT)`,
    ['pH', 1000n],
  ],
  [
    'Observations',
    '$select=Id,ActivityStartDate,ActivityStartTime,ResultValue&$filter=ActivityStartYear ge 2015 and not (ResultValue lt 1)&$skiptoken=Id:1000',
    'csv',
    `SELECT t."Id" AS id, concat_ws(',', CAST(t."Id" AS VARCHAR), strftime(t."ActivityStartDate", '%Y-%m-%d'), COALESCE(left(CAST(t."ActivityStartTime" AS VARCHAR), 8), ''), COALESCE(CAST(t."ResultValue" AS VARCHAR), '')) AS row FROM "observations" t WHERE ((t."ActivityStartYear" >= CAST($1 AS BIGINT)) AND (NOT COALESCE(t."ResultValue" < CAST($2 AS DOUBLE), false))) AND t."Id" > CAST($3 AS BIGINT)`,
    [2015n, 1, 1000n],
  ],
  [
    'Records',
    '$select=Id,DOI',
    'csv',
    `SELECT t."Id" AS id, concat_ws(',', CAST(t."Id" AS VARCHAR), '"' || replace(${cell('t."DOI"')}, '"', '""') || '"') AS row FROM "observations" t`,
    [],
  ],
];

describe('compileCursorRows: golden SQL and parameters', () => {
  it.each(CURSORS)('%s ? %s (%s)', (resource, qs, format, sql, params) => {
    const compiled = compileCursorRows(page(resource, qs), format);
    expect(compiled.sql).toBe(sql);
    expect(compiled.params).toEqual(params);
  });

  it.each(CURSORS)('on the fixture file: %s ? %s (%s) continues with the rows of the next pages', async (resource, qs, format) => {
    const p = page(resource, qs);
    const rows = await run(fixture(), compileCursorRows(p, format));
    // Stored order is the cursor's business (EXPLAIN, db/extract); here only which rows and which text.
    const cursor = rows.map((r) => ({ id: r['id'] as bigint, row: String(r['row']) })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const ids = (await run(fixture(), compilePageIds(p, { ordered: true, limit: 300 }))).map((r) => r['Id'] as bigint);
    expect(ids.length).toBeGreaterThan(1);
    expect(cursor.slice(0, ids.length).map((r) => r.id)).toEqual(ids);
    const window = await run(fixture(), compilePageRows(p, { first: ids[0]!, last: ids[ids.length - 1]! }, format));
    expect(cursor.slice(0, ids.length).map((r) => r.row)).toEqual(window.map((r) => String(r['row'])));
  });
});

describe('compileCursorRows: every filter shape runs on the fixture file', () => {
  it.each(FILTER_SHAPES)('%s ? %s', async (resource, qs) => {
    for (const format of ['json', 'csv'] as const) await run(fixture(), compileCursorRows(page(resource, qs), format));
  });
});
