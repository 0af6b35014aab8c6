/**
 * The MCP tools' names and what each does: the contract of issue 49, read by the tools' registration (tools.ts),
 * llms.txt and OpenAPI, so all three say the same.
 */
import { APPLY_RESOURCES } from '../query/plan-apply.js';

/** `query` never returns more rows than this: an assistant's context is no place for an extract (use the export). */
export const MAX_QUERY_ROWS = 1000;

/** What each tool does, as its description says it and llms.txt lists it. */
export const TOOLS = {
  describe: 'The fields of a resource with their types and meaning, which ones $filter accepts, and its row count.',
  search_datasets: 'Datasets whose name, abstract, keywords or organisations contain every word of `text`, ranked (a word in the name first), optionally only those with observations in a region or of a characteristic; each with its DOI, rows, extent (first and last date, bounding box), licence and landing page.',
  list_values: `The distinct values of a dimension (describe lists each resource's groupBy) with the exact number of rows of each, under an optional $filter. Offered on the resources that aggregate (${APPLY_RESOURCES.join(', ')}).`,
  count: 'The exact number of rows of a resource a $filter matches, and the pinned URL of that count.',
  query: `At most ${MAX_QUERY_ROWS} rows of a resource, always with the total the filter matches, the pinned URL of the whole result, its export URLs (Parquet and CSV) and its citation: the rows are a sample when total exceeds returned.`,
  aggregate:
    `An OData $apply on a resource that aggregates (${APPLY_RESOURCES.join(', ')}), e.g. filter(CharacteristicName eq 'pH')/groupby((RegionId,ActivityStartYear),aggregate($count as Count)); ` +
    '`orderby` and `top` sort the groups and keep the first n ("the ten sites with the most exceedances": orderby Count desc, top 10); ' +
    'an answer that stops before the last group gives `next`: pass it back as `next` to continue.',
  cite: 'What to credit for the rows a $filter selects: every dataset with rows in it, as text and as CSL-JSON, with the cited query pinned to its publication.',
} as const;
