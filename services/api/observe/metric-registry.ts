/**
 * The API's metrics kept in memory: counters, gauges and histograms, each declared once with its label names, plus
 * figures read only when scraped (a gauge of the query gate, the publication's age). Rendered by
 * schemas/prometheus-text.ts. A series is created on first use; label values must come from bounded sets (a route
 * family, a status, a format), never from a path or a client, or the series would grow without end.
 */
import { checkLabelName, checkMetricName, renderFamilies, type Labels, type MetricFamily, type MetricSample, type MetricType } from '../../../schemas/prometheus-text.js';

export interface Counter<L extends string> {
  inc(labels: Readonly<Record<L, string>>, by?: number): void;
}

export interface Gauge<L extends string> {
  inc(labels: Readonly<Record<L, string>>, by?: number): void;
  dec(labels: Readonly<Record<L, string>>, by?: number): void;
}

export interface Histogram<L extends string> {
  observe(labels: Readonly<Record<L, string>>, value: number): void;
}

export interface MetricRegistry {
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L>;
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L>;
  /** `buckets`: upper bounds, ascending; `+Inf` is added. */
  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]): Histogram<L>;
  /** Families computed at each scrape, after the declared ones. */
  collect(read: () => readonly MetricFamily[]): void;
  render(): string;
}

interface Declared {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly labelNames: readonly string[];
  samples(): MetricSample[];
}

export function metricRegistry(): MetricRegistry {
  const declared: Declared[] = [];
  const collectors: (() => readonly MetricFamily[])[] = [];

  function declare(name: string, type: MetricType, labelNames: readonly string[]): void {
    checkMetricName(name);
    labelNames.forEach(checkLabelName);
    if (declared.some((d) => d.name === name)) throw new Error(`metric ${name} declared twice`);
    if (type === 'counter' && !name.endsWith('_total')) throw new Error(`counter ${name} must end in _total`);
  }

  /** One series per label combination, in the declared order of the names. */
  function seriesOf<S>(labelNames: readonly string[], make: () => S) {
    const series = new Map<string, { labels: Labels; state: S }>();
    return {
      get(labels: Labels): S {
        const key = labelNames.map((n) => {
          const v = labels[n];
          if (v === undefined) throw new Error(`label ${n} missing`);
          return v;
        }).join('\u0000');
        let s = series.get(key);
        if (!s) series.set(key, (s = { labels: Object.fromEntries(labelNames.map((n) => [n, labels[n]!])), state: make() }));
        return s.state;
      },
      entries: () => [...series.values()],
    };
  }

  function scalar<L extends string>(name: string, help: string, type: 'counter' | 'gauge', labelNames: readonly L[]) {
    declare(name, type, labelNames);
    const series = seriesOf(labelNames, () => ({ value: 0 }));
    declared.push({ name, help, type, labelNames, samples: () => series.entries().map((s) => ({ labels: s.labels, value: s.state.value })) });
    return (labels: Labels, by: number) => {
      series.get(labels).value += by;
    };
  }

  return {
    counter(name, help, labelNames) {
      const add = scalar(name, help, 'counter', labelNames);
      return {
        inc(labels, by = 1) {
          if (by < 0) throw new Error(`counter ${name} cannot go down`);
          add(labels, by);
        },
      };
    },
    gauge(name, help, labelNames) {
      const add = scalar(name, help, 'gauge', labelNames);
      return { inc: (labels, by = 1) => add(labels, by), dec: (labels, by = 1) => add(labels, -by) };
    },
    histogram(name, help, labelNames, buckets) {
      declare(name, 'histogram', labelNames);
      if (labelNames.includes('le' as never)) throw new Error(`histogram ${name} cannot have a label named le`);
      if (buckets.some((b, i) => i > 0 && b <= buckets[i - 1]!)) throw new Error(`histogram ${name}: buckets must ascend`);
      const series = seriesOf(labelNames, () => ({ counts: buckets.map(() => 0), sum: 0, count: 0 }));
      declared.push({
        name,
        help,
        type: 'histogram',
        labelNames,
        samples: () =>
          series.entries().flatMap(({ labels, state }) => [
            ...buckets.map((b, i) => ({ suffix: '_bucket', labels: { ...labels, le: String(b) }, value: state.counts[i]! })),
            { suffix: '_bucket', labels: { ...labels, le: '+Inf' }, value: state.count },
            { suffix: '_sum', labels, value: state.sum },
            { suffix: '_count', labels, value: state.count },
          ]),
      });
      return {
        observe(labels, value) {
          const s = series.get(labels);
          // Buckets are cumulative: a value counts in every bucket whose bound it does not exceed.
          for (let i = 0; i < buckets.length; i++) if (value <= buckets[i]!) s.counts[i]!++;
          s.sum += value;
          s.count++;
        },
      };
    },
    collect(read) {
      collectors.push(read);
    },
    render() {
      const families: MetricFamily[] = declared.map((d) => ({ name: d.name, help: d.help, type: d.type, samples: d.samples() }));
      return renderFamilies([...families, ...collectors.flatMap((read) => read())]);
    },
  };
}
