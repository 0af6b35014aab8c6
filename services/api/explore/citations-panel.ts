/**
 * The datasets behind the current selection, each with its citation text, its DOI link and its licence: the
 * licences require citing data where it is presented.
 */
import { h } from './dom.js';
import { doiUrl } from './doi-url.js';

export interface Dataset {
  readonly DOI: string;
  readonly DatasetName: string;
  readonly Citation: string | null;
  readonly Licence: string | null;
  /** The rules its rows passed at ingest; `storable` is said beside it, `upstream` (DataStream's own) is not. */
  readonly ValidationLevel?: string;
}

/** What a citation says of a dataset's validation level: nothing for DataStream's own rules. */
export function levelNote(level: string | undefined): string | null {
  return level && level !== 'upstream' ? ` · validated at level ${level} (only what the API needs; DataStream's rules counted as warnings)` : null;
}

export function showCitations(list: HTMLElement, datasets: ReadonlyMap<string, Dataset>, dois: readonly string[]): void {
  const items = [...dois].sort().map((doi) => {
    const d = datasets.get(doi);
    const href = doiUrl(doi);
    return h('li', {},
      h('cite', {}, d?.Citation ?? d?.DatasetName ?? doi), ' ',
      h('a', { href, rel: 'noopener' }, href),
      d?.Licence ? ` · ${d.Licence}` : null,
      levelNote(d?.ValidationLevel));
  });
  list.replaceChildren(...(items.length ? items : [h('li', {}, 'No dataset matches the selection.')]));
}
