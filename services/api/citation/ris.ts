/**
 * A citation as RIS: one `TY  - DATA` record per dataset. A RIS line is `TG  - value`, so a value keeps to one
 * line: its line breaks become spaces (a newline followed by `XX  - ` would start a field of its own). Reference
 * managers export fields as CSV cells, so a value a spreadsheet would run as a formula gets a leading `'`.
 */
import { neutraliseCell } from '../../../schemas/csv-cell.js';
import type { CitationDocument, CitationEntry } from './citation-document.js';

/** One line of text: every line break and tab one space, trimmed. */
export function risText(text: string): string {
  return text.replace(/[\r\n\t\u2028\u2029]+/g, ' ').replace(/ {2,}/g, ' ').trim();
}

export function toRis(doc: CitationDocument): string {
  return doc.datasets.map((d) => record(d, doc)).join('');
}

function record(d: CitationEntry, doc: CitationDocument): string {
  const published = d.PublishedTimestamp;
  const tags: [string, string | null | undefined][] = [
    ['TY', 'DATA'],
    ['TI', d.DatasetName ?? d.DOI],
    ['AU', d.DataCollectionOrganization],
    ['PY', published?.slice(0, 4)],
    ['DA', published ? published.slice(0, 10).replaceAll('-', '/') : undefined],
    ['ET', d.Version],
    ['DO', d.DOI],
    ['UR', d.url],
    ['N1', d.Citation],
    ['N1', `Licence: ${d.Licence ?? 'not stated'}${d.LicenceUrl ? ` (${d.LicenceUrl})` : ''}`],
    ['N1', `${d.Rows} of the ${doc.rows} ${doc.resource} rows of ${doc.url}`],
  ];
  const lines = tags.filter((t): t is [string, string] => typeof t[1] === 'string' && t[1] !== '').map(([tag, value]) => `${tag}  - ${neutraliseCell(risText(value))}`);
  // `ER  - ` ends a record; its trailing space is part of the tag line.
  return `${[...lines, 'ER  - '].join('\r\n')}\r\n\r\n`;
}
