/**
 * `search_datasets`: the datasets whose words match, ranked, as `GET /v1/search/datasets` answers (routes/search.ts:
 * one query over the index ingest builds at publish, metered as a page; a region or a characteristic narrows it as
 * a Metadata `$filter`, "has such an observation"), each with its rows counted by the API's `$apply` under the same
 * filter. Two requests of the caller's, whatever the number of datasets: nothing is fetched whole or parsed here.
 */
import * as z from 'zod';
import { doiUrl } from '../http/links.js';
import { PATHS } from '../http/paths.js';
import { datasetPagePath } from '../pages/page-links.js';
import { SEARCH_TEXT } from '../exec/search.js';
import type { ApiCaller } from './api-caller.js';

/** Datasets one answer lists; `matched` says how many there were. */
export const MAX_DATASETS = 50;

export const searchInput = {
  text: z.string().max(SEARCH_TEXT.maxChars).describe('Words to find in the dataset\'s name, abstract, keywords or organisations (every word must appear, as part of a word; empty lists every dataset). Ranked: a word in the name first, then keywords, then organisations, then the abstract.'),
  region: z.string().max(200).optional().describe("Only datasets with observations in this region (a RegionId: hub.pacific, admin.4.ca.bc, huc8.17020008, …)."),
  characteristic: z.string().max(200).optional().describe('Only datasets with observations of this CharacteristicName (e.g. pH).'),
};

const dataset = z.object({
  DOI: z.string(),
  DatasetName: z.string().nullable(),
  url: z.string().describe('https://doi.org/<DOI>'),
  landingPage: z.string(),
  rows: z.number().describe('Observations of the dataset (those in the region or of the characteristic when given).'),
  temporalExtent: z.array(z.string()).nullable().describe('First and last ActivityStartDate.'),
  bbox: z.array(z.number()).nullable().describe('[west, south, east, north] of its locations, WGS 84 degrees.'),
  licence: z.string().nullable(),
  organisations: z.array(z.string()),
  keywords: z.array(z.string()),
});

export const searchOutput = {
  publication: z.string(),
  matched: z.number().describe('Datasets that match; at most the first datasets.length are listed.'),
  datasets: z.array(dataset),
  filter: z.string().optional().describe('The $filter the region and characteristic became.'),
};

interface Found {
  readonly DOI: string;
  readonly DatasetName: string | null;
  readonly Licence: string | null;
  readonly Keywords: readonly string[] | null;
  readonly DataCollectionOrganization: string | null;
  readonly DataUploadOrganization: string | null;
  readonly TemporalExtent: readonly string[] | null;
  readonly Bbox: readonly number[] | null;
}

/** An OData string literal: quotes doubled (OData ABNF `SQUOTE-in-string`). */
export const odataString = (value: string) => `'${value.replaceAll("'", "''")}'`;

export async function searchDatasets(api: ApiCaller, args: { text: string; region?: string | undefined; characteristic?: string | undefined }) {
  const conditions = [
    ...(args.region ? [`RegionId eq ${odataString(args.region)}`] : []),
    ...(args.characteristic ? [`CharacteristicName eq ${odataString(args.characteristic)}`] : []),
  ];
  const filter = conditions.length ? conditions.join(' and ') : undefined;
  const found = await api.json<{ matched: number; value: Found[] }>(PATHS.datasetSearch, { text: args.text, $filter: filter, $top: String(MAX_DATASETS) });
  const rows = await rowsOf(api, found.value.map((d) => d.DOI), filter);
  return {
    publication: api.publication!,
    matched: found.matched,
    ...(filter ? { filter } : {}),
    datasets: found.value.map((d) => ({
      DOI: d.DOI,
      DatasetName: d.DatasetName,
      url: doiUrl(d.DOI),
      landingPage: `${api.base}${datasetPagePath(d.DOI)}`,
      rows: rows.get(d.DOI) ?? 0,
      temporalExtent: d.TemporalExtent ? [...d.TemporalExtent] : null,
      bbox: d.Bbox ? [...d.Bbox] : null,
      licence: d.Licence,
      organisations: [...new Set([d.DataCollectionOrganization, d.DataUploadOrganization].filter((o): o is string => !!o))],
      keywords: [...(d.Keywords ?? [])],
    })),
  };
}

/** Each listed dataset's observations under the filter: one `$apply` over the statistics, for those DOIs alone. */
async function rowsOf(api: ApiCaller, dois: readonly string[], filter: string | undefined): Promise<Map<string, number>> {
  const rows = new Map<string, number>();
  if (dois.length === 0) return rows;
  const which = `DOI in (${dois.map(odataString).join(',')})`;
  const params = { $filter: filter ? `${filter} and ${which}` : which, $apply: 'groupby((DOI),aggregate($count as Rows))', $top: String(dois.length) };
  const counted = await api.json<{ value: { DOI: string; Rows: number }[] }>(`${PATHS.odata}/Observations`, params);
  for (const r of counted.value) rows.set(r.DOI, Number(r.Rows));
  return rows;
}
