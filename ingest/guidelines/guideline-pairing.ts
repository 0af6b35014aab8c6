/**
 * Which guidelines apply to an observation, beyond its characteristic, fraction and speciation: the guideline's
 * medium and ecosystem against the observation's ActivityMediaName and its location's MonitoringLocationType, and
 * its jurisdictions against the location's regions. docs/guidelines.md ("Pairing") shows these tables.
 */

/** ActivityMediaName → the summary's Media Name. Groundwater, air and rain have no aquatic-life guideline. */
export const mediaOf: Readonly<Record<string, string>> = {
  'Surface Water': 'Water',
  'Ocean Water': 'Water',
  'Surface Water Sediment': 'Sediment',
  'Subsurface Soil/Sediment': 'Sediment',
  Porewater: 'Pore Water',
};

/**
 * MonitoringLocationType → the summary's Ecosystem. Ocean and estuary are marine (CCME's marine guidelines cover
 * estuaries); surface fresh waters are freshwater; wells, boreholes and the atmosphere are neither. An observation
 * of `Ocean Water` is marine wherever it was taken.
 */
export const ecosystemOf: Readonly<Record<string, string>> = {
  Ocean: 'Marine',
  Estuary: 'Marine',
  'River/Stream': 'Freshwater',
  'Lake/Pond': 'Freshwater',
  'Great Lake': 'Freshwater',
  Reservoir: 'Freshwater',
  Wetland: 'Freshwater',
  'Canal Drainage': 'Freshwater',
  'Canal Irrigation': 'Freshwater',
  'Canal Transport': 'Freshwater',
  'Pond-Stormwater': 'Freshwater',
  Spring: 'Freshwater',
  Seep: 'Freshwater',
  'Storm Sewer': 'Freshwater',
  Unspecified: 'Freshwater',
};
export const marineMedia = 'Ocean Water';

/**
 * A jurisdiction code of the summary's Region (`CA`, `CA-XX`, `US`, `US-XX`) → the RegionId whose members it
 * covers (ingest/regions.ts: `admin.2.<country>`, `admin.4.<country>.<subdivision>`): `CA` covers every Canadian
 * location, `CA-ON` the locations in Ontario.
 */
export function regionOfJurisdiction(code: string): string | undefined {
  const m = /^([A-Za-z]{2})(?:-([A-Za-z]{2,3}))?$/.exec(code.trim());
  if (!m) return undefined;
  return m[2] ? `admin.4.${m[1]!.toLowerCase()}.${m[2].toLowerCase()}` : `admin.2.${m[1]!.toLowerCase()}`;
}

/**
 * CharacteristicNames that do not say what was measured, with what they may stand for. A result of one pairs with
 * the guidelines of each candidate and is `indeterminate`, its Reason saying why: never compared as if it were
 * either. No guideline is keyed by one (the key audit's test, guideline-key-audit.test.ts).
 */
export const ambiguousCharacteristics: Readonly<Record<string, { readonly candidates: readonly string[]; readonly reason: string }>> = {
  // DataStream's quality-control rule CharacteristicName-Ammonia: "Ammonia is ambiguous and planned for deprecation."
  Ammonia: {
    candidates: ['Ammonia and ammonium', 'Ammonia, un-ionized'],
    reason:
      "'Ammonia' does not say whether total or un-ionized ammonia was measured (DataStream deprecates it as ambiguous): " +
      "reported as 'Ammonia and ammonium' (total) or 'Ammonia, un-ionized', the result would be compared",
  },
};

/** The characteristics whose guidelines a build measuring `measured` pairs with: those, and the candidates of the ambiguous ones. */
export function pairedCharacteristics(measured: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const c of measured) {
    out.add(c);
    for (const candidate of ambiguousCharacteristics[c]?.candidates ?? []) out.add(candidate);
  }
  return out;
}
