/**
 * The URL of a dataset's licence, the one table every page reads: the signposting `license` link, the citation
 * formats, the landing pages' schema.org `license` and the DCAT catalogue's `dct:license`, so a dataset's licence is
 * one URL wherever it is named. The `Licence` text of `/Metadata` is a name as the provider wrote it ("CC BY 4.0",
 * "ODC-By", "Creative Commons Attribution 4.0"), or a URL. Names are matched after folding case, spaces, hyphens,
 * dashes and underscores; an unknown name has no URL (no link is sent; pages name it as text).
 */

const LICENCES: Readonly<Record<string, string>> = {
  'cc by 4.0': 'https://creativecommons.org/licenses/by/4.0/',
  'cc by sa 4.0': 'https://creativecommons.org/licenses/by-sa/4.0/',
  'cc by nc 4.0': 'https://creativecommons.org/licenses/by-nc/4.0/',
  'cc0': 'https://creativecommons.org/publicdomain/zero/1.0/',
  'cc0 1.0': 'https://creativecommons.org/publicdomain/zero/1.0/',
  // DataStream publishes under the Open Data Commons Attribution Licence, which has one version.
  'odc by': 'https://opendatacommons.org/licenses/by/1-0/',
  'odc by 1.0': 'https://opendatacommons.org/licenses/by/1-0/',
  'odbl': 'https://opendatacommons.org/licenses/odbl/1-0/',
  'odc odbl': 'https://opendatacommons.org/licenses/odbl/1-0/',
  'odc odbl 1.0': 'https://opendatacommons.org/licenses/odbl/1-0/',
  'odbl 1.0': 'https://opendatacommons.org/licenses/odbl/1-0/',
  'pddl': 'https://opendatacommons.org/licenses/pddl/1-0/',
  'pddl 1.0': 'https://opendatacommons.org/licenses/pddl/1-0/',
  'ogl canada 2.0': 'https://open.canada.ca/en/open-government-licence-canada',
  'open government licence canada': 'https://open.canada.ca/en/open-government-licence-canada',
};

/** A URL is taken as written when nothing in it could end a `Link` header's `<…>` or a RIS line. */
const PLAIN_URL = /^https?:\/\/[^\s<>"{}\\^`|]+$/;

/**
 * @example
 * licenceUrl('CC-BY 4.0') // → 'https://creativecommons.org/licenses/by/4.0/'
 * licenceUrl('Ask the steward') // → undefined
 */
export function licenceUrl(licence: string | null | undefined): string | undefined {
  if (!licence) return undefined;
  const text = licence.trim();
  if (PLAIN_URL.test(text)) return text;
  const name = text.toLowerCase().replace(/[\s_\-–—]+/g, ' ').replace(/\s*\(.*\)$/, '').trim().replace(/^creative commons attribution /, 'cc by ');
  return Object.hasOwn(LICENCES, name) ? LICENCES[name] : undefined;
}
