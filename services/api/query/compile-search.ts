/**
 * The datasets whose words match (issue 56 item 4), read from `dataset_search`, the index ingest writes at publish:
 * every word must appear in the dataset's text (name, abstract, keywords, organisations), as a substring, case
 * aside; a Metadata `$filter` narrows them (a region, a characteristic: "has such an observation", resourceWhere).
 * Ranked by where the words are found, a name above the keywords above the organisations above the abstract, then
 * by DOI; `count(*) OVER ()` is every match, before the limit.
 *
 * The words are bound, each once and lower-cased by DuckDB's `lower`, the function that lower-cased the index.
 *
 * @example
 * compileSearch(countPlanOfMetadata, ['river'], 50).sql
 * // SELECT CAST(t."Id" AS VARCHAR) AS "Id", … (CASE WHEN contains(q."NameText", lower(CAST($1 AS VARCHAR))) THEN 4 ELSE 0 END + …) AS "Score",
 * //   count(*) OVER () AS "Matched" FROM "datasets" t JOIN "dataset_search" q ON q."DatasetId" = t."Id"
 * //   WHERE contains(q."SearchText", lower(CAST($1 AS VARCHAR))) ORDER BY "Score" DESC, t."DOI" LIMIT CAST($2 AS BIGINT)
 */
import type { CountPlan } from './plan.js';
import { resourceTable, resourceWhere, whereClause } from './resource-where.js';
import { column, ident, Params, type CompiledQuery } from './sql.js';
import { DATASET_SEARCH, RESOURCE_ALIAS, sourceColumn, sourceTable } from './source.js';

/** How much a word found in each part of a dataset's text counts towards its rank. */
const WEIGHTS = { NameText: 4, KeywordText: 2, OrganisationText: 1 } as const;

const t = (name: string) => column(RESOURCE_ALIAS, name);
const q = (name: string) => sourceColumn(DATASET_SEARCH, name);

/** The Metadata fields a search answer carries, as text a reader parses without DuckDB's types. */
const FIELDS = [
  `CAST(${t('Id')} AS VARCHAR) AS ${ident('Id')}`,
  ...['DOI', 'DatasetName', 'Licence', 'DataCollectionOrganization', 'DataUploadOrganization'].map((f) => `${t(f)} AS ${ident(f)}`),
  `to_json(${t('Keywords')})::VARCHAR AS ${ident('Keywords')}`,
  `to_json(list_transform(${t('TemporalExtent')}, d -> strftime(d, '%Y-%m-%d')))::VARCHAR AS ${ident('TemporalExtent')}`,
  ...['West', 'South', 'East', 'North'].map((f) => `${q(f)} AS ${ident(f)}`),
];

/** `plan`: a count plan of Metadata, for its filter; `words` non-empty strings (none: every dataset). */
export function compileSearch(plan: CountPlan, words: readonly string[], limit: number): CompiledQuery {
  if (plan.resource.table !== 'datasets') throw new Error(`search is over Metadata, not ${plan.resource.name}`);
  const params = new Params();
  const bound = words.map((w) => `lower(${params.bind({ sqlType: 'VARCHAR', value: w })})`);
  const found = bound.map((w) => `contains(${q('SearchText')}, ${w})`);
  const score = bound.flatMap((w) => Object.entries(WEIGHTS).map(([part, weight]) => `CASE WHEN contains(${q(part)}, ${w}) THEN ${weight} ELSE 0 END`));
  const where = whereClause([resourceWhere(plan, params), ...found]);
  return {
    sql:
      `SELECT ${FIELDS.join(', ')}, (${score.length ? score.join(' + ') : '0'})::INTEGER AS ${ident('Score')}, count(*) OVER ()::BIGINT AS ${ident('Matched')} ` +
      `FROM ${resourceTable(plan)} JOIN ${sourceTable(DATASET_SEARCH)} ON ${q('DatasetId')} = ${t('Id')}${where} ` +
      `ORDER BY ${ident('Score')} DESC, ${t('DOI')} LIMIT ${params.bind({ sqlType: 'BIGINT', value: limit })}`,
    params: params.values,
  };
}
