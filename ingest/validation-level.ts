import type { ValidationLevel } from '../schemas/metadata-schema.js';
import { rowChecks, type CheckKind, type RowCheck } from './row-checks.js';
import { rowOkSql } from './validate-sql.js';

/**
 * A dataset's validation level (`ValidationLevel` in metadata.json) sorts the checks of row-checks.ts into errors,
 * which reject the row, and warnings, which are counted per rule and written to the rejects file:
 *
 * - `upstream` (the default): DataStream schema 3.0.0's upload rules, as DataStream's uploader applies them.
 * - `storable`: for data published elsewhere (an older schema, another portal): only what the API cannot store or
 *   serve is an error — a column it stores a row or location with left empty, a number, date or time that is not
 *   one, a coordinate off the globe. Upstream's vocabularies, its ResultValueType requirement and its rules are
 *   warnings, counted per rule and check, each row in the rejects file.
 */

const storableErrors: ReadonlySet<CheckKind> = new Set(['required-stored', 'type']);

export interface LevelChecks {
  readonly errors: readonly RowCheck[];
  readonly warnings: readonly RowCheck[];
}

export function levelChecks(level: ValidationLevel): LevelChecks {
  const isError = (c: RowCheck) => (level === 'upstream' ? c.kind !== 'quality' : storableErrors.has(c.kind));
  return { errors: rowChecks.filter(isError), warnings: rowChecks.filter((c) => !isError(c)) };
}

/** Upstream's errors that `storable` counts as warnings (its quality-control warnings are counted as at every level). */
export const demotedChecks: readonly RowCheck[] = levelChecks('storable').warnings.filter((c) => c.kind !== 'quality');

/** SQL true when a row passes the level's errors; at `upstream` the one verdict of validate-sql.ts. */
export function rowOkAtSql(level: ValidationLevel): string {
  if (level === 'upstream') return rowOkSql();
  return levelChecks(level).errors.map((c) => c.ok).join('\n  AND ');
}
