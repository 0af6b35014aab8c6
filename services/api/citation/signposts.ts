/**
 * FAIR signposting (signposting.org) of a response's rows: `describedby` the citation of the same query, pinned to
 * the publication it was answered from, and `license` when one dataset covers the result (a `DOI eq` filter) and
 * its licence has a known URL. The `cite-as` link and the order of links are http/links.ts's `linkHeader`.
 */
import type { Expr, Query } from '../odata/ast.js';
import { readDatasetCitations } from '../exec/citation.js';
import type { Lease } from '../http/lease.js';
import { citationUrl, pinnedDoi, type Signposts } from '../http/links.js';
import { licenceUrl } from './licence-url.js';

/** `resource`: the OData resource whose rows these are; `filter`: the OData filter they meet. */
export async function signposts(base: string, resource: string, filter: Expr | undefined, query: Query, lease: Pick<Lease, 'snapshot' | 'publication'>): Promise<Signposts> {
  const doi = pinnedDoi(query);
  const licence = doi ? (await readDatasetCitations(lease.snapshot)).get(doi)?.Licence : undefined;
  return { describedBy: citationUrl(base, resource, filter, lease.publication), license: licenceUrl(licence) };
}
