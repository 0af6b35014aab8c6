/**
 * The formats a citation is written in, declared once: the route negotiates them as doi.org does (Accept, or
 * `format=`/`$format=` for a browser's link), OpenAPI and the docs list them.
 */
import { neutraliseCell } from '../../../schemas/csv-cell.js';
import { JSON_TYPE } from '../formats.js';
import { CSL_JSON } from '../http/links.js';
import { toBibtex } from './bibtex.js';
import type { CitationDocument } from './citation-document.js';
import { toRis } from './ris.js';
import { negotiate } from '../accept-ranges.js';

export interface CitationFormatDef {
  /** Asked for in Accept, or as `format=` with this or the format's name. */
  readonly mediaType: string;
  readonly contentType: string;
  /** The file name's extension when saved (Content-Disposition). */
  readonly extension: string;
  readonly description: string;
  readonly render: (doc: CitationDocument) => string;
}

export const CITATION_FORMATS = {
  json: {
    mediaType: 'application/json',
    contentType: JSON_TYPE,
    extension: 'json',
    description: 'The whole citation: the query pinned to its publication, the rows, and each dataset with its DOI link, citation, licence and rows.',
    render: (doc) => JSON.stringify(doc),
  },
  csl: {
    mediaType: CSL_JSON,
    contentType: `${CSL_JSON}; charset=utf-8`,
    extension: 'csl.json',
    description: 'CSL-JSON: an array of one `dataset` item per dataset, for Zotero, Pandoc (citeproc) and reference managers.',
    render: (doc) => JSON.stringify(toCslJson(doc)),
  },
  bibtex: {
    mediaType: 'application/x-bibtex',
    contentType: 'application/x-bibtex; charset=utf-8',
    extension: 'bib',
    description: 'BibTeX: one `@misc` entry per dataset (doi, url, version, licence and rows in `note`); the cited query in comments.',
    render: toBibtex,
  },
  ris: {
    mediaType: 'application/x-research-info-systems',
    contentType: 'application/x-research-info-systems; charset=utf-8',
    extension: 'ris',
    description: 'RIS: one `TY  - DATA` record per dataset.',
    render: toRis,
  },
  text: {
    mediaType: 'text/plain',
    contentType: 'text/plain; charset=utf-8',
    extension: 'txt',
    description: 'A plain-text list: the cited query, then one line per dataset (citation, DOI link, licence, rows).',
    render: toText,
  },
  bibliography: {
    mediaType: 'text/x-bibliography',
    contentType: 'text/x-bibliography; charset=utf-8',
    extension: 'txt',
    description: 'The plain-text list, under the media type doi.org answers formatted citations with.',
    render: toText,
  },
} as const satisfies Record<string, CitationFormatDef>;

export type CitationFormat = keyof typeof CITATION_FORMATS;
export const CITATION_FORMAT_NAMES = Object.keys(CITATION_FORMATS) as CitationFormat[];
/** Without Accept, or with `*\/*`: the whole document. */
export const DEFAULT_CITATION_FORMAT: CitationFormat = 'json';

/** `format=bibtex` or `format=application/x-bibtex`; `csl-json` and `csljson` name CSL-JSON too. */
export function citationFormatByName(value: string): CitationFormat | undefined {
  const v = value.split(';')[0]!.trim().toLowerCase();
  if (v === 'csl-json' || v === 'csljson') return 'csl';
  if (Object.hasOwn(CITATION_FORMATS, v)) return v as CitationFormat;
  return CITATION_FORMAT_NAMES.find((f) => CITATION_FORMATS[f].mediaType === v);
}

/**
 * The format an Accept header asks for: the first media range (by q, then order) that names one; none, `*\/*` or
 * `application/*` give JSON, `text/*` the text list; undefined when it names only others (a 406).
 */
export function citationFormatFromAccept(accept: string | undefined): CitationFormat | undefined {
  return negotiate(accept, { byType: new Map(CITATION_FORMAT_NAMES.map((f) => [CITATION_FORMATS[f].mediaType, f] as const)), any: DEFAULT_CITATION_FORMAT, text: 'text' });
}

/** CSL-JSON items (CSL 1.0.2's variables: `license`, `version`, `DOI`, `URL`, `issued`). */
function toCslJson(doc: CitationDocument): object[] {
  return doc.datasets.map((d) => ({
    id: d.DOI,
    type: 'dataset',
    title: d.DatasetName ?? d.DOI,
    ...(d.DataCollectionOrganization ? { author: [{ literal: d.DataCollectionOrganization }] } : {}),
    ...(d.PublishedTimestamp ? { issued: { 'date-parts': [d.PublishedTimestamp.slice(0, 10).split('-').map(Number)] } } : {}),
    ...(d.Version ? { version: d.Version } : {}),
    DOI: d.DOI,
    URL: d.url,
    ...(d.Licence ? { license: d.Licence } : {}),
    note: `${d.Citation} ${d.Rows} of the ${doc.rows} ${doc.resource} rows of ${doc.url}`,
  }));
}

/** The text list; a dataset's own text that a spreadsheet would run as a formula gets a leading `'` (csv-cell.ts). */
function toText(doc: CitationDocument): string {
  const head = `Cite these ${doc.datasets.length} dataset(s) for the ${doc.rows} ${doc.resource} rows of ${doc.url}${doc.publication ? ` (publication ${doc.publication})` : ''}:`;
  const lines = doc.datasets.map((d) => {
    const link = d.Citation.includes(d.url) ? '' : ` ${d.url}`;
    return `- ${neutraliseCell(d.Citation.replace(/\s+/g, ' ').trim())}${link} Licence: ${neutraliseCell(d.Licence ?? 'not stated')}. ${d.Rows} rows.`;
  });
  const guidelines = doc.guidelines?.length
    ? ['And the guidelines the rows are compared with:', ...doc.guidelines.map((g) => `- ${neutraliseCell(g.Publisher)}${g.Source ? ` ${g.Source}` : ''}. ${g.Rows} rows.`)]
    : [];
  return `${[head, ...lines, ...guidelines].join('\n')}\n`;
}
