/**
 * Test support: a seeded hub of trend series with known shapes, as DataStream datasets (trend-datasets.ts): slopes
 * up, down and flat; seasonal and not; monthly, quarterly and several samples a month; gaps that leave periods
 * unassessed; detection limits that change over time, `>` values above a counting range, ties from rounding;
 * quality-control results that must be ignored; non-detects whose unit is only on their limit.
 */
import { createRandom } from '../sample/prng.js';
import type { TestDataset, TestObservation } from './trend-datasets.js';

type Sampling = 'monthly' | 'quarterly' | 'several' | 'gappy' | 'sparse';

interface SeriesSpec {
  readonly characteristic: string;
  readonly unit: string;
  readonly fraction?: string;
  readonly speciation?: string;
  /** Level, slope per year (relative to the level), seasonal amplitude (relative), noise (relative). */
  readonly level: number;
  readonly slope: number;
  readonly season: number;
  readonly noise: number;
  readonly sampling: Sampling;
  /** Values below the limit of their year are written as `<limit`; limits change over time. */
  readonly limits?: readonly (readonly [fromYear: number, limit: number])[];
  /** Values above it are written as `>cap`. */
  readonly cap?: number;
  /** Decimal places values are rounded to (few: many ties). */
  readonly decimals: number;
}

const CHARACTERISTICS: readonly Omit<SeriesSpec, 'level' | 'slope' | 'season' | 'noise' | 'sampling' | 'decimals' | 'limits' | 'cap'>[] = [
  { characteristic: 'Ammonia and ammonium', unit: 'mg/L', fraction: 'Filtered', speciation: 'as N' },
  { characteristic: 'Escherichia coli', unit: 'MPN/100mL' },
  { characteristic: 'Dissolved oxygen (DO)', unit: 'mg/L' },
  { characteristic: 'pH', unit: 'None' },
  { characteristic: 'Total Phosphorus, mixed forms', unit: 'mg/L', fraction: 'Unfiltered', speciation: 'as P' },
  { characteristic: 'Chloride', unit: 'mg/L', fraction: 'Dissolved' },
];

const pick = <T>(random: () => number, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

function seriesSpec(random: () => number, i: number): SeriesSpec {
  const base = CHARACTERISTICS[i % CHARACTERISTICS.length]!;
  const censored = base.characteristic === 'Ammonia and ammonium' || base.characteristic === 'Total Phosphorus, mixed forms';
  return {
    ...base,
    level: base.unit === 'None' ? 7.5 : base.characteristic === 'Escherichia coli' ? 200 : 1 + random() * 20,
    slope: pick(random, [-0.06, -0.02, 0, 0, 0.02, 0.06]),
    season: pick(random, [0, 0, 0.3, 0.6]),
    noise: pick(random, [0.05, 0.2, 0.5]),
    sampling: pick(random, ['monthly', 'monthly', 'quarterly', 'several', 'gappy', 'sparse'] as const),
    // pH to whole units now and then: few distinct values, long runs (LWP's checks).
    decimals: base.unit === 'None' ? pick(random, [0, 1]) : pick(random, [1, 2, 3]),
    // Limits that change over time; now and then so high that most values are censored.
    ...(censored ? { limits: pick(random, [[[2000, 0.7], [2016, 0.4], [2020, 1.1]], [[2000, 3]]] as const) } : {}),
    ...(base.characteristic === 'Escherichia coli' ? { cap: 300 } : {}),
  };
}

/** The dates a sampling plan visits between two years. */
function dates(random: () => number, sampling: Sampling, from: number, to: number): string[] {
  const out: string[] = [];
  const day = (y: number, m: number, d: number) => `${y}-${String(m).padStart(2, '0')}-${String(Math.min(d, 28)).padStart(2, '0')}`;
  for (let y = from; y <= to; y++) {
    if (sampling === 'gappy' && (y % 4 === 1 || y === to - 2)) continue;
    for (let m = 1; m <= 12; m++) {
      if (sampling === 'quarterly' && m % 3 !== 2) continue;
      if (sampling === 'sparse' && random() < 0.3) continue;
      const visits = sampling === 'several' ? 1 + Math.floor(random() * 4) : 1;
      for (let v = 0; v < visits; v++) out.push(day(y, m, 1 + Math.floor(random() * 28)));
    }
  }
  return out;
}

function valueText(spec: SeriesSpec, date: string, random: () => number): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const t = year - 2010 + (month - 1) / 12;
  const shape = 1 + spec.slope * t + spec.season * Math.sin((2 * Math.PI * (month - 1)) / 12);
  const v = Number((spec.level * Math.max(0.05, shape) * (1 + spec.noise * (random() - 0.5))).toFixed(spec.decimals));
  const limit = spec.limits?.filter(([from]) => year >= from).at(-1)?.[1];
  if (limit !== undefined && v < limit * spec.level * 0.4) return `<${Number((limit * spec.level * 0.4).toFixed(spec.decimals + 1))}`;
  if (spec.cap !== undefined && v > spec.cap) return `>${spec.cap}`;
  return String(v);
}

/** One dataset of `locations` locations, each with a few series, observed from `from` to `to`. */
export function trendDataset(seed: number, folder: string, options: { locations: number; series: number; from: number; to: number }): TestDataset {
  const random = createRandom(seed).next;
  const observations: TestObservation[] = [];
  const locations: Record<string, { type: string; latitude: number; longitude: number }> = {};
  for (let l = 0; l < options.locations; l++) {
    const location = `${folder.toUpperCase()}-${l + 1}`;
    locations[location] = { type: pick(random, ['River/Stream', 'Lake/Pond']), latitude: 49 + random() * 8, longitude: -120 + random() * 20 };
    for (let s = 0; s < options.series; s++) {
      const spec = seriesSpec(random, l * 7 + s + seed);
      const { characteristic, unit, fraction, speciation } = spec;
      const common = { location, characteristic, unit, ...(fraction ? { fraction } : {}), ...(speciation ? { speciation } : {}) };
      for (const date of dates(random, spec.sampling, options.from, options.to)) {
        const time = random() < 0.5 ? undefined : `${String(8 + Math.floor(random() * 9)).padStart(2, '0')}:${random() < 0.5 ? '00' : '30'}`;
        observations.push({ ...common, date, ...(time ? { time } : {}), value: valueText(spec, date, random) });
        // A field replicate now and then: a quality-control result, never an environmental one.
        if (random() < 0.05) observations.push({ ...common, date, value: String(spec.level * 10), activityType: 'Quality Control Field Replicate Msr/Obs' });
      }
    }
  }
  return { folder, doi: `10.5072/trend-hub-${folder}`, name: `Trend hub ${folder}`, observations, locations };
}
