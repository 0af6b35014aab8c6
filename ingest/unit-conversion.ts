import { createRequire } from 'node:module';

/**
 * Unit conversion for guideline comparisons through UCUM (@lhncbc/ucum-lhc, the NLM's implementation of the Unified
 * Code for Units of Measure): DataStream's unit names map to UCUM codes in the one table below (names → codes, never
 * factors); UCUM gives the conversion. A unit not in the table, or a pair UCUM cannot convert (mg/L to ppm,
 * mmol/L to mg/L without a molar mass), has no conversion, and the comparison says so.
 */

/** DataStream unit name (ResultUnit, ResultDetectionQuantitationLimitUnit, the summary's Unit) → UCUM code. */
export const ucumCodes: Readonly<Record<string, string>> = {
  // No unit: pH, and the summary's pH rows.
  '': '1', None: '1',
  'g/L': 'g/L', 'mg/L': 'mg/L', 'ug/L': 'ug/L', 'µg/L': 'ug/L', 'ng/L': 'ng/L', 'pg/L': 'pg/L',
  'mg/mL': 'mg/mL', 'ng/mL': 'ng/mL', 'pg/mL': 'pg/mL',
  'mg/g': 'mg/g', 'ug/g': 'ug/g', 'µg/g': 'ug/g', 'ng/g': 'ng/g', 'MPN/g': '{MPN}/g',
  'mg/kg': 'mg/kg', 'ug/kg': 'ug/kg', 'µg/kg': 'ug/kg', 'ng/kg': 'ng/kg', 'kg/t': 'kg/t',
  'mg/m2': 'mg/m2', 'g/m2': 'g/m2', 'mg/m3': 'mg/m3', 'ug/m3': 'ug/m3',
  'mmol/L': 'mmol/L', 'umol/L': 'umol/L', 'Mole/L': 'mol/L', 'eq/L': 'eq/L', 'meq/L': 'meq/L', 'ueq/L': 'ueq/L',
  'Bq/L': 'Bq/L', 'mBq/L': 'mBq/L', 'pCi/L': 'pCi/L',
  'deg C': 'Cel', degC: 'Cel', 'deg F': '[degF]',
  '%': '%', ppm: '[ppm]', ppb: '[ppb]', ppth: '[ppth]',
  mmHg: 'mm[Hg]', kPa: 'kPa', psi: '[psi]',
  'uS/cm': 'uS/cm', 'mS/cm': 'mS/cm', 'S/m': 'S/m', 'uS/m': 'uS/m', mV: 'mV',
  '#/100mL': '/(100.mL)', '#/100L': '/(100.L)', '#/mL': '/mL', 'cfu/100mL': '{CFU}/(100.mL)', 'cfu/mL': '{CFU}/mL', 'MPN/100mL': '{MPN}/(100.mL)',
  m: 'm', cm: 'cm', mm: 'mm', ft: '[ft_i]', in: '[in_i]',
};

interface UcumUtils {
  convertUnitTo(from: string, value: number, to: string): { status: string; toVal: number | null };
}
const ucum = (createRequire(import.meta.url)('@lhncbc/ucum-lhc') as { UcumLhcUtils: { getInstance(): UcumUtils } }).UcumLhcUtils.getInstance();

/** to = from × factor + offset (an offset only between temperature scales). */
export interface Conversion {
  readonly factor: number;
  readonly offset: number;
}

/** The conversion from one DataStream unit to another (null or '' is no unit), or undefined when there is none. */
export function conversion(from: string | null, to: string | null): Conversion | undefined {
  const a = ucumCodes[from ?? ''];
  const b = ucumCodes[to ?? ''];
  if (a === undefined || b === undefined) return undefined;
  if (a === b) return { factor: 1, offset: 0 };
  const zero = ucum.convertUnitTo(a, 0, b);
  const one = ucum.convertUnitTo(a, 1, b);
  if (zero.status !== 'succeeded' || one.status !== 'succeeded' || zero.toVal === null || one.toVal === null) return undefined;
  return { factor: one.toVal - zero.toVal, offset: zero.toVal };
}
