import type { DuckDBConnection } from '@duckdb/node-api';
import { guidelineFields } from '../../schemas/guideline-fields.js';
import { columnNames } from '../../schemas/index.js';
import { appendRows, type AppendValue } from '../db.js';
import type { Guideline } from './guideline-table.js';

/**
 * The first step: the summary as served into `guidelines`, whole in every publish. Through the appender: as JSON
 * read by from_json, DuckDB parsed the whole summary's text again in every publish, for a table each publish
 * writes whole.
 */
export async function writeGuidelines(conn: DuckDBConnection, guidelines: readonly Guideline[]): Promise<void> {
  // The appender fills columns by position: the table's own order, each value typed by its field.
  const types = new Map(guidelineFields.map((f) => [f.column, f.type]));
  const value = (g: Guideline, column: string): AppendValue => {
    const v = (g as unknown as Record<string, string | number | readonly string[] | null>)[column] ?? null;
    return types.get(column) === 'integer' && typeof v === 'number' ? BigInt(v) : v;
  };
  const columns = columnNames('guidelines');
  await appendRows(conn, 'guidelines', guidelines.map((g) => columns.map((c) => value(g, c))));
}
