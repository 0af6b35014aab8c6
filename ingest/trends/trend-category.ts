import type { TrendStatistics } from './trend-types.js';

/**
 * What a row says in words (§9): LWP's direction from Cd, the characteristic's polarity, LAWA's five categories
 * from the probability of degradation, and the reason a row has no category.
 */

/** Characteristics that improve as they increase: oxygen and clarity. */
const improvesWhenIncreasing: ReadonlySet<string> = new Set([
  'Dissolved oxygen (DO)', 'Dissolved oxygen saturation', 'Depth, Secchi disk depth', 'Transparency, tube with disk',
  'Transparency, Secchi tube with disk', 'Light attenuation, depth at 99%',
]);

/** Characteristics with no improving direction: their Direction is the answer. */
const noPolarity: ReadonlySet<string> = new Set([
  'pH', 'pH, lab', 'pH, saturated', 'Temperature, water', 'Temperature, air', 'Alkalinity, total', 'Alkalinity, bicarbonate',
  'Alkalinity, carbonate', 'Alkalinity, Hydroxide', 'Alkalinity, Phenolphthalein (total hydroxide+1/2 carbonate)', 'Total hardness',
  'Hardness, Ca, Mg', 'Hardness, Calcium', 'Hardness, carbonate', 'Hardness, magnesium', 'Hardness, non-carbonate', 'Calcium',
  'Magnesium', 'Potassium', 'Silica', 'Silica, reactive', 'Silicate', 'Inorganic carbon', 'Delta nitrogen-15/nitrogen-14',
  'Delta oxygen-17/oxygen-16', 'Delta oxygen-18/oxygen-16', 'Oxygen-18/Oxygen-16 ratio', 'Nitrogen-15/Nitrogen-14 ratio',
  'Light, photosynthetic active radiation (PAR)', 'Light, Photosynthetic Photon Flux Density (PPFD)', 'Light, underwater incident',
]);

export type ImprovesWhen = 'increasing' | 'decreasing';
export type Direction = 'Increasing' | 'Decreasing' | 'Indeterminate' | 'Not Analysed';
export type Reason = 'unassessed' | 'not analysed' | 'no polarity';

export const NOT_ANALYSED = 'Not Analysed';

/** The direction in which a characteristic improves; null when it has none. */
export function improvesWhen(characteristic: string): ImprovesWhen | null {
  if (improvesWhenIncreasing.has(characteristic)) return 'increasing';
  return noPolarity.has(characteristic) ? null : 'decreasing';
}

export function direction(Cd: number | null): Direction {
  if (Cd === null) return NOT_ANALYSED;
  return Cd > 0.5 ? 'Decreasing' : Cd < 0.5 ? 'Increasing' : 'Indeterminate';
}

/** LAWA's categories on the probability of degradation, each class closed on the right. */
export function category(Cd: number | null, polarity: ImprovesWhen | null): string | null {
  if (polarity === null) return null;
  if (Cd === null) return NOT_ANALYSED;
  const degradation = polarity === 'decreasing' ? 1 - Cd : Cd;
  if (degradation <= 0.1) return 'Very likely improving';
  if (degradation <= 0.33) return 'Likely improving';
  if (degradation <= 0.67) return 'Indeterminate';
  if (degradation <= 0.9) return 'Likely degrading';
  return 'Very likely degrading';
}

/** Why a row has no category: unassessed (coverage), not analysed (LWP's checks), no polarity; else null. */
export function reason(stats: TrendStatistics | undefined, polarity: ImprovesWhen | null): Reason | null {
  if (stats === undefined) return 'unassessed';
  if (stats.Cd === null) return 'not analysed';
  return polarity === null ? 'no polarity' : null;
}
