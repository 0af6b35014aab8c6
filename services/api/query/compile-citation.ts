/**
 * The queries behind a citation (routes/citation.ts) besides the `$apply` that counts observations per DOI: each
 * dataset's citation fields, and, for the coarser resources (Locations, Metadata), how many of the rows a filter
 * matches each dataset holds. The statistics count observations, not locations, so those two group their own
 * small table under the same WHERE a page and a count of it use (resource-where.ts).
 */
import { guidelineFields } from '../../../schemas/guideline-fields.js';
import { metadataFields, storageKeys, type ResourceDef } from '../../../schemas/index.js';
import type { CountPlan } from './plan.js';
import { resourceTable, resourceWhere, whereClause } from './resource-where.js';
import { DATASETS, joinSource, RESOURCE_ALIAS, sourceColumn, sourceTable, type TableSource } from './source.js';
import { column, ident, Params, type CompiledQuery } from './sql.js';

/** The Metadata fields a citation names, text as stored; the timestamps as UTC ISO 8601 text. */
export const CITATION_FIELDS = [
  'DOI', 'Version', 'DatasetName', 'Citation', 'Licence', 'DataCollectionOrganization', 'DataUploadOrganization', 'DataStewardEmail', 'DataSourceURL',
] as const;
export const CITATION_TIMES = ['PublishedTimestamp', 'CreateTimestamp'] as const;
export type CitationField = (typeof CITATION_FIELDS)[number] | (typeof CITATION_TIMES)[number];

const columnOf = (name: CitationField) => {
  const field = metadataFields.find((f) => f.name === name);
  if (!field) throw new Error(`no Metadata field ${name}`);
  return sourceColumn(DATASETS, field.column);
};

/**
 * Every dataset's citation fields, one row per dataset: the table is small and read once per snapshot.
 *
 * @example
 * compileDatasetCitations().sql
 * // SELECT d."DOI" AS "DOI", d."Version" AS "Version", … strftime(d."PublishedTimestamp", '%Y-%m-%dT%H:%M:%SZ') AS "PublishedTimestamp", … FROM "datasets" d ORDER BY d."DOI"
 */
export function compileDatasetCitations(): CompiledQuery {
  const text = CITATION_FIELDS.map((n) => `${columnOf(n)} AS ${ident(n)}`);
  const times = CITATION_TIMES.map((n) => `strftime(${columnOf(n)}, '%Y-%m-%dT%H:%M:%SZ') AS ${ident(n)}`);
  return { sql: `SELECT ${[...text, ...times].join(', ')} FROM ${sourceTable(DATASETS)} ORDER BY ${columnOf('DOI')}`, params: [] };
}

/**
 * The rows of Locations or Metadata a count plan matches, per dataset: `g0` the DOI, `n` the rows, as `$apply`'s
 * groups are named (compile-apply.ts), sorted by DOI.
 *
 * @example
 * compileCountByDataset(planQuery(parseQuery("$count=true&$filter=Name eq 'x'"), getResource('Locations')!))
 * // { sql: 'SELECT t."DOI" AS g0, count(*)::BIGINT AS n FROM "locations" t WHERE (t."Name" = CAST($1 AS VARCHAR)) GROUP BY g0 ORDER BY g0', params: ['x'] }
 */
export function compileCountByDataset(plan: CountPlan): CompiledQuery {
  if (plan.resource.kind === 'observations') throw new Error('observations are counted per dataset by $apply (compile-apply.ts)');
  const params = new Params();
  const doi = column(RESOURCE_ALIAS, storageKeys.doi);
  return {
    sql: `SELECT ${doi} AS g0, count(*)::BIGINT AS n FROM ${resourceTable(plan)}${whereClause([resourceWhere(plan, params)])} GROUP BY g0 ORDER BY g0`,
    params: params.values,
  };
}

/** Whether the resource's rows belong to datasets (its `citation` door): a citation credits those. */
export function citesDatasets(resource: ResourceDef): boolean {
  return resource.citation.datasets;
}

const GUIDELINES: TableSource = { alias: 'g', table: 'guidelines' };

/**
 * Whether the resource's rows rest on guidelines (its `citation` door: the rows are guidelines, or name one in a
 * column): a citation of them credits each guideline's publisher and source besides the datasets.
 */
export function citesGuidelines(resource: ResourceDef): boolean {
  return resource.citation.guidelines !== 'none';
}

const guidelineColumn = (name: 'Publisher' | 'Source') => guidelineFields.find((f) => f.name === name)!.column;

/**
 * The guidelines' publishers and sources a count plan's rows rest on: `publisher`, `source`, `n` (rows), sorted.
 *
 * @example
 * compileGuidelineSources(planQuery(parseQuery("$count=true&$filter=Verdict eq 'exceeds'"), getResource('GuidelineComparisons')!)).sql
 * // SELECT g."Publisher" AS publisher, g."Source" AS source, count(*)::BIGINT AS n FROM "guideline_comparisons" t JOIN "guidelines" g ON g."Id" = t."GuidelineId" WHERE … GROUP BY ALL ORDER BY publisher, source
 */
export function compileGuidelineSources(plan: CountPlan): CompiledQuery {
  const link = plan.resource.citation.guidelines;
  if (link === 'none') throw new Error(`${plan.resource.name} rows rest on no guideline`);
  const params = new Params();
  const g = link === 'row' ? RESOURCE_ALIAS : GUIDELINES.alias;
  const join = link === 'row' ? '' : joinSource(GUIDELINES, `${sourceColumn(GUIDELINES, storageKeys.id)} = ${column(RESOURCE_ALIAS, link.column)}`);
  const select = `${column(g, guidelineColumn('Publisher'))} AS publisher, ${column(g, guidelineColumn('Source'))} AS source, count(*)::BIGINT AS n`;
  return {
    sql: `SELECT ${select} FROM ${resourceTable(plan)}${join}${whereClause([resourceWhere(plan, params)])} GROUP BY ALL ORDER BY publisher, source`,
    params: params.values,
  };
}
