/**
 * The repository's UCUM conversion (ingest/unit-conversion.ts, the table the guideline comparisons use) in the shape
 * the statistics oracle takes (km-rows.ts `Convert`): ../shared/statistics/README.md §2.3 names that table as the
 * conversion of a limit into its group's unit. The oracle rounds; this converts.
 */
import { conversion } from '../../ingest/unit-conversion.js';
import type { Convert } from './km-rows.js';

export const ucumConvert: Convert = (value, from, to) => {
  const c = conversion(from, to);
  return c === undefined ? undefined : value * c.factor + c.offset;
};
