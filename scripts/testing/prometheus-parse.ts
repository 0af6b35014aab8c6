/**
 * Test support: Prometheus' text format read by a real parser, prometheus_client's (pip `prometheus-client`, which
 * scripts/test-deps.sh installs), so our writer (schemas/prometheus-text.ts) is checked against the format as a
 * scraper's library reads it, not against our own idea of it.
 */
import { execFileSync } from 'node:child_process';

export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** `+Inf`, `-Inf` and `NaN` as those strings. */
  readonly value: number | string;
}

export interface ParsedFamily {
  /** As the parser names it: a counter's without its `_total`. */
  readonly name: string;
  readonly type: string;
  readonly documentation: string;
  readonly samples: readonly ParsedSample[];
}

const PARSE = `
import sys, json, math
from prometheus_client.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(sys.stdin.read()):
    out.append({"name": f.name, "type": f.type, "documentation": f.documentation,
                "samples": [{"name": s.name, "labels": s.labels, "value": s.value if math.isfinite(s.value) else str(s.value)} for s in f.samples]})
print(json.dumps(out))
`;

/** Throws with the parser's own message when the text is not valid exposition format. */
export function parsePrometheusText(text: string): ParsedFamily[] {
  return JSON.parse(execFileSync('python3', ['-c', PARSE], { input: text, encoding: 'utf8' })) as ParsedFamily[];
}

/** The value of the sample `name` whose labels include `labels`, or undefined. */
export function sampleValue(families: readonly ParsedFamily[], name: string, labels: Readonly<Record<string, string>> = {}): number | string | undefined {
  for (const f of families) {
    for (const s of f.samples) if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
  }
  return undefined;
}
