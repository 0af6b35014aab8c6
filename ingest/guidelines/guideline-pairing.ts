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
