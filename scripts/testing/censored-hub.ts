/**
 * A seeded hub for the statistics with non-detects (issue 52): dataset folders in DataStream's upload format whose
 * series have 0–95 % of their results censored, at several limits, some in another unit than the values (µg/L
 * limits beside mg/L values, and the reverse), non-detects without a ResultUnit (as DataStream asks), results above
 * a quantification limit (E. coli's `>2419.6`, and `>` among the detected values), rows no statistic can use
 * (`Not Detected` without a limit, `Detected Not Quantified`, a limit in ppm) and quality-control samples with
 * values no statistic may see. Besides the CSV, the rows it wrote, as the published file stores them, for oracles.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { activityGroupFor } from '../../schemas/activity-group.js';
import { createRandom, type Random } from '../sample/prng.js';
import { parseReported, type KmExample } from './km-examples.js';
import { ABOVE, BELOW, NOT_DETECTED, type StoredResult } from './stored-result.js';

const HEADER = [
  'DatasetName', 'MonitoringLocationID', 'MonitoringLocationName', 'MonitoringLocationLatitude', 'MonitoringLocationLongitude',
  'MonitoringLocationHorizontalCoordinateReferenceSystem', 'MonitoringLocationType', 'ActivityType', 'ActivityMediaName', 'ActivityStartDate',
  'CharacteristicName', 'MethodSpeciation', 'ResultSampleFraction', 'ResultValue', 'ResultUnit', 'ResultDetectionCondition',
  'ResultDetectionQuantitationLimitMeasure', 'ResultDetectionQuantitationLimitUnit', 'ResultDetectionQuantitationLimitType', 'ResultValueType',
  'ResultStatusID', 'ResultAnalyticalMethodName', 'LaboratoryName',
] as const;

/** One written result: what the published file stores, and where. */
export interface HubResult extends StoredResult {
  readonly DOI: string;
  readonly MonitoringLocationID: string;
  readonly ActivityType: string;
  readonly ActivityStartDate: string;
}

/** One result of a series before it is written: a value, a limit with its condition, or neither. */
interface Draft {
  readonly value?: number;
  readonly unit: string | null;
  readonly condition?: string;
  readonly limit?: number;
  readonly limitUnit?: string;
}

/** A characteristic's series at one location: its results, drawn from the location's random source. */
interface Series {
  readonly characteristic: string;
  readonly fraction: string | null;
  readonly draw: (random: Random, n: number, censored: number) => Draft[];
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));
const lognormal = (random: Random, median: number, sd: number, digits: number) => round(median * Math.exp(sd * random.normal()), digits);

/** A left-censored draft at one of `limits`, in `limitUnit`; with or without the value's unit as ResultUnit. */
function below(random: Random, limits: readonly number[], limitUnit: string, resultUnit: string | null): Draft {
  return { unit: resultUnit, condition: random.next() < 0.9 ? BELOW : NOT_DETECTED, limit: random.pick(limits), limitUnit };
}

/** The rows no statistic uses: a non-detect without a limit, a detected-not-quantified, a limit in ppm (no conversion). */
function unusable(random: Random, unit: string): Draft {
  return random.pick<Draft>([{ unit: null, condition: NOT_DETECTED }, { unit: null, condition: 'Detected Not Quantified' }, { unit, condition: BELOW, limit: 1, limitUnit: 'ppm' }]);
}

const SERIES: readonly Series[] = [
  // Several laboratories' limits, some written in mg/L or ng/L beside µg/L values (§2.3), the others without a unit.
  {
    characteristic: 'Lead', fraction: 'Total',
    draw: (random, n, censored) => Array.from({ length: n }, (): Draft => {
      if (random.next() < 0.04) return unusable(random, 'ug/L');
      if (random.next() >= censored) return { value: random.next() < 0.1 ? 0.7 : lognormal(random, 0.8, 1, 2), unit: 'ug/L' };
      const other = random.next();
      // 700 ng/L is 0.7000000000000001 µg/L in doubles, 0.7 after §2.3's rounding: it ties with a detected 0.7.
      if (other < 0.15) return below(random, [700, 500], 'ng/L', 'ug/L');
      if (other < 0.3) return below(random, [0.0005, 0.001], 'mg/L', 'ug/L');
      return below(random, [0.1, 0.5, 1], 'ug/L', random.next() < 0.7 ? null : 'ug/L');
    }),
  },
  // Values in mg/L; limits in µg/L with ResultUnit mg/L (converted: 5 µg/L ties with 0.005), or without (a µg/L group).
  {
    characteristic: 'Zinc', fraction: 'Dissolved',
    draw: (random, n, censored) => Array.from({ length: n }, (): Draft => {
      if (random.next() >= censored) return { value: random.next() < 0.1 ? 0.005 : lognormal(random, 0.01, 0.8, 4), unit: 'mg/L' };
      return below(random, [5, 10], 'ug/L', random.next() < 0.8 ? 'mg/L' : null);
    }),
  },
  // Mostly below one limit, as the sample's mercury.
  {
    characteristic: 'Mercury', fraction: 'Total',
    draw: (random, n, censored) => Array.from({ length: n }, (): Draft =>
      random.next() >= censored ? { value: lognormal(random, 0.006, 0.6, 4), unit: 'ug/L' } : below(random, [0.005, 0.005, 0.01, 0.02], 'ug/L', null)),
  },
  // Colilert's counting range: `<1` below, `>2419.6` above (separable); sometimes a dilution's `>200` among the counts.
  {
    characteristic: 'Escherichia coli', fraction: null,
    draw: (random, n, censored) => Array.from({ length: n }, (): Draft => {
      if (random.next() >= censored) return { value: round(Math.min(2419, lognormal(random, 120, 1.5, 1)), 1), unit: 'MPN/100mL' };
      const side = random.next();
      if (side < 0.45) return { unit: null, condition: BELOW, limit: random.pick([1, 10]), limitUnit: 'MPN/100mL' };
      return { unit: null, condition: ABOVE, limit: side < 0.9 ? 2419.6 : 200, limitUnit: 'MPN/100mL' };
    }),
  },
  // Never censored.
  { characteristic: 'pH', fraction: null, draw: (random, n) => Array.from({ length: n }, () => ({ value: round(7.5 + 0.6 * random.normal(), 2), unit: 'None' })) },
];

const QC_TYPES = ['Quality Control Sample-Field Blank', 'Quality Control Sample-Lab Duplicate', 'Quality Control Field Replicate Msr/Obs', 'Sample-Positive Control'];

export interface CensoredHub {
  /** The rows written, in file order, quality control included. */
  readonly rows: readonly HubResult[];
  readonly dois: readonly string[];
}

/**
 * Writes `datasets` folders under `out` (one CSV each, `locations` locations each, every series at each location with
 * 1–60 results and a censored share drawn from 0–95 %), and returns their rows.
 */
export async function writeCensoredHub(out: string, options: { readonly seed: number; readonly datasets: number; readonly locations: number }): Promise<CensoredHub> {
  const random = createRandom(options.seed);
  const rows: HubResult[] = [];
  const dois: string[] = [];
  for (let d = 0; d < options.datasets; d++) {
    const doi = `10.80052/km-hub-${options.seed}-${d}`;
    const name = `Censored hub ${d}`;
    const lines: string[] = [];
    for (let l = 0; l < options.locations; l++) {
      const id = `KM-${d}-${l}`;
      const place = [String(round(45 + random.next() * 10, 4)), String(round(-120 + random.next() * 40, 4))];
      for (const series of SERIES) {
        const drafts = series.draw(random, 1 + random.int(60), random.next() * 0.95);
        const qc = Array.from({ length: random.int(3) }, (): Draft => ({ value: 1e6, unit: series.characteristic === 'pH' ? 'None' : drafts.find((x) => x.value !== undefined)?.unit ?? 'ug/L' }));
        for (const [i, draft] of [...drafts, ...qc].entries()) {
          const activity = i >= drafts.length ? random.pick(QC_TYPES) : series.characteristic === 'pH' ? 'Field Msr/Obs' : 'Sample-Routine';
          const date = new Date(Date.UTC(2015, 0, 1) + (i * 97 + l * 13) * 86_400_000).toISOString().slice(0, 10);
          const row = stored(doi, id, activity, date, series, draft);
          rows.push(row);
          lines.push(csvLine(name, place, row, draft));
        }
      }
    }
    const folder = join(out, `km-hub-${d}`);
    await mkdir(folder, { recursive: true });
    await writeDataset(join(out, `km-hub-${d}`), doi, name, lines);
    dois.push(doi);
  }
  return { rows, dois };
}

/**
 * `storable`: `Not Detected` with a limit is an upstream error (its rule wants no limit there) that the README still
 * classes as left-censored; every other row passes upstream's checks.
 */
async function writeDataset(folder: string, doi: string, name: string, lines: readonly string[]): Promise<void> {
  await mkdir(folder, { recursive: true });
  const metadata = { DOI: doi, DatasetName: name, Version: '1.0.0', Licence: 'ODC-By', Keywords: ['test'], CreateTimestamp: '2024-01-01T00:00:00Z', TopicCategoryCode: ['inlandWaters'], ValidationLevel: 'storable' };
  await writeFile(join(folder, 'metadata.json'), JSON.stringify(metadata));
  await writeFile(join(folder, 'data.csv'), `${HEADER.join(',')}\n${lines.join('\n')}\n`);
}

/** How a case's results are written: in µg/L; `mg/L limits` writes each limit in mg/L beside a ResultUnit µg/L. */
export type CaseSpelling = 'as laboratories write them' | 'mg/L limits';

/**
 * The README's cases (§8, §9) as one dataset: each case a location `CASE-<i>` with its results as Lead, Total, in
 * µg/L, a non-detect without a ResultUnit (DataStream's rule), or with its limit in mg/L beside a ResultUnit µg/L,
 * which the statistics convert back (5e-4 mg/L is 0.5 µg/L after §2.3's rounding). One quality-control sample per
 * location, whose value no statistic may see.
 */
export async function writeCaseDataset(out: string, doi: string, cases: readonly { readonly example: KmExample; readonly spelling: CaseSpelling }[]): Promise<HubResult[]> {
  const name = 'Statistics README cases';
  const rows: HubResult[] = [];
  const lines: string[] = [];
  const series: Series = { characteristic: 'Lead', fraction: 'Total', draw: () => [] };
  for (const [i, { example, spelling }] of cases.entries()) {
    const drafts = example.values.map(parseReported).map((r): Draft => {
      if (r.kind === 'detected') return { value: r.value, unit: 'ug/L' };
      const condition = r.kind === 'left' ? BELOW : ABOVE;
      return spelling === 'mg/L limits' ? { unit: 'ug/L', condition, limit: r.value / 1000, limitUnit: 'mg/L' } : { unit: null, condition, limit: r.value, limitUnit: 'ug/L' };
    });
    for (const [j, draft] of [...drafts, { value: 1e6, unit: 'ug/L' }].entries()) {
      const activity = j === drafts.length ? 'Quality Control Sample-Lab Spike' : 'Sample-Routine';
      const date = new Date(Date.UTC(2020, 0, 1) + j * 86_400_000).toISOString().slice(0, 10);
      const row = stored(doi, `CASE-${i}`, activity, date, series, draft);
      rows.push(row);
      lines.push(csvLine(name, [String(50 + i / 100), '-100'], row, draft));
    }
  }
  await writeDataset(join(out, 'km-cases'), doi, name, lines);
  return rows;
}

function stored(doi: string, id: string, activity: string, date: string, series: Series, draft: Draft): HubResult {
  return {
    DOI: doi, MonitoringLocationID: id, ActivityType: activity, ActivityStartDate: date,
    ActivityGroupType: activityGroupFor(activity),
    CharacteristicName: series.characteristic, ResultSampleFraction: series.fraction, MethodSpeciation: null,
    ResultValue: draft.value ?? null, ResultUnit: draft.unit, ResultDetectionCondition: draft.condition ?? null,
    ResultDetectionQuantitationLimitMeasure: draft.limit ?? null, ResultDetectionQuantitationLimitUnit: draft.limitUnit ?? null,
  };
}

function csvLine(dataset: string, place: readonly string[], r: HubResult, draft: Draft): string {
  const lab = r.ActivityType !== 'Field Msr/Obs';
  const cells: Record<(typeof HEADER)[number], string> = {
    DatasetName: dataset, MonitoringLocationID: r.MonitoringLocationID, MonitoringLocationName: `Site ${r.MonitoringLocationID}`,
    MonitoringLocationLatitude: place[0]!, MonitoringLocationLongitude: place[1]!, MonitoringLocationHorizontalCoordinateReferenceSystem: 'WGS84',
    MonitoringLocationType: 'River/Stream', ActivityType: r.ActivityType, ActivityMediaName: 'Surface Water', ActivityStartDate: r.ActivityStartDate,
    CharacteristicName: r.CharacteristicName, MethodSpeciation: '', ResultSampleFraction: r.ResultSampleFraction ?? '',
    ResultValue: draft.value === undefined ? '' : String(draft.value), ResultUnit: draft.unit ?? '', ResultDetectionCondition: draft.condition ?? '',
    ResultDetectionQuantitationLimitMeasure: draft.limit === undefined ? '' : String(draft.limit), ResultDetectionQuantitationLimitUnit: draft.limitUnit ?? '',
    ResultDetectionQuantitationLimitType: draft.limit === undefined ? '' : 'Method Detection Level', ResultValueType: 'Actual', ResultStatusID: 'Accepted',
    ResultAnalyticalMethodName: lab ? 'Undefined' : '', LaboratoryName: lab ? 'Test Lab' : '',
  };
  return HEADER.map((h) => cells[h]).join(',');
}
