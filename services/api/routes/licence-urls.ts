/**
 * A dataset's Licence is text as its provider wrote it ("CC BY 4.0"); schema.org's `license` and DCAT's
 * `dct:license` want the licence's IRI. The licences DataStream's providers use, by the names they write, with their
 * SPDX IRIs; another text stays a name (schema.org: a CreativeWork; DCAT: a LicenseDocument with a label).
 */

const SPDX = 'https://spdx.org/licenses/';

/** Normalised name → SPDX identifier. */
const LICENCES: ReadonlyMap<string, string> = new Map([
  ['cc by 4.0', 'CC-BY-4.0'],
  ['cc-by-4.0', 'CC-BY-4.0'],
  ['cc by-sa 4.0', 'CC-BY-SA-4.0'],
  ['cc by-nc 4.0', 'CC-BY-NC-4.0'],
  ['cc0 1.0', 'CC0-1.0'],
  ['cc0', 'CC0-1.0'],
  ['odc-by 1.0', 'ODC-By-1.0'],
  ['odc by 1.0', 'ODC-By-1.0'],
  ['odbl 1.0', 'ODbL-1.0'],
  ['odc-odbl 1.0', 'ODbL-1.0'],
  ['pddl 1.0', 'PDDL-1.0'],
  ['ogl-canada-2.0', 'OGL-Canada-2.0'],
  ['open government licence - canada', 'OGL-Canada-2.0'],
  ['open government licence – canada', 'OGL-Canada-2.0'],
]);

/** The licence's IRI when the name is one we know (or already a URL); undefined otherwise. */
export function licenceUrl(licence: string | null): string | undefined {
  if (!licence) return undefined;
  if (/^https?:\/\/\S+$/.test(licence.trim())) return licence.trim();
  const id = LICENCES.get(licence.trim().toLowerCase().replace(/\s+/g, ' ').replace(/^creative commons attribution /, 'cc by '));
  return id ? `${SPDX}${id}` : undefined;
}
