/**
 * What to credit for the current selection, from the API's citation of the same filter (`/v1/citation`, issue 38):
 * each dataset with rows in it, with its citation text, DOI link, licence and how many of the observations it
 * gives, and the citation to download as BibTeX, RIS or CSL-JSON (the licences require citing data where it is
 * presented, and a figure made from a selection cites exactly the datasets behind it).
 */
import { PATHS } from '../http/paths.js';
import { getJson, query } from './api.js';
import { fmt, h, say } from './dom.js';

export interface Dataset {
  readonly DOI: string;
  readonly DatasetName: string;
  readonly Citation: string | null;
  readonly Licence: string | null;
  /** The rules its rows passed at ingest; `storable` is said beside it, `upstream` (DataStream's own) is not. */
  readonly ValidationLevel?: string;
}

/** The API's citation document (docs/api.md, "Citing a result"): the fields the panel shows. */
export interface Citation {
  readonly rows: number;
  readonly publication: string | null;
  /** The query pinned to its publication. */
  readonly url: string;
  readonly datasets: readonly { readonly DOI: string; readonly url: string; readonly Citation: string; readonly Licence: string | null; readonly Rows: number }[];
}

/** The formats offered for download, as `format=` names them; the API names the file (Content-Disposition). */
export const CITATION_DOWNLOADS = [
  { format: 'bibtex', label: 'BibTeX' },
  { format: 'ris', label: 'RIS' },
  { format: 'csl', label: 'CSL-JSON' },
] as const;

/** The citation's URL for the filter, in a format (JSON without one). */
export function citationPath(filter: string, format?: string): string {
  return `${PATHS.citation}/Observations${query({ $filter: filter, format })}`;
}

export function loadCitation(filter: string, signal?: AbortSignal): Promise<Citation> {
  return getJson<Citation>(`${location.origin}${citationPath(filter)}`, signal);
}

/** What a citation says of a dataset's validation level: nothing for DataStream's own rules. */
export function levelNote(level: string | undefined): string | null {
  return level && level !== 'upstream' ? ` · validated at level ${level} (only what the API needs; DataStream's rules counted as warnings)` : null;
}

export function showCitations(section: HTMLElement, filter: string, citation: Citation, datasets: ReadonlyMap<string, Dataset>): void {
  const list = section.querySelector<HTMLElement>('#citation-list')!;
  const items = citation.datasets.map((d) =>
    h('li', { 'data-doi': d.DOI, 'data-rows': d.Rows },
      h('cite', {}, d.Citation), ' ',
      h('a', { href: d.url, rel: 'noopener' }, d.url),
      d.Licence ? ` · ${d.Licence}` : null,
      ` · ${fmt(d.Rows)} observation${d.Rows === 1 ? '' : 's'}`,
      levelNote(datasets.get(d.DOI)?.ValidationLevel)));
  list.replaceChildren(...(items.length ? items : [h('li', {}, 'No dataset matches the selection.')]));
  const n = citation.datasets.length;
  say(section.querySelector<HTMLElement>('#citation-summary')!, n ? `${fmt(citation.rows)} observations from ${fmt(n)} dataset${n === 1 ? '' : 's'}${citation.publication ? ` (publication ${citation.publication})` : ''}: credit each.` : '');
  const links = CITATION_DOWNLOADS.map((f) => h('a', { href: citationPath(filter, f.format), download: '', 'data-format': f.format }, f.label));
  section.querySelector<HTMLElement>('#citation-downloads')!.replaceChildren(
    ...(n ? ['Download the citation: ', ...links.flatMap((a, i) => (i ? [' · ', a] : [a])), ' · ', h('a', { href: citation.url, 'data-pinned': '' }, 'the pinned query')] : []),
  );
}
