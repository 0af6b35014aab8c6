/**
 * The citation formats on a hostile dataset: every TeX special, braces, line breaks and a DOI a URL must encode.
 * BibTeX must stay balanced and say the text back when its escapes are undone; RIS must stay one tag per line.
 */
import { describe, expect, it } from 'vitest';
import { bibtexText, toBibtex } from './bibtex.js';
import type { CitationDocument } from './citation-document.js';
import { citationFormatByName, citationFormatFromAccept, CITATION_FORMATS } from './citation-formats.js';
import { licenceUrl } from './licence-url.js';
import { risText, toRis } from './ris.js';

const HOSTILE = 'R&D {50%} #1: a_b ^ c ~ $5 \\ end}';
const DOC: CitationDocument = {
  resource: 'Records',
  filter: "DatasetName eq 'x'",
  publication: 'p1',
  url: 'https://api.example.org/v1/odata/v4/Records?$filter=x&publication=p1',
  rows: 12,
  datasets: [
    {
      DOI: "10.80052/odd(2026);v:1/it's #1&b+c%20?",
      url: 'https://doi.org/10.80052/odd%282026%29%3Bv%3A1/it%27s%20%231%26b%2Bc%2520%3F',
      DatasetName: HOSTILE,
      Version: '1.0',
      Citation: `Someone.\nTwo lines. ${HOSTILE}`,
      Licence: 'CC BY 4.0',
      LicenceUrl: 'https://creativecommons.org/licenses/by/4.0/',
      DataCollectionOrganization: 'Keepers & Co {Ltd}',
      DataStewardEmail: null,
      PublishedTimestamp: '2021-05-01T00:00:00Z',
      Rows: 10,
    },
    { DOI: '10.1/plain_doi', url: 'https://doi.org/10.1/plain_doi', DatasetName: 'Plain', Version: null, Citation: 'Plain.', Licence: null, LicenceUrl: null, DataCollectionOrganization: null, DataStewardEmail: null, PublishedTimestamp: null, Rows: 2 },
  ],
};

/** Undoes bibtexText's escapes (what TeX would print). */
const unTex = (s: string) =>
  s
    .replace(/\\textbackslash\{\}/g, '\\')
    .replace(/\\textbraceleft\{\}/g, '{')
    .replace(/\\textbraceright\{\}/g, '}')
    .replace(/\\textasciicircum\{\}/g, '^')
    .replace(/\\textasciitilde\{\}/g, '~')
    .replace(/\\([$&%#_])/g, '$1');

describe('BibTeX', () => {
  it('escapes every TeX special so that the text reads back, with braces balanced', () => {
    const escaped = bibtexText(HOSTILE);
    expect(unTex(escaped)).toBe(HOSTILE);
    expect(escaped.match(/\{/g)?.length).toBe(escaped.match(/\}/g)?.length);
    expect(escaped).not.toMatch(/(^|[^\\])[&%#_$]/);
  });

  it('writes one balanced entry per dataset; a DOI that needs escaping is left to the url field', () => {
    const bib = toBibtex(DOC);
    let depth = 0;
    for (const ch of bib) {
      depth += ch === '{' ? 1 : ch === '}' ? -1 : 0;
      expect(depth).toBeGreaterThanOrEqual(0);
    }
    expect(depth).toBe(0);
    const entries = bib.split(/^@misc\{/m).slice(1);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toContain(`  url = {${DOC.datasets[0]!.url}}`);
    expect(entries[0]).not.toContain('  doi = ');
    expect(entries[0]).toContain(`  title = {{${bibtexText(HOSTILE)}}}`);
    expect(entries[0]).toContain('  author = {{Keepers \\& Co \\textbraceleft{}Ltd\\textbraceright{}}}');
    expect(entries[0]).toContain('  year = {2021}');
    expect(entries[1]).toContain('  doi = {10.1/plain_doi}');
    expect(entries[1]).not.toContain('author');
    // Comments before the entries hold no `@`, which BibTeX would read as an entry.
    expect(bib.slice(0, bib.indexOf('@misc'))).toMatch(/^(%[^@\n]*\n|\n)+$/);
  });
});

describe('RIS', () => {
  it('keeps every value on its tag line', () => {
    const ris = toRis(DOC);
    const lines = ris.split('\r\n').filter(Boolean);
    for (const line of lines) expect(line).toMatch(/^[A-Z][A-Z0-9] {2}- /);
    expect(lines.filter((l) => l.startsWith('TY  - DATA'))).toHaveLength(2);
    expect(lines.filter((l) => l === 'ER  - ')).toHaveLength(2);
    expect(lines).toContain(`DO  - ${DOC.datasets[0]!.DOI}`);
    expect(lines).toContain('DA  - 2021/05/01');
    expect(risText('a\r\nTY  - JOUR\nb')).toBe('a TY - JOUR b');
  });
});

describe('CSL-JSON and text', () => {
  it('CSL-JSON items are datasets with their DOI, URL, issued date and licence', () => {
    const items = JSON.parse(CITATION_FORMATS.csl.render(DOC)) as Record<string, unknown>[];
    expect(items[0]).toMatchObject({ id: DOC.datasets[0]!.DOI, type: 'dataset', title: HOSTILE, DOI: DOC.datasets[0]!.DOI, URL: DOC.datasets[0]!.url, version: '1.0', license: 'CC BY 4.0', issued: { 'date-parts': [[2021, 5, 1]] }, author: [{ literal: 'Keepers & Co {Ltd}' }] });
    expect(items[1]).not.toHaveProperty('issued');
  });

  it('the text list is one line per dataset, its citation on one line', () => {
    const lines = CITATION_FORMATS.text.render(DOC).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('Someone. Two lines.');
    expect(lines[2]).toBe('- Plain. https://doi.org/10.1/plain_doi Licence: not stated. 2 rows.');
  });
});

describe('formula text (issue 56 item 2)', () => {
  const TITLE = '=HYPERLINK("http://evil.example","Data")';
  const FORMULA: CitationDocument = {
    ...DOC,
    datasets: [{ ...DOC.datasets[1]!, DatasetName: TITLE, Citation: '@SUM(1+1)*cmd', Licence: '+CC', DataCollectionOrganization: '-Org(2)', Version: '-1' }],
  };
  /** Values as a reader takes them: after a RIS tag, between a BibTeX field's braces, after a text line's dash. */
  const starts = (values: readonly string[]) => values.map((v) => v.trimStart()[0]);

  it('RIS, BibTeX and text give each value a spreadsheet would run a leading quote; a number stays a number', () => {
    const ris = toRis(FORMULA).split('\r\n').filter(Boolean).map((l) => l.slice(6));
    expect(ris).toContain(`'${TITLE}`);
    expect(ris).toContain("'@SUM(1+1)*cmd");
    expect(ris).toContain("'-Org(2)");
    expect(ris).toContain('-1');
    const bib = toBibtex(FORMULA);
    const fields = [...bib.matchAll(/^ {2}\w+ = \{+([^\n]*?)\}+,?$/gm)].map((m) => unTex(m[1]!));
    expect(fields).toContain(`'${TITLE}`);
    expect(fields).toContain("'-Org(2)");
    expect(fields.find((f) => f.includes('SUM'))).toMatch(/^'@SUM/);
    const text = CITATION_FORMATS.text.render(FORMULA).split('\n')[1]!;
    expect(text).toMatch(/^- '@SUM\(1\+1\)\*cmd .* Licence: '\+CC\. 2 rows\.$/);
    expect(starts([...ris, ...fields, text.slice(2)]).filter((c) => c === '=' || c === '@' || c === '+')).toEqual([]);
  });
});

describe('negotiation', () => {
  it.each([
    [undefined, 'json'],
    ['*/*', 'json'],
    ['text/html,application/xhtml+xml,*/*;q=0.8', 'json'],
    ['application/vnd.citationstyles.csl+json', 'csl'],
    ['application/x-bibtex', 'bibtex'],
    ['application/x-research-info-systems', 'ris'],
    ['text/x-bibliography; style=apa', 'bibliography'],
    ['text/*', 'text'],
    ['application/x-bibtex;q=0.2, text/plain;q=0.9', 'text'],
    ['application/pdf', undefined],
    ['application/x-bibtex;q=0', undefined],
  ])('Accept: %s → %s', (accept, format) => {
    expect(citationFormatFromAccept(accept)).toBe(format);
  });

  it.each([['bibtex', 'bibtex'], ['BibTeX', 'bibtex'], ['csl-json', 'csl'], ['application/x-research-info-systems', 'ris'], ['docx', undefined]])('format=%s → %s', (value, format) => {
    expect(citationFormatByName(value)).toBe(format);
  });
});

describe('licenceUrl', () => {
  it.each([
    ['CC BY 4.0', 'https://creativecommons.org/licenses/by/4.0/'],
    ['cc-by-4.0', 'https://creativecommons.org/licenses/by/4.0/'],
    ['ODC-By', 'https://opendatacommons.org/licenses/by/1-0/'],
    ['ODC-By 1.0', 'https://opendatacommons.org/licenses/by/1-0/'],
    ['https://example.org/licence', 'https://example.org/licence'],
    ['https://example.org/a b', undefined],
    ['Ask the steward', undefined],
    [null, undefined],
  ])('%s → %s', (licence, url) => {
    expect(licenceUrl(licence)).toBe(url);
  });
});
