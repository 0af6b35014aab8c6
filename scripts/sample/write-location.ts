import { dateOf, dayOfYearStart, SEASON_DAYS, seasonDay, timesShort, timesWithSeconds } from './calendar.js';
import { comments, type DatasetSpec } from './datasets.js';
import { csvField } from './csv.js';
import type { ChunkWriter } from './generate.js';
import type { LocationPlan } from './plan.js';
import type { Random } from './prng.js';
import { V, variableColumns, type RowTemplate } from './series.js';

const CHUNK = 1 << 20;
const escapedComments = comments.map(csvField);
const values: string[] = variableColumns.map(() => '');

const loggerType: Readonly<Record<string, string>> = {
  'ab-bow-river-temperature': 'Field Msr/Obs-Continuous Time Series',
  'nb-saint-john-temperature': 'Field Msr/Obs-Continuous Time Series',
};

/** ActivityType of one visit: mostly routine, a few QC activities as real programmes have. */
function activityTypeOf(kind: DatasetSpec['kind'], folder: string, random: Random): string {
  if (kind === 'continuous') return loggerType[folder] ?? 'Field Msr/Obs-Portable Data Logger';
  const r = random.next();
  if (kind === 'field') return r < 0.02 ? 'Quality Control Field Replicate Msr/Obs' : 'Field Msr/Obs';
  return r < 0.025 ? 'Quality Control Sample-Field Blank' : r < 0.05 ? 'Quality Control Sample-Lab Duplicate' : 'Sample-Routine';
}

/**
 * Writes one location's rows, sorted by date and time, all its characteristics at each visit (or logger tick).
 * The loop fills `values` and concatenates template segments: no objects per row.
 */
export async function writeLocation(writer: ChunkWriter, spec: DatasetSpec, location: LocationPlan, templates: readonly RowTemplate[], random: Random): Promise<void> {
  const profiles = location.profiles;
  const k = profiles.length;
  const events = Math.ceil(location.rows / k);
  const continuous = spec.kind === 'continuous';
  const lab = spec.kind === 'lab';
  const drift = new Float64Array(k);
  const labStart = dayOfYearStart(location.startYear) + 60 + random.int(200);
  let remaining = location.rows;
  let chunk = '';
  let activityType = activityTypeOf(spec.kind, spec.folder, random);
  for (let e = 0; e < events; e++) {
    let day: number;
    let minute: number;
    let season: number;
    if (continuous) {
      const total = location.startOffset * 1440 + e * 15;
      const d = Math.floor(total / 1440);
      day = seasonDay(location.startYear + Math.floor(d / SEASON_DAYS), d % SEASON_DAYS);
      minute = total % 1440;
      season = Math.sin((Math.PI * (d % SEASON_DAYS)) / SEASON_DAYS);
    } else if (lab) {
      day = labStart + e * location.stepDays + random.int(3);
      minute = 540 + random.int(360);
      const doy = day - dayOfYearStart(Number(dateOf(day).slice(0, 4)));
      season = Math.max(0, Math.sin((Math.PI * (doy - 120)) / SEASON_DAYS));
    } else {
      const d = location.startOffset + e * location.stepDays + random.int(3);
      day = seasonDay(location.startYear + Math.floor(d / SEASON_DAYS), d % SEASON_DAYS);
      minute = 480 + random.int(600);
      season = Math.sin((Math.PI * (d % SEASON_DAYS)) / SEASON_DAYS);
    }
    if (!continuous) activityType = activityTypeOf(spec.kind, spec.folder, random);
    const blank = activityType === 'Quality Control Sample-Field Blank';
    values[V.ActivityType] = activityType;
    values[V.ActivityStartDate] = dateOf(day);
    values[V.ActivityStartTime] = continuous ? (timesWithSeconds[minute] as string) : (timesShort[minute] as string);
    values[V.AnalysisStartDate] = lab ? dateOf(day + 1 + random.int(4)) : '';
    values[V.LaboratorySampleID] = lab ? `${location.id}-${e + 1}` : '';
    const diurnal = continuous ? Math.sin((2 * Math.PI * (minute - 540)) / 1440) * season : 0;
    for (let c = 0; c < k && remaining > 0; c++, remaining--) {
      const p = profiles[c]!;
      let v: number;
      if (p.logNormal) {
        v = p.mean * Math.exp(p.sd * random.normal()) * (blank ? 0.01 : 1);
      } else if (continuous) {
        drift[c] = 0.97 * drift[c]! + 0.25 * random.normal();
        v = p.mean + p.seasonal * season + p.sd * drift[c]! + (c === 0 ? 1.5 * diurnal : 0);
      } else {
        v = p.mean + p.seasonal * season + p.sd * random.normal();
      }
      v = v < p.min ? p.min : v > p.max ? p.max : v;
      if (p.detectionLimit !== undefined && v < p.detectionLimit) {
        values[V.ResultValue] = '';
        values[V.ResultUnit] = '';
        // Schema 3.0.0 reports a result below a known limit as 'Below Detection/Quantification Limit' with the limit
        // (rule …-above-below); 'Not Detected' may carry no limit at all (rule …-not-detect).
        values[V.ResultDetectionCondition] = 'Below Detection/Quantification Limit';
        values[V.ResultDetectionQuantitationLimitMeasure] = String(p.detectionLimit);
        values[V.ResultDetectionQuantitationLimitUnit] = p.unit;
        values[V.ResultDetectionQuantitationLimitType] = 'Method Detection Level';
      } else {
        values[V.ResultValue] = v.toFixed(p.decimals);
        values[V.ResultUnit] = p.unit;
        values[V.ResultDetectionCondition] = '';
        values[V.ResultDetectionQuantitationLimitMeasure] = '';
        values[V.ResultDetectionQuantitationLimitUnit] = '';
        values[V.ResultDetectionQuantitationLimitType] = '';
      }
      values[V.ResultComment] = random.next() < 0.002 ? (escapedComments[random.int(escapedComments.length)] as string) : '';
      const t = templates[c]!;
      const segments = t.segments;
      const slots = t.slots;
      let row = segments[0]!;
      for (let s = 0; s < slots.length; s++) row += values[slots[s]!]! + segments[s + 1]!;
      chunk += row;
    }
    if (chunk.length > CHUNK) {
      const pending = writer.write(chunk);
      chunk = '';
      if (pending) await pending;
    }
  }
  if (chunk.length > 0) await writer.write(chunk);
}
