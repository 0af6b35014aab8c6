import { fieldExtras, labProfiles, rareFieldProfile, rareProfile, specificConductance, dissolvedOxygen, ph, temperatureWater, type Profile } from './characteristics.js';
import { siteSuffixes, type DatasetSpec, type ProgrammeKind } from './datasets.js';
import { apportion, type Random } from './prng.js';

/** Rows per location a programme of each kind typically has (loggers: many; lab: a few years of monthly visits). */
export const rowsPerLocation: Readonly<Record<ProgrammeKind, number>> = { continuous: 60_000, field: 300, lab: 400 };

/** Even a small sample has a few loggers per network, so spatial filters have something to split. */
const minimumLocations: Readonly<Record<ProgrammeKind, number>> = { continuous: 3, field: 4, lab: 4 };

export interface LocationPlan {
  readonly id: string;
  readonly name: string;
  readonly latitude: string;
  readonly longitude: string;
  readonly type: string;
  readonly rows: number;
  readonly profiles: readonly Profile[];
  /** First year of the location's record. */
  readonly startYear: number;
  /** Days between visits (field, lab); unused by loggers, which record every 15 minutes. */
  readonly stepDays: number;
  readonly startOffset: number;
}

function pickLabProfiles(random: Random): Profile[] {
  const count = 5 + random.int(8);
  const pool = [...labProfiles];
  const chosen: Profile[] = [];
  // Zipf-like: the common analytes (nutrients first) are in almost every programme, metals in few.
  while (chosen.length < count && pool.length > 0) {
    const i = random.weighted(pool.map((_, j) => 1 / (j + 1)));
    chosen.push(...pool.splice(i, 1));
  }
  return chosen.sort((a, b) => labProfiles.indexOf(a) - labProfiles.indexOf(b));
}

function pickProfiles(kind: ProgrammeKind, waterType: string, random: Random): Profile[] {
  if (kind === 'continuous') {
    const list = [temperatureWater];
    if (random.next() < 0.35) list.push(dissolvedOxygen);
    if (random.next() < 0.25) list.push(specificConductance);
    return list;
  }
  if (kind === 'lab') return pickLabProfiles(random);
  const list = [temperatureWater, ph, dissolvedOxygen, specificConductance];
  const extras = fieldExtras.filter((p) => p.name !== 'Salinity' && (waterType !== 'River/Stream' || p.name !== 'Depth, Secchi disk depth'));
  for (let n = random.int(3); n > 0; n--) {
    const p = random.pick(extras);
    if (!list.includes(p)) list.push(p);
  }
  return list;
}

/** Years a schedule of `events` needs, so start years can keep every record within 2010–2024. */
function yearsNeeded(kind: ProgrammeKind, events: number, stepDays: number): number {
  if (kind === 'continuous') return Math.ceil((20 + (events * 15) / 1440) / 184);
  if (kind === 'field') return Math.ceil((20 + events * stepDays) / 184);
  return Math.ceil((365 + events * stepDays) / 365);
}

/** The locations of one dataset with their row counts (summing to `rows`), characteristics and schedules. */
export function planLocations(spec: DatasetSpec, rows: number, random: Random): LocationPlan[] {
  const count = Math.max(1, Math.min(rows, Math.max(minimumLocations[spec.kind], Math.round(rows / rowsPerLocation[spec.kind]))));
  const rowCounts = apportion(rows, Array.from({ length: count }, () => 0.5 + random.next()));
  const [south, west, north, east] = spec.box;
  return rowCounts.map((locationRows, i) => {
    const [water, type] = random.pick(spec.waters);
    const profiles = pickProfiles(spec.kind, type, random);
    if (spec.kind !== 'continuous' && i === Math.floor(count / 2)) profiles.push(spec.kind === 'lab' ? rareProfile : rareFieldProfile);
    const events = Math.ceil(locationRows / profiles.length);
    let stepDays = spec.kind === 'field' ? 10 + random.int(12) : 28 + random.int(8);
    let years = yearsNeeded(spec.kind, events, stepDays);
    if (years > 15 && spec.kind !== 'continuous') {
      stepDays = Math.max(4, Math.floor((stepDays * 15) / years));
      years = yearsNeeded(spec.kind, events, stepDays);
    }
    const latest = Math.max(2000, 2024 - years + 1);
    const startYear = Math.min(latest, 2010 + random.int(15));
    const suffix = random.pick(siteSuffixes);
    return {
      id: `${spec.idPrefix}-${String(i + 1).padStart(4, '0')}`,
      name: `${water}${suffix.startsWith(',') ? '' : ' '}${suffix} ${i + 1}`,
      latitude: random.range(south, north).toFixed(5),
      longitude: random.range(west, east).toFixed(5),
      type,
      rows: locationRows,
      profiles,
      startYear,
      stepDays,
      startOffset: random.int(20),
    };
  });
}
