/**
 * Which stored rows enter a statistic, as what, and in which group: ../shared/statistics/README.md §2, written from
 * the README alone as the reference the production's SQL is checked against.
 */
import { ABOVE, BELOW, isQualityControl, NOT_DETECTED, type StoredResult } from './stored-result.js';

/** One row as the statistics see it (§2.1), its number in the group's unit. */
export type KmRow =
  | { readonly kind: 'detected'; readonly value: number }
  | { readonly kind: 'left'; readonly value: number }
  | { readonly kind: 'right'; readonly value: number }
  | { readonly kind: 'unusable' };

/**
 * A unit conversion (§2.3), injected so a test can pass the repository's UCUM table (ingest/unit-conversion.ts):
 * the value in `to`, or undefined when the pair does not convert.
 */
export type Convert = (value: number, from: string, to: string) => number | undefined;

/** The conditions that make a row without a value censored when it carries a limit (§2.1). */
const CENSORING: Readonly<Record<string, 'left' | 'right'>> = { [BELOW]: 'left', [NOT_DETECTED]: 'left', [ABOVE]: 'right' };

/** A row without a value whose condition censors it and which carries a limit with its unit. */
function censoredLimit(row: StoredResult): { kind: 'left' | 'right'; limit: number; unit: string } | undefined {
  if (row.ResultValue !== null || row.ResultDetectionCondition === null) return undefined;
  const kind = Object.hasOwn(CENSORING, row.ResultDetectionCondition) ? CENSORING[row.ResultDetectionCondition] : undefined;
  const limit = row.ResultDetectionQuantitationLimitMeasure;
  const unit = row.ResultDetectionQuantitationLimitUnit;
  if (kind === undefined || limit === null || unit === null) return undefined;
  return { kind, limit, unit };
}

/**
 * §2.2: a row's unit is its ResultUnit; a censored row with a limit and no ResultUnit takes its limit's unit, so a
 * non-detect uploaded without ResultUnit (DataStream's rule ResultUnit-NoValue) meets the values it censors.
 */
export function groupUnitOf(row: StoredResult): string | null {
  if (row.ResultUnit !== null) return row.ResultUnit;
  return censoredLimit(row)?.unit ?? null;
}

/** §2.3: a limit in the group's unit as stored; another unit converted and rounded to 12 significant digits. */
export function limitInUnit(limit: number, from: string, to: string, convert: Convert): number | undefined {
  if (from === to) return limit;
  const converted = convert(limit, from, to);
  return converted === undefined ? undefined : Number(converted.toPrecision(12));
}

/** §2.1: the row's kind and its number in `unit` (the group's unit, §2.2). */
export function classifyResult(row: StoredResult, unit: string | null, convert: Convert): KmRow {
  if (row.ResultValue !== null) return { kind: 'detected', value: row.ResultValue };
  const censored = censoredLimit(row);
  if (censored === undefined || unit === null) return { kind: 'unusable' };
  const value = limitInUnit(censored.limit, censored.unit, unit, convert);
  return value === undefined ? { kind: 'unusable' } : { kind: censored.kind, value };
}

/** The key of a LocationSummaries row within its location (§2.2). */
export interface SummaryKey {
  readonly CharacteristicName: string;
  readonly ResultSampleFraction: string | null;
  readonly MethodSpeciation: string | null;
  readonly ResultUnit: string | null;
}

export interface SummaryGroup {
  readonly key: SummaryKey;
  /** The group's stored rows, quality-control results set aside (§2.4). */
  readonly rows: readonly StoredResult[];
  /** The same rows classified in the group's unit. */
  readonly classified: readonly KmRow[];
}

/**
 * One location's rows → its LocationSummaries groups (§2.2, §2.4), sorted by key with nulls last. Quality-control
 * results enter no group: not Count, not any statistic.
 */
export function locationSummaryGroups(rows: readonly StoredResult[], convert: Convert): SummaryGroup[] {
  const groups = new Map<string, { key: SummaryKey; rows: StoredResult[] }>();
  for (const row of rows) {
    if (isQualityControl(row)) continue;
    const key: SummaryKey = {
      CharacteristicName: row.CharacteristicName,
      ResultSampleFraction: row.ResultSampleFraction,
      MethodSpeciation: row.MethodSpeciation,
      ResultUnit: groupUnitOf(row),
    };
    const id = JSON.stringify([key.CharacteristicName, key.ResultSampleFraction, key.MethodSpeciation, key.ResultUnit]);
    const group = groups.get(id) ?? { key, rows: [] };
    group.rows.push(row);
    groups.set(id, group);
  }
  return [...groups.values()]
    .sort((a, b) => compareKeys(a.key, b.key))
    .map((g) => ({ key: g.key, rows: g.rows, classified: g.rows.map((r) => classifyResult(r, g.key.ResultUnit, convert)) }));
}

function compareKeys(a: SummaryKey, b: SummaryKey): number {
  return compareNullable(a.CharacteristicName, b.CharacteristicName)
    || compareNullable(a.ResultSampleFraction, b.ResultSampleFraction)
    || compareNullable(a.MethodSpeciation, b.MethodSpeciation)
    || compareNullable(a.ResultUnit, b.ResultUnit);
}

function compareNullable(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}
