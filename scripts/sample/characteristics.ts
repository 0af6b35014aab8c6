/**
 * Characteristic profiles: real DataStream CharacteristicName and unit values with plausible magnitudes. Field
 * and logger programmes draw from a handful of physical parameters; lab programmes from a longer chemistry list
 * whose first entries are the common ones (the draw is skewed towards them).
 */
export interface Profile {
  readonly name: string;
  /** ResultUnit; null when the value has no unit in the export (DataStream writes 'None' for pH). */
  readonly unit: string;
  readonly mean: number;
  readonly sd: number;
  /** Added at mid-season (sine over May–Oct); negative for oxygen, which falls as water warms. */
  readonly seasonal: number;
  readonly min: number;
  readonly max: number;
  readonly decimals: number;
  /** Lab values are log-normal: mean * exp(sd * N). */
  readonly logNormal?: boolean;
  /** Values below it are reported as below this detection limit, with the limit. */
  readonly detectionLimit?: number;
  readonly fraction?: string;
  readonly speciation?: string;
  readonly methodId?: string;
  readonly methodContext?: string;
  readonly methodName?: string;
  /** ActivityMediaName, when not the water's (air temperature is measured in the air). */
  readonly media?: string;
}

const field = (p: Omit<Profile, 'min' | 'max'> & Partial<Pick<Profile, 'min' | 'max'>>): Profile => ({ min: 0, max: 1e6, ...p });

export const temperatureWater = field({ name: 'Temperature, water', unit: 'deg C', mean: 6, sd: 1.2, seasonal: 14, decimals: 2, max: 32 });
export const dissolvedOxygen = field({ name: 'Dissolved oxygen (DO)', unit: 'mg/L', mean: 12, sd: 0.6, seasonal: -3.5, decimals: 2 });
export const specificConductance = field({ name: 'Specific conductance', unit: 'uS/cm', mean: 420, sd: 40, seasonal: 60, decimals: 1 });
export const ph = field({ name: 'pH', unit: 'None', mean: 7.6, sd: 0.25, seasonal: 0.3, decimals: 2, min: 4, max: 10 });

/** Physical parameters of field visits, after the four every programme measures. */
export const fieldExtras: readonly Profile[] = [
  field({ name: 'Dissolved oxygen saturation', unit: '%', mean: 98, sd: 5, seasonal: -4, decimals: 1, max: 160 }),
  field({ name: 'Turbidity', unit: 'NTU', mean: 4, sd: 3, seasonal: 2, decimals: 1 }),
  field({ name: 'Temperature, air', unit: 'deg C', mean: 8, sd: 4, seasonal: 14, decimals: 1, min: -40, max: 40, media: 'Ambient Air' }),
  field({ name: 'Depth, Secchi disk depth', unit: 'm', mean: 2.5, sd: 0.8, seasonal: -0.5, decimals: 2 }),
  field({ name: 'Salinity', unit: 'ppth', mean: 0.2, sd: 0.05, seasonal: 0.05, decimals: 2 }),
];

const lab = (p: Omit<Profile, 'seasonal' | 'min' | 'max' | 'logNormal'>): Profile => ({ seasonal: 0, min: 0, max: 1e9, logNormal: true, ...p });
const apha = (id: string, name: string) => ({ methodId: id, methodContext: 'APHA', methodName: name });
const epa = (id: string, name: string) => ({ methodId: id, methodContext: 'USEPA', methodName: name });

/** Lab chemistry, most common first. */
export const labProfiles: readonly Profile[] = [
  lab({ name: 'Total Phosphorus, mixed forms', unit: 'mg/L', mean: 0.04, sd: 0.7, decimals: 4, detectionLimit: 0.002, fraction: 'Unfiltered', speciation: 'as P', ...apha('4500-P E', 'Persulfate digestion, ascorbic acid') }),
  lab({ name: 'Total Nitrogen, mixed forms', unit: 'mg/L', mean: 0.6, sd: 0.5, decimals: 3, detectionLimit: 0.02, fraction: 'Unfiltered', speciation: 'as N', ...apha('4500-N C', 'Persulfate method') }),
  lab({ name: 'Nitrate', unit: 'mg/L', mean: 0.15, sd: 0.9, decimals: 3, detectionLimit: 0.005, fraction: 'Filtered', speciation: 'as N', ...epa('300.0', 'Ion chromatography') }),
  // Total ammonia (NH3 + NH4+) as N by the phenate method: DataStream's 'Ammonia and ammonium' ('Ammonia' is deprecated
  // as ambiguous, and un-ionized ammonia is computed from it, not measured).
  lab({ name: 'Ammonia and ammonium', unit: 'mg/L', mean: 0.02, sd: 0.8, decimals: 3, detectionLimit: 0.01, fraction: 'Unfiltered', speciation: 'as N', ...apha('4500-NH3 G', 'Automated phenate') }),
  lab({ name: 'Chloride', unit: 'mg/L', mean: 12, sd: 0.6, decimals: 2, detectionLimit: 0.1, fraction: 'Dissolved', ...epa('300.0', 'Ion chromatography') }),
  lab({ name: 'Total suspended solids', unit: 'mg/L', mean: 6, sd: 0.9, decimals: 1, detectionLimit: 1, ...apha('2540 D', 'Dried at 103-105 C') }),
  lab({ name: 'Escherichia coli', unit: 'MPN/100mL', mean: 25, sd: 1.1, decimals: 0, detectionLimit: 1, ...apha('9223 B', 'Colilert') }),
  lab({ name: 'Sulfate', unit: 'mg/L', mean: 20, sd: 0.6, decimals: 2, detectionLimit: 0.3, fraction: 'Dissolved', speciation: 'as SO4', ...epa('300.0', 'Ion chromatography') }),
  lab({ name: 'Alkalinity, total', unit: 'mg/L', mean: 110, sd: 0.3, decimals: 1, detectionLimit: 1, fraction: 'Total', speciation: 'as CaCO3', ...apha('2320 B', 'Titration') }),
  lab({ name: 'Chlorophyll a, uncorrected for pheophytin', unit: 'ug/L', mean: 3, sd: 0.9, decimals: 2, detectionLimit: 0.05, ...epa('445.0', 'Fluorometry') }),
  lab({ name: 'Organic carbon', unit: 'mg/L', mean: 6, sd: 0.4, decimals: 2, detectionLimit: 0.5, fraction: 'Dissolved', ...apha('5310 B', 'High-temperature combustion') }),
  lab({ name: 'Calcium', unit: 'mg/L', mean: 35, sd: 0.4, decimals: 2, detectionLimit: 0.05, fraction: 'Dissolved', ...epa('200.7', 'ICP-OES') }),
  lab({ name: 'Magnesium', unit: 'mg/L', mean: 10, sd: 0.4, decimals: 2, detectionLimit: 0.05, fraction: 'Dissolved', ...epa('200.7', 'ICP-OES') }),
  lab({ name: 'Sodium', unit: 'mg/L', mean: 9, sd: 0.6, decimals: 2, detectionLimit: 0.05, fraction: 'Dissolved', ...epa('200.7', 'ICP-OES') }),
  lab({ name: 'Hardness, Ca, Mg', unit: 'mg/L', mean: 130, sd: 0.3, decimals: 1, detectionLimit: 0.5, fraction: 'Total', speciation: 'as CaCO3', ...apha('2340 B', 'Calculation') }),
  lab({ name: 'Nitrite', unit: 'mg/L', mean: 0.003, sd: 0.8, decimals: 4, detectionLimit: 0.002, fraction: 'Filtered', speciation: 'as N', ...epa('300.0', 'Ion chromatography') }),
  lab({ name: 'Iron', unit: 'ug/L', mean: 150, sd: 0.8, decimals: 1, detectionLimit: 5, fraction: 'Total', ...epa('200.8', 'ICP-MS') }),
  lab({ name: 'Manganese', unit: 'ug/L', mean: 20, sd: 0.9, decimals: 2, detectionLimit: 0.5, fraction: 'Total', ...epa('200.8', 'ICP-MS') }),
  lab({ name: 'Copper', unit: 'ug/L', mean: 1.2, sd: 0.7, decimals: 3, detectionLimit: 0.2, fraction: 'Total', ...epa('200.8', 'ICP-MS') }),
  lab({ name: 'Zinc', unit: 'ug/L', mean: 3, sd: 0.8, decimals: 2, detectionLimit: 1, fraction: 'Total', ...epa('200.8', 'ICP-MS') }),
  lab({ name: 'Arsenic', unit: 'ug/L', mean: 0.8, sd: 0.6, decimals: 3, detectionLimit: 0.1, fraction: 'Total', ...epa('200.8', 'ICP-MS') }),
  lab({ name: 'Lead', unit: 'ug/L', mean: 0.15, sd: 0.9, decimals: 3, detectionLimit: 0.05, fraction: 'Total', ...epa('200.8', 'ICP-MS') }),
  lab({ name: 'Cadmium', unit: 'ug/L', mean: 0.01, sd: 0.8, decimals: 4, detectionLimit: 0.01, fraction: 'Total', ...epa('200.8', 'ICP-MS') }),
  lab({ name: 'Mercury', unit: 'ug/L', mean: 0.004, sd: 0.7, decimals: 4, detectionLimit: 0.005, fraction: 'Total', ...epa('245.1', 'Cold vapour AA') }),
];

/**
 * The rare characteristic of the benchmark's "sparse scattered filter": measured at one location in each field
 * and lab dataset, so it matches a few locations spread over most datasets.
 */
export const RARE_CHARACTERISTIC = 'Microcystin';

export const rareProfile: Profile = {
  name: RARE_CHARACTERISTIC, unit: 'ug/L', mean: 0.3, sd: 0.9, seasonal: 0, min: 0, max: 1e4, decimals: 2, logNormal: true,
  detectionLimit: 0.15, fraction: 'Total', methodName: 'ELISA',
};

/** The same, measured in place by a field programme: no sample fraction (DataStream's rule ActivityType-ResultSampleFraction). */
export const rareFieldProfile: Profile = {
  name: RARE_CHARACTERISTIC, unit: 'ug/L', mean: 0.3, sd: 0.9, seasonal: 0, min: 0, max: 1e4, decimals: 2, logNormal: true, detectionLimit: 0.15, methodName: 'ELISA',
};
