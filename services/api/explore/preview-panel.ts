/**
 * The first rows of /Observations under the filters, a page at a time: "Next" follows the API's own
 * @odata.nextLink (pages cost the same at any depth), "First" starts again.
 */
import { getJson, query, type Page } from './api.js';
import { fmt, h, say } from './dom.js';

const COLUMNS = ['Id', 'DOI', 'LocationId', 'ActivityStartDate', 'CharacteristicName', 'ResultValue', 'ResultUnit', 'ResultDetectionCondition'] as const;
export const PREVIEW_ROWS = 20;

type Row = Record<(typeof COLUMNS)[number], string | number | null>;

export interface PreviewPanel {
  show(filter: string, signal: AbortSignal): Promise<void>;
}

export function previewPanel(root: HTMLElement, onError: (err: unknown) => void): PreviewPanel {
  const table = root.querySelector('table')!;
  const status = root.querySelector<HTMLElement>('.status')!;
  const first = root.querySelector<HTMLButtonElement>('button.first')!;
  const next = root.querySelector<HTMLButtonElement>('button.next')!;
  let firstUrl = '';
  let nextUrl: string | undefined;
  let pageNo = 1;

  async function load(url: string, n: number, signal?: AbortSignal): Promise<void> {
    next.disabled = first.disabled = true;
    const page = await getJson<Page<Row>>(url, signal);
    pageNo = n;
    nextUrl = page['@odata.nextLink'];
    table.tBodies[0]!.replaceChildren(...page.value.map((r) => h('tr', {}, ...COLUMNS.map((c) => h('td', {}, r[c] === null ? '—' : String(r[c]))))));
    say(status, page.value.length ? `Page ${fmt(pageNo)}: rows ${fmt((pageNo - 1) * PREVIEW_ROWS + 1)}–${fmt((pageNo - 1) * PREVIEW_ROWS + page.value.length)}` : 'No observation matches.');
    next.disabled = !nextUrl;
    first.disabled = pageNo === 1;
  }

  const guarded = (f: () => Promise<void>) => () => void f().catch(onError);
  next.addEventListener('click', guarded(() => load(nextUrl!, pageNo + 1)));
  first.addEventListener('click', guarded(() => load(firstUrl, 1)));
  table.tHead!.replaceChildren(h('tr', {}, ...COLUMNS.map((c) => h('th', { scope: 'col' }, c))));

  return {
    show(filter, signal) {
      firstUrl = `/Observations${query({ $filter: filter, $select: COLUMNS.join(','), $top: String(PREVIEW_ROWS) })}`;
      return load(firstUrl, 1, signal);
    },
  };
}
