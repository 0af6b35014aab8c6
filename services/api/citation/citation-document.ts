/**
 * What a result must credit, as one value every format renders (citation-formats.ts): the query pinned to its
 * publication, and each dataset with rows in it, with its DOI link, citation text, licence and the rows it gave.
 */
import { formatFilter } from '../odata/index.js';
import type { CitedDataset, CitedGuideline, DatasetCitation } from '../exec/citation.js';
import { doiUrl, pinnedQueryUrl } from '../http/links.js';
import type { CitationPlan } from '../query/plan-citation.js';
import { licenceUrl } from './licence-url.js';

export interface CitationEntry {
  readonly DOI: string;
  /** `https://doi.org/<DOI>`, percent-encoded as the `cite-as` link is. */
  readonly url: string;
  readonly DatasetName: string | null;
  readonly Version: string | null;
  /** The dataset's own `Citation`, or one written from its fields when it has none. */
  readonly Citation: string;
  readonly Licence: string | null;
  readonly LicenceUrl: string | null;
  readonly DataCollectionOrganization: string | null;
  readonly DataStewardEmail: string | null;
  /** When the dataset was published, else created (UTC, ISO 8601). */
  readonly PublishedTimestamp: string | null;
  /** The rows of the result that come from this dataset. */
  readonly Rows: number;
}

export interface CitationDocument {
  readonly resource: string;
  /** The `$filter` cited, canonical OData text; null for every row. */
  readonly filter: string | null;
  readonly publication: string | null;
  /** The query itself, pinned to the publication: the same rows for as long as the publication is served. */
  readonly url: string;
  readonly rows: number;
  readonly datasets: readonly CitationEntry[];
  /**
   * On resources whose rows rest on guidelines (Guidelines, GuidelineComparisons): each guideline publisher and
   * source the rows rest on, with how many rows.
   */
  readonly guidelines?: readonly CitedGuideline[];
}

export function citationDocument(
  plan: CitationPlan,
  cited: readonly CitedDataset[],
  base: string,
  publication: string | undefined,
  guidelines?: readonly CitedGuideline[],
): CitationDocument {
  return {
    ...(guidelines ? { guidelines } : {}),
    resource: plan.resource.name,
    filter: plan.filter ? formatFilter(plan.filter) : null,
    publication: publication ?? null,
    url: pinnedQueryUrl(base, plan.resource.name, plan.filter, publication),
    // Guidelines belong to no dataset: their rows are the guidelines'.
    rows: cited.length === 0 && guidelines ? guidelines.reduce((n, g) => n + g.Rows, 0) : cited.reduce((n, c) => n + c.rows, 0),
    datasets: cited.map(({ dataset: d, rows }) => ({
      DOI: d.DOI,
      url: doiUrl(d.DOI),
      DatasetName: d.DatasetName,
      Version: d.Version,
      Citation: citationText(d),
      Licence: d.Licence,
      LicenceUrl: licenceUrl(d.Licence) ?? null,
      DataCollectionOrganization: d.DataCollectionOrganization ?? d.DataUploadOrganization,
      DataStewardEmail: d.DataStewardEmail,
      PublishedTimestamp: d.PublishedTimestamp ?? d.CreateTimestamp,
      Rows: rows,
    })),
  };
}

/**
 * The provider's citation when there is one; else one in the shape DataCite's text citations have (creator, year,
 * title, version, `[Data set]`, the DOI link).
 *
 * @example
 * citationText({ DOI: '10.1/x', DatasetName: 'Bow River', Version: '1.0', DataCollectionOrganization: 'Bow Keepers', PublishedTimestamp: '2021-05-01T00:00:00Z', Citation: null, … })
 * // → 'Bow Keepers. (2021). Bow River (Version 1.0) [Data set]. https://doi.org/10.1/x'
 */
export function citationText(d: DatasetCitation): string {
  if (d.Citation) return d.Citation;
  const who = d.DataCollectionOrganization ?? d.DataUploadOrganization;
  const year = (d.PublishedTimestamp ?? d.CreateTimestamp)?.slice(0, 4);
  const title = `${d.DatasetName ?? d.DOI}${d.Version ? ` (Version ${d.Version})` : ''} [Data set].`;
  return [who ? `${who.replace(/\.$/, '')}.` : undefined, year ? `(${year}).` : undefined, title, doiUrl(d.DOI)].filter(Boolean).join(' ');
}
