/**
 * `search_datasets`: the datasets whose words match, found in `/Metadata` (a region or a characteristic narrows it
 * there, as "has such an observation"), each with its rows counted by the API's `$apply` under the same filter. The
 * words are matched here because the free-text fields (abstract, keywords, organisations) are not filterable; the
 * datasets are few (one `/Metadata` page holds them all), and matching every word in any field is what a person
 * typing a search expects.
 */
import * as z from 'zod';
import { doiUrl } from '../http/links.js';
import { PATHS } from '../http/paths.js';
import { datasetPagePath } from '../pages/page-links.js';
import type { ApiCaller } from './api-caller.js';

/** Datasets one answer lists; `matched` says how many there were. */
export const MAX_DATASETS = 50;
/** The largest page the API serves: every dataset at once. */
const ALL = '10000';

export const searchInput = {
  text: z.string().max(500).describe('Words to find in the dataset\'s name, abstract, keywords or organisations (every word must appear; empty lists every dataset).'),
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

interface MetadataRow {
  readonly DOI: string;
  readonly DatasetName: string | null;
  readonly Abstract: string | null;
  readonly Keywords: readonly string[] | null;
  readonly DataCollectionOrganization: string | null;
  readonly DataUploadOrganization: string | null;
  readonly Licence: string | null;
  readonly TemporalExtent: readonly string[] | null;
}

const SELECT = 'DOI,DatasetName,Abstract,Keywords,DataCollectionOrganization,DataUploadOrganization,Licence,TemporalExtent';

/** An OData string literal: quotes doubled (OData ABNF `SQUOTE-in-string`). */
export const odataString = (value: string) => `'${value.replaceAll("'", "''")}'`;

export async function searchDatasets(api: ApiCaller, args: { text: string; region?: string | undefined; characteristic?: string | undefined }) {
  const conditions = [
    ...(args.region ? [`RegionId eq ${odataString(args.region)}`] : []),
    ...(args.characteristic ? [`CharacteristicName eq ${odataString(args.characteristic)}`] : []),
  ];
  const filter = conditions.length ? conditions.join(' and ') : undefined;
  const metadata = await api.json<{ value: MetadataRow[] }>(`${PATHS.odata}/Metadata`, { $filter: filter, $select: SELECT, $top: ALL });
  const words = args.text.toLowerCase().split(/\s+/).filter(Boolean);
  const matches = metadata.value.filter((d) => {
    const text = [d.DatasetName, d.Abstract, d.DataCollectionOrganization, d.DataUploadOrganization, ...(d.Keywords ?? [])].join('\n').toLowerCase();
    return words.every((w) => text.includes(w));
  });
  const listed = matches.slice(0, MAX_DATASETS);
  const rows = new Map<string, number>();
  if (listed.length) {
    const apply = `${filter ? `filter(${filter})/` : ''}groupby((DOI),aggregate($count as Rows))`;
    const counted = await api.json<{ value: { DOI: string; Rows: number }[] }>(`${PATHS.odata}/Observations`, { $apply: apply, $top: ALL });
    for (const r of counted.value) rows.set(r.DOI, Number(r.Rows));
  }
  const boxes = listed.length ? await spatialExtents(api) : new Map<string, Bbox>();
  return {
    publication: api.publication!,
    matched: matches.length,
    ...(filter ? { filter } : {}),
    datasets: listed.map((d) => ({
      DOI: d.DOI,
      DatasetName: d.DatasetName,
      url: doiUrl(d.DOI),
      landingPage: `${api.base}${datasetPagePath(d.DOI)}`,
      rows: rows.get(d.DOI) ?? 0,
      temporalExtent: d.TemporalExtent ? [...d.TemporalExtent] : null,
      bbox: boxes.get(d.DOI) ?? null,
      licence: d.Licence,
      organisations: [...new Set([d.DataCollectionOrganization, d.DataUploadOrganization].filter((o): o is string => !!o))],
      keywords: [...(d.Keywords ?? [])],
    })),
  };
}

type Bbox = [number, number, number, number];

interface CatalogueDataset {
  readonly 'dct:identifier'?: string;
  readonly 'dct:spatial'?: { readonly 'dcat:bbox'?: { readonly '@value'?: string } };
}

/**
 * Each dataset's bounding box, from the DCAT catalogue (routes/dcat.ts), the one document that publishes it: its
 * `dcat:bbox` is a WKT polygon of the box's corners.
 */
async function spatialExtents(api: ApiCaller): Promise<Map<string, Bbox>> {
  const catalogue = await api.json<{ 'dcat:dataset'?: CatalogueDataset | CatalogueDataset[] }>(PATHS.catalogueJsonLd, {});
  const datasets = [catalogue['dcat:dataset'] ?? []].flat();
  const boxes = new Map<string, Bbox>();
  for (const d of datasets) {
    const wkt = d['dct:spatial']?.['dcat:bbox']?.['@value'];
    const doi = d['dct:identifier'];
    const box = wkt ? wktBox(wkt) : undefined;
    if (doi && box) boxes.set(doi, box);
  }
  return boxes;
}

/**
 * @example wktBox('POLYGON((-79.5 45, -79.3 45, -79.3 45.2, -79.5 45.2, -79.5 45))') // [-79.5, 45, -79.3, 45.2]
 */
export function wktBox(wkt: string): Bbox | undefined {
  const numbers = wkt.match(/-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g)?.map(Number) ?? [];
  if (numbers.length < 4 || numbers.length % 2) return undefined;
  const xs = numbers.filter((_, i) => i % 2 === 0);
  const ys = numbers.filter((_, i) => i % 2 === 1);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}
