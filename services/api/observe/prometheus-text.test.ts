/** The exposition writer read back by prometheus_client's parser: escapes, special values and every type. */
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../../../scripts/testing/prometheus-parse.js';
import { checkLabelName, checkMetricName, renderFamilies } from '../../../schemas/prometheus-text.js';

describe('renderFamilies', () => {
  it('writes label values and help text that a real parser reads back exactly, however hostile', () => {
    const hostile = 'a "quoted" back\\slash\nnew line, {brace}=é ✓';
    const text = renderFamilies([
      { name: 'x_total', help: 'Help with a back\\slash\nand a second line.', type: 'counter', samples: [{ labels: { v: hostile, w: '' }, value: 3 }] },
      { name: 'g', help: 'Special values.', type: 'gauge', samples: [{ labels: { k: 'inf' }, value: Infinity }, { labels: { k: 'neg' }, value: -Infinity }, { labels: { k: 'nan' }, value: NaN }, { labels: { k: 'small' }, value: 1.5e-9 }] },
    ]);
    const families = parsePrometheusText(text);
    expect(families.map((f) => [f.name, f.type])).toEqual([['x', 'counter'], ['g', 'gauge']]);
    expect(families[0]!.documentation).toBe('Help with a back\\slash\nand a second line.');
    expect(families[0]!.samples[0]!.labels).toEqual({ v: hostile, w: '' });
    expect(sampleValue(families, 'x_total')).toBe(3);
    expect(['inf', 'neg', 'nan', 'small'].map((k) => sampleValue(families, 'g', { k }))).toEqual(['inf', '-inf', 'nan', 1.5e-9]);
  });

  it('writes a histogram as its _bucket, _sum and _count series', () => {
    const text = renderFamilies([{ name: 'h_seconds', help: 'H.', type: 'histogram', samples: [
      { suffix: '_bucket', labels: { le: '0.5' }, value: 1 },
      { suffix: '_bucket', labels: { le: '+Inf' }, value: 2 },
      { suffix: '_sum', value: 1.25 },
      { suffix: '_count', value: 2 },
    ] }]);
    const [h] = parsePrometheusText(text);
    expect(h!.type).toBe('histogram');
    expect(h!.samples.map((s) => [s.name, s.labels['le'] ?? '', s.value])).toEqual([['h_seconds_bucket', '0.5', 1], ['h_seconds_bucket', '+Inf', 2], ['h_seconds_sum', '', 1.25], ['h_seconds_count', '', 2]]);
  });

  it('leaves out a family with no samples, and writes nothing for none', () => {
    expect(renderFamilies([{ name: 'empty', help: 'E.', type: 'gauge', samples: [] }])).toBe('');
  });

  it('refuses names a scraper would refuse', () => {
    expect(() => checkMetricName('9lives')).toThrow(/metric name/);
    expect(() => checkMetricName('has-dash')).toThrow(/metric name/);
    expect(() => checkLabelName('__reserved')).toThrow(/label name/);
    expect(() => renderFamilies([{ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { 'bad label': 'x' }, value: 1 }] }])).toThrow(/label name/);
  });
});
