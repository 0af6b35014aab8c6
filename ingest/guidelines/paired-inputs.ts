import { literal } from '../sql.js';
import type { InputName } from './guideline-expression.js';

/**
 * The inputs Tributary pairs with a formula guideline (docs/guidelines.md, "Inputs"; shared guidelines README §3):
 * each declared once, with the unit it is compared in, what a sentence calls it and where its value comes from.
 * The inputs step, the unit conversions, the formulas' sentences and `Inputs` all read this table.
 */

/** A characteristic measured that day (of one fraction, when only one counts). */
export interface Measured {
  readonly characteristic: string;
  readonly fraction?: string;
}

/** A weighted sum of measured characteristics, each term from the first of its sources found (hardness from Ca and Mg). */
export interface WeightedSum {
  readonly terms: readonly { readonly weight: number; readonly from: readonly Measured[] }[];
}

export type InputSource = Measured | WeightedSum;

export interface PairedInput {
  /** The unit its values convert to before they are averaged: a DataStream unit name, or '' (pH: taken as reported). */
  readonly unit: string;
  /** What a sentence calls it: "no water temperature measured at this location on this day". */
  readonly label: string;
  /** Where its value comes from, the first found that day first. */
  readonly sources: readonly InputSource[];
}

const measured = (characteristic: string, fraction?: string): Measured => (fraction === undefined ? { characteristic } : { characteristic, fraction });
/** Dissolved, else Total. */
const dissolvedElseTotal = (characteristic: string) => [measured(characteristic, 'Dissolved'), measured(characteristic, 'Total')];

export const pairedInputs = {
  hardness: {
    unit: 'mg/L',
    label: 'hardness',
    // As CaCO3 from calcium and magnesium: 2.497 and 4.118 are CaCO3's molar mass over Ca's and Mg's.
    sources: [measured('Total hardness'), measured('Hardness, Ca, Mg'), { terms: [{ weight: 2.497, from: dissolvedElseTotal('Calcium') }, { weight: 4.118, from: dissolvedElseTotal('Magnesium') }] }],
  },
  pH: { unit: '', label: 'pH', sources: [measured('pH'), measured('pH, lab')] },
  temperature: { unit: 'deg C', label: 'water temperature', sources: [measured('Temperature, water')] },
  DOC: { unit: 'mg/L', label: 'dissolved organic carbon', sources: [measured('Organic carbon', 'Dissolved')] },
} as const satisfies Partial<Record<InputName, PairedInput>>;

export type PairedName = keyof typeof pairedInputs;
export const pairedNames = Object.keys(pairedInputs) as PairedName[];
export const isPaired = (name: InputName): name is PairedName => Object.hasOwn(pairedInputs, name);
export const inputOf = (name: PairedName): PairedInput => pairedInputs[name];

export const isSum = (s: InputSource): s is WeightedSum => 'terms' in s;

/** Every characteristic an input is measured as, with the unit it converts to. */
export function measuredCharacteristics(): { readonly characteristic: string; readonly unit: string }[] {
  const out = new Map<string, string>();
  for (const name of pairedNames) {
    const { unit, sources } = inputOf(name);
    for (const s of sources) for (const m of isSum(s) ? s.terms.flatMap((t) => t.from) : [s]) out.set(m.characteristic, unit);
  }
  return [...out].map(([characteristic, unit]) => ({ characteristic, unit }));
}

/** Each input's unit for the clamp sentences of compiled formulas (guideline-sql.ts). */
export const inputUnits: Readonly<Partial<Record<InputName, string>>> = Object.fromEntries(pairedNames.map((n) => [n, inputOf(n).unit]).filter(([, u]) => u !== ''));

/** "hardness, pH, temperature and DOC". */
export const pairedList = `${pairedNames.slice(0, -1).join(', ')} and ${pairedNames.at(-1)}`;

/**
 * SQL: the unit a result of characteristic `column` converts to as an input (NULL for pH, taken as reported, and
 * for a characteristic no input is measured as).
 */
export function inputUnitSql(column: string): string {
  return `CASE ${column} ${converted().map((m) => `WHEN ${literal(m.characteristic)} THEN ${literal(m.unit)}`).join(' ')} END`;
}

const converted = () => measuredCharacteristics().filter((m) => m.unit !== '');
/** SQL: the characteristics an input converts, as an IN list. */
export const convertedInputs = (): string => converted().map((m) => literal(m.characteristic)).join(', ');
