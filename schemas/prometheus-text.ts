/**
 * Prometheus' text exposition format (version 0.0.4), written by the data API's /metrics and by ingest's textfile
 * for a node exporter: both meet here, as they meet nowhere else but schemas/. Only what the format needs: a family
 * is its name, help, type and samples; a histogram's samples are its `_bucket`, `_sum` and `_count` series, which
 * the caller builds (services/api/observe/metric-registry.ts).
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';
export type Labels = Readonly<Record<string, string>>;

export interface MetricSample {
  /** Appended to the family's name: `_bucket`, `_sum`, `_count` of a histogram; empty otherwise. */
  readonly suffix?: string;
  readonly labels?: Labels;
  readonly value: number;
}

export interface MetricFamily {
  /** A counter's name ends in `_total`, as the format's TYPE line and every client library spell it. */
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly samples: readonly MetricSample[];
}

/** The content type a scraper negotiates for this format. */
export const PROMETHEUS_TEXT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Throws on a name a scraper would refuse, so a bad declaration fails at startup, not at the first scrape. */
export function checkMetricName(name: string): string {
  if (!METRIC_NAME.test(name)) throw new Error(`invalid Prometheus metric name '${name}'`);
  return name;
}

export function checkLabelName(name: string): string {
  // Names starting with __ are reserved for Prometheus itself.
  if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`invalid Prometheus label name '${name}'`);
  return name;
}

/**
 * The families as one exposition, each with its HELP and TYPE lines; a family without samples is left out.
 * @example renderFamilies([{ name: 'up', help: 'Up.', type: 'gauge', samples: [{ value: 1 }] }]) // "# HELP up Up.\n# TYPE up gauge\nup 1\n"
 */
export function renderFamilies(families: readonly MetricFamily[]): string {
  const out: string[] = [];
  for (const f of families) {
    if (f.samples.length === 0) continue;
    checkMetricName(f.name);
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) out.push(`${f.name}${s.suffix ?? ''}${labelSet(s.labels)} ${formatValue(s.value)}`);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

function labelSet(labels: Labels | undefined): string {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return '';
  return `{${entries.map(([k, v]) => `${checkLabelName(k)}="${escapeLabelValue(v)}"`).join(',')}}`;
}

/** The format's escapes: a label value's backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text escapes only backslash and line feed. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
