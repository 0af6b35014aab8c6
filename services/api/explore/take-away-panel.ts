/**
 * Taking the selection away: the CSV extract downloaded page by page through the API's next links (one file,
 * one header); the whole result as one Parquet or CSV file from the export route (a plain link: the browser
 * streams it to disk; offered only while keys are off, since an export then needs a key the page does not hold:
 * routes/explore.ts); and the same request "copied as" a script. A selection of more than one page first says how
 * many rows and how long the whole takes at the rate just measured on its first page, and waits for a yes.
 */
import { PATHS } from '../http/paths.js';
import { apiGet, PIN_PARAM, servedPublication } from './api.js';
import { fmt, say } from './dom.js';
import type { Rows } from './selection.js';
import { csvFileName, snippet, SNIPPET_TITLES, type SnippetLanguage } from './snippets.js';

const PAGE_ROWS = 10_000;

/** Rows of a CSV body: newlines inside quoted values do not end a row. */
function countRows(csv: string): number {
  let n = 0, quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if (c === 10 && !quoted) n++;
  }
  return n;
}

const nextLink = (res: Response): string | undefined => /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('Link') ?? '')?.[1];

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

function estimate(total: number, firstRows: number, seconds: number): string {
  const rate = firstRows / seconds;
  return `The selection has ${fmt(total)} rows (${fmt(Math.ceil(total / PAGE_ROWS))} pages of ${fmt(PAGE_ROWS)}). The first page took ${seconds.toFixed(1)} s (${fmt(Math.round(rate))} rows/s): the whole download takes about ${duration(total / rate)}.`;
}

/** Hands the pages to the browser as one file (a Blob: the browser may keep it on disk, not in the page). */
function save(parts: BlobPart[], name: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob(parts, { type: 'text/csv' }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}

export interface TakeAwayPanel {
  /** What the page shows (its resource and filter: the take-away is exactly that) and how many rows, once counted. */
  show(rows: Rows, total: number | undefined): void;
}

export function takeAwayPanel(root: HTMLElement, onError: (err: unknown) => void): TakeAwayPanel {
  const button = root.querySelector<HTMLButtonElement>('button.download')!;
  const status = root.querySelector<HTMLElement>('.download-status')!;
  const confirm = root.querySelector<HTMLElement>('.confirm')!;
  const language = root.querySelector<HTMLSelectElement>('select.language')!;
  const code = root.querySelector<HTMLElement>('pre.snippet code')!;
  const copy = root.querySelector<HTMLButtonElement>('button.copy')!;
  let filter = '';
  let resource: Rows['resource'] = 'Observations';
  let total = 0;
  let running: AbortController | undefined;

  const exports = [...root.querySelectorAll<HTMLAnchorElement>('a.export')];
  const pinned = root.querySelector<HTMLAnchorElement>('a.pinned')!;
  root.querySelector<HTMLButtonElement>('button.copy-pinned')!.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(pinned.href);
      say(status, 'Pinned link copied to the clipboard.');
    } catch {
      say(status, `The clipboard is not available here: the pinned link is ${pinned.href}`);
    }
  });
  language.replaceChildren(...Object.entries(SNIPPET_TITLES).map(([value, text]) => new Option(text, value)));
  const collectionUrl = () => `${location.origin}${PATHS.odata}/${resource}`;
  const renderSnippet = () => void (code.textContent = snippet(language.value as SnippetLanguage, collectionUrl(), filter));
  language.addEventListener('change', renderSnippet);
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(code.textContent ?? '');
      say(status, `${SNIPPET_TITLES[language.value as SnippetLanguage]} copied to the clipboard.`);
    } catch {
      getSelection()?.selectAllChildren(code);
      say(status, 'The clipboard is not available here: the snippet is selected, copy it with Ctrl+C.');
    }
  });

  /** Waits for "Download all" (true) or "Cancel" (false). */
  const ask = (text: string) =>
    new Promise<boolean>((resolve) => {
      confirm.hidden = false;
      confirm.querySelector('p')!.textContent = text;
      const yes = confirm.querySelector<HTMLButtonElement>('button.yes')!, no = confirm.querySelector<HTMLButtonElement>('button.no')!;
      const done = (answer: boolean) => () => ((confirm.hidden = true), (yes.onclick = no.onclick = null), resolve(answer));
      yes.onclick = done(true);
      no.onclick = done(false);
      yes.focus();
    });

  async function download(): Promise<void> {
    running?.abort();
    const controller = (running = new AbortController());
    const params = new URLSearchParams({ ...(filter ? { $filter: filter } : {}), $format: 'csv', $top: String(PAGE_ROWS) });
    button.disabled = true;
    say(status, 'Fetching the first page…');
    try {
      const started = performance.now();
      const name = `tributary-${csvFileName(resource)}`;
      let res = await apiGet(`/${resource}?${params.toString().replaceAll('+', '%20')}`, { accept: 'text/csv', signal: controller.signal });
      let text = await res.text();
      const parts = [text];
      let rows = countRows(text) - 1;
      let next = nextLink(res);
      if (next) {
        if (!(await ask(estimate(total, rows, (performance.now() - started) / 1000)))) return say(status, 'Download cancelled.');
      }
      while (next) {
        say(status, `Downloading: ${fmt(rows)} of ${fmt(total)} rows…`);
        res = await apiGet(next, { accept: 'text/csv', signal: controller.signal });
        text = await res.text();
        const body = text.slice(text.indexOf('\n') + 1);
        parts.push(body);
        rows += countRows(body);
        next = nextLink(res);
      }
      save(parts, name);
      root.dataset['downloadedRows'] = String(rows);
      say(status, `Downloaded ${fmt(rows)} rows as ${name}.`);
    } catch (err) {
      if (!controller.signal.aborted) onError(err);
      say(status, 'The download stopped; see the message above.', 'error');
    } finally {
      button.disabled = false;
    }
  }
  button.addEventListener('click', () => void download());

  return {
    show(rows, t) {
      const f = rows.filter;
      filter = f;
      resource = rows.resource;
      total = t ?? 0;
      const counted = t === undefined ? 'counting…' : `${fmt(t)} rows`;
      button.textContent = `Download CSV (${counted})`;
      for (const a of exports) {
        const format = a.dataset['format']!;
        const params = new URLSearchParams({ ...(f ? { $filter: f } : {}), $format: format });
        a.href = `${PATHS.export}/${resource}?${params.toString().replaceAll('+', '%20')}`;
        a.textContent = `${format === 'parquet' ? 'Parquet' : 'CSV'} (${counted})`;
      }
      // The rows the page shows, from the publication they were read from (every answer names it).
      const publication = servedPublication();
      const params = new URLSearchParams({ ...(f ? { $filter: f } : {}), ...(publication ? { [PIN_PARAM]: publication } : {}) });
      pinned.href = `${location.origin}${PATHS.odata}/${resource}?${params.toString().replaceAll('+', '%20')}`;
      renderSnippet();
    },
  };
}
