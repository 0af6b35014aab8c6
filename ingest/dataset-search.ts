import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames } from '../schemas/index.js';
import { list } from './build-tables.js';
import { run } from './db.js';

/**
 * A step of the statistics stage (issue 56 item 4): `dataset_search`, what MCP's `search_datasets` reads instead of
 * the whole Metadata page and the DCAT catalogue per call. One row per dataset of the build, in DOI order: its text
 * lower-cased once here (the API lower-cases the words it is asked for with the same function, so both sides case
 * alike), by where it comes from, so the API ranks a word in a name above one in an abstract; and its locations'
 * bounding box (the DCAT catalogue's dcat:bbox, the same min and max). A delta build holds only its datasets' rows;
 * the merge drops a replaced dataset's row by DOI, appends the delta's and rewrites the table in DOI order.
 */
export async function writeDatasetSearch(conn: DuckDBConnection): Promise<void> {
  // One line per source: a word never spans two fields.
  const lines = (...parts: string[]) => `lower(concat_ws(chr(10), ${parts.join(', ')}))`;
  const keywords = `array_to_string(d."Keywords", chr(10))`;
  await run(
    conn,
    `INSERT INTO dataset_search (${list(columnNames('dataset_search'))})
     SELECT d."Id", d."DOI",
       ${lines('d."DatasetName"')}, ${lines(keywords)}, ${lines('d."DataCollectionOrganization"', 'd."DataUploadOrganization"')},
       ${lines('d."DatasetName"', 'd."Abstract"', 'd."DataCollectionOrganization"', 'd."DataUploadOrganization"', keywords)},
       b.west, b.south, b.east, b.north
     FROM all_datasets d
     LEFT JOIN (SELECT "DOI", min("Longitude") AS west, min("Latitude") AS south, max("Longitude") AS east, max("Latitude") AS north FROM all_locations GROUP BY "DOI") b ON b."DOI" = d."DOI"
     ORDER BY d."DOI"`,
  );
}
