/**
 * The first rows of what the page shows (/Observations, or /GuidelineComparisons with each Verdict and the Reason
 * of an indeterminate one) under the filters, a page at a time: "Next" follows the API's own @odata.nextLink (pages
 * cost the same at any depth), "First" starts again.
 */
import { getJson, query, type Page } from './api.js';
import { fmt, h, say } from './dom.js';
import type { Rows } from './selection.js';

const COLUMNS: Readonly<Record<Rows['resource'], readonly string[]>> = {
  Observations: ['Id', 'DOI', 'LocationId', 'ActivityStartDate', 'CharacteristicName', 'ResultValue', 'ResultUnit', 'ResultDetectionCondition'],
  GuidelineComparisons: ['ObservationId', 'LocationId', 'ActivityStartDate', 'CharacteristicName', 'ResultValue', 'ResultUnit', 'Publisher', 'Term', 'ProtectionLevel', 'GuidelineLower', 'GuidelineUpper', 'Verdict', 'Reason', 'Alternatives'],
};
const CAPTIONS: Readonly<Record<Rows['resource'], string>> = {
  Observations: 'Observations under the filters, in Id order',
  GuidelineComparisons: 'Governing guideline comparisons under the filters (one per result, publisher and term; Alternatives names the others), in observation order',
};
export const PREVIEW_ROWS = 20;

type Row = Record<string, string | number | null>;

export interface PreviewPanel {
  show(rows: Rows, signal: AbortSignal): Promise<void>;
}

export function previewPanel(root: HTMLElement, onError: (err: unknown) => void): PreviewPanel {
  const table = root.querySelector('table')!;
  const status = root.querySelector<HTMLElement>('.status')!;
  const first = root.querySelector<HTMLButtonElement>('button.first')!;
  const next = root.querySelector<HTMLButtonElement>('button.next')!;
  let firstUrl = '';
  let nextUrl: string | undefined;
  let pageNo = 1;
  let columns = COLUMNS.Observations;

  async function load(url: string, n: number, signal?: AbortSignal): Promise<void> {
    next.disabled = first.disabled = true;
    const page = await getJson<Page<Row>>(url, signal);
    pageNo = n;
    nextUrl = page['@odata.nextLink'];
    table.tBodies[0]!.replaceChildren(...page.value.map((r) => h('tr', {}, ...columns.map((c) => h('td', { 'data-column': c }, r[c] === null || r[c] === undefined ? '—' : String(r[c]))))));
    say(status, page.value.length ? `Page ${fmt(pageNo)}: rows ${fmt((pageNo - 1) * PREVIEW_ROWS + 1)}–${fmt((pageNo - 1) * PREVIEW_ROWS + page.value.length)}` : 'No row matches.');
    next.disabled = !nextUrl;
    first.disabled = pageNo === 1;
  }

  const guarded = (f: () => Promise<void>) => () => void f().catch(onError);
  next.addEventListener('click', guarded(() => load(nextUrl!, pageNo + 1)));
  first.addEventListener('click', guarded(() => load(firstUrl, 1)));

  return {
    show({ resource, filter }, signal) {
      columns = COLUMNS[resource];
      table.caption!.textContent = CAPTIONS[resource];
      table.tHead!.replaceChildren(h('tr', {}, ...columns.map((c) => h('th', { scope: 'col' }, c))));
      firstUrl = `/${resource}${query({ $filter: filter, $select: columns.join(','), $top: String(PREVIEW_ROWS) })}`;
      return load(firstUrl, 1, signal);
    },
  };
}
