/**
 * A citation as BibTeX: one `@misc` entry per dataset (BibTeX's standard styles know no `@dataset`; DOI resolvers
 * answer `@misc` for data too), the cited query in comments before them (BibTeX skips text outside entries).
 */
import { neutraliseCell } from '../../../schemas/csv-cell.js';
import type { CitationDocument, CitationEntry } from './citation-document.js';

/**
 * TeX's special characters in a braced field. Braces become commands with balanced braces: BibTeX counts every
 * brace, even an escaped `\{`, so an odd one in a title would end the field early.
 */
const SPECIAL: Readonly<Record<string, string>> = {
  '\\': '\\textbackslash{}',
  '{': '\\textbraceleft{}',
  '}': '\\textbraceright{}',
  $: '\\$',
  '&': '\\&',
  '%': '\\%',
  '#': '\\#',
  _: '\\_',
  '^': '\\textasciicircum{}',
  '~': '\\textasciitilde{}',
};

/**
 * Text for a braced BibTeX field: TeX specials escaped, whitespace runs (newlines among them) one space.
 *
 * @example
 * bibtexText('R&D {50%} #1') // → 'R\\&D \\textbraceleft{}50\\%\\textbraceright{} \\#1'
 */
export function bibtexText(text: string): string {
  return text.replace(/[\\{}$&%#_^~]/g, (ch) => SPECIAL[ch]!).replace(/\s+/g, ' ').trim();
}

/** A DOI written raw in the `doi` field (which biblatex reads verbatim) only when nothing in it needs TeX escaping. */
const PLAIN_DOI = /^[A-Za-z0-9./:;()<>[\]+_-]+$/;

export function toBibtex(doc: CitationDocument): string {
  const keys = new Set<string>();
  const head = [
    `% Data cited: ${doc.url}`,
    `% ${doc.rows} ${doc.resource} rows from ${doc.datasets.length} dataset(s)${doc.publication ? `, publication ${doc.publication}` : ''}.`,
  ].map((line) => line.replace(/[\r\n@]/g, ' '));
  return [...head, '', ...doc.datasets.map((d) => entry(d, uniqueKey(d.DOI, keys)))].join('\n');
}

function entry(d: CitationEntry, key: string): string {
  // A value a spreadsheet would run as a formula (reference managers export fields as CSV) gets a leading `'`.
  const text = (v: string | null | undefined) => (v ? bibtexText(neutraliseCell(v)) : undefined);
  // Double braces keep a title's capitals and an organisation's name whole (never split into first and last name).
  const whole = (v: string | null | undefined) => (v ? `{${text(v)}}` : undefined);
  const fields: [string, string | undefined][] = [
    ['title', whole(d.DatasetName ?? d.DOI)],
    ['author', whole(d.DataCollectionOrganization)],
    ['year', d.PublishedTimestamp?.slice(0, 4)],
    ['version', text(d.Version)],
    ['doi', PLAIN_DOI.test(d.DOI) ? d.DOI : undefined],
    // Percent-encoded: only URL characters, none of them special inside braces.
    ['url', d.url],
    ['note', text(`${d.Citation} Licence: ${d.Licence ?? 'not stated'}. ${d.Rows} rows.`)],
  ];
  const written = fields.filter((f): f is [string, string] => f[1] !== undefined && f[1] !== '').map(([name, value]) => `  ${name} = {${value}}`);
  return `@misc{${key},\n${written.join(',\n')}\n}\n`;
}

/** A key of letters, digits and `_:-.` from the DOI (`10.25976/ab-cd` → `doi:10.25976_ab-cd`), unique in the file. */
function uniqueKey(doi: string, taken: Set<string>): string {
  const base = `doi:${doi.replace(/[^A-Za-z0-9.:-]+/g, '_')}`;
  let key = base;
  for (let i = 2; taken.has(key); i++) key = `${base}_${i}`;
  taken.add(key);
  return key;
}
