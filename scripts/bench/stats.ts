/** Pure helpers of the benchmark: summaries of repeated runs and how figures are written. */

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: number;
}

/** Median (mean of the middle two for an even count), min and max of the samples. */
export function summarise(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new RangeError('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, runs: sorted.length };
}

/** Three significant digits, thousands grouped above 1000: 0.0123, 4.56, 78.9, 12,346. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs === 0) return '0';
  return Number(value.toPrecision(3)).toString();
}

/** `median (min–max)`, or just the value for a single run. */
export function formatSummary(s: Summary): string {
  const m = formatNumber(s.median);
  return s.runs > 1 ? `${m} (${formatNumber(s.min)}–${formatNumber(s.max)})` : m;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let v = bytes;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${formatNumber(v)} ${units[i]}`;
}
