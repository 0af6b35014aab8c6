/**
 * Direction, polarity and LAWA's categories (../shared/trends/README.md §9), and the Reason a row gives.
 */

export type ImprovesWhen = 'increasing' | 'decreasing' | null;

/** §9: characteristics that improve as they increase (clarity, oxygen). */
const IMPROVES_INCREASING: ReadonlySet<string> = new Set([
  'Dissolved oxygen (DO)', 'Dissolved oxygen saturation', 'Depth, Secchi disk depth', 'Transparency, tube with disk',
  'Transparency, Secchi tube with disk', 'Light attenuation, depth at 99%',
]);

/** §9: characteristics with no improving direction (their Direction is the answer). */
const NO_POLARITY: ReadonlySet<string> = new Set([
  'pH', 'pH, lab', 'pH, saturated', 'Temperature, water', 'Temperature, air', 'Alkalinity, total',
  'Alkalinity, bicarbonate', 'Alkalinity, carbonate', 'Alkalinity, Hydroxide',
  'Alkalinity, Phenolphthalein (total hydroxide+1/2 carbonate)', 'Total hardness', 'Hardness, Ca, Mg',
  'Hardness, Calcium', 'Hardness, carbonate', 'Hardness, magnesium', 'Hardness, non-carbonate', 'Calcium',
  'Magnesium', 'Potassium', 'Silica', 'Silica, reactive', 'Silicate', 'Inorganic carbon',
  'Delta nitrogen-15/nitrogen-14', 'Delta oxygen-17/oxygen-16', 'Delta oxygen-18/oxygen-16',
  'Oxygen-18/Oxygen-16 ratio', 'Nitrogen-15/Nitrogen-14 ratio', 'Light, photosynthetic active radiation (PAR)',
  'Light, Photosynthetic Photon Flux Density (PPFD)', 'Light, underwater incident',
]);

export function improvesWhen(characteristicName: string): ImprovesWhen {
  if (IMPROVES_INCREASING.has(characteristicName)) return 'increasing';
  if (NO_POLARITY.has(characteristicName)) return null;
  return 'decreasing';
}

/** §9: LWP's trend direction from Cd. */
export function direction(Cd: number | null): 'Increasing' | 'Decreasing' | 'Indeterminate' | 'Not Analysed' {
  if (Cd === null) return 'Not Analysed';
  return Cd > 0.5 ? 'Decreasing' : Cd < 0.5 ? 'Increasing' : 'Indeterminate';
}

/**
 * §9: LAWA's five classes on the probability of degradation, each right-closed; `Not Analysed` without Cd; null for
 * a characteristic without polarity, analysed or not (it never has a category).
 */
export function category(Cd: number | null, polarity: ImprovesWhen): string | null {
  if (polarity === null) return null;
  if (Cd === null) return 'Not Analysed';
  const PD = polarity === 'decreasing' ? 1 - Cd : Cd;
  if (PD <= 0.1) return 'Very likely improving';
  if (PD <= 0.33) return 'Likely improving';
  if (PD <= 0.67) return 'Indeterminate';
  if (PD <= 0.9) return 'Likely degrading';
  return 'Very likely degrading';
}

/** §9's Reason. */
export function reason(unassessed: boolean, Cd: number | null, polarity: ImprovesWhen): string | null {
  if (unassessed) return 'unassessed';
  if (Cd === null) return 'not analysed';
  if (polarity === null) return 'no polarity';
  return null;
}
